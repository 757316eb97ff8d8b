import express, { type Request, type RequestHandler } from 'express';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from '../lib/errors.js';
import { jsonBody as readJson } from '../lib/perf/json-body.js';

/**
 * How the mock reads request bodies, so that a body a client got wrong is a 4xx on every path.
 *
 * - JSON (the APIs): the kit's reader, which decodes no `Content-Encoding`. A JSON body declaring
 *   one (gzip, br, anything but identity) is refused 415 before it is read: read as plain text, a
 *   gzip body would be a puzzling "Malformed JSON body", and a plain one labelled gzip would be
 *   taken, which the platform a partner is tested against must not do.
 * - Forms (the sandbox's pages): `express.urlencoded`, which decodes gzip, deflate and br itself.
 *   Its errors are turned into the kit's, with a status and a message a person can act on: a body
 *   that does not decode as its encoding says is a 400, an encoding it does not know a 415.
 */

/** The body's content coding when it has one other than identity, as the client spelt it. */
export function contentCoding(req: Request): string | undefined {
  const declared = req.headers['content-encoding']?.trim().toLowerCase();
  return declared === undefined || declared === '' || declared === 'identity' ? undefined : declared;
}

/** A request carries a body when it declares a length other than 0, or is chunked (as the kit's reader decides). */
const hasBody = (req: Request): boolean =>
  req.headers['content-length'] === undefined ? req.headers['transfer-encoding'] !== undefined : req.headers['content-length'] !== '0';

/** The 415 of a body sent compressed to a reader that takes it uncompressed only. */
export const compressedBody = (coding: string) =>
  unsupportedMediaType(`Content-Encoding ${JSON.stringify(coding)} is not supported: send the body uncompressed`);

/** The kit's JSON reader (`src/lib/perf/json-body.ts`), after refusing a compressed body (415). */
export function jsonBody(limitBytes: number): RequestHandler {
  const read = readJson(limitBytes);
  return (req, res, next) => {
    const coding = hasBody(req) ? contentCoding(req) : undefined;
    if (coding !== undefined) return next(compressedBody(coding));
    read(req, res, next);
  };
}

/** `express.urlencoded(options)`, its errors in the kit's vocabulary (src/lib/errors.ts). */
export function formBody(options: Parameters<typeof express.urlencoded>[0]): RequestHandler {
  const parse = express.urlencoded(options);
  return (req, res, next) => parse(req, res, (err?: unknown) => next(err === undefined ? undefined : formError(err, req)));
}

/** What `express.urlencoded` failed with, as an AppError; an error that is not the client's stays as it is. */
function formError(err: unknown, req: Request): unknown {
  if (err instanceof AppError) return err;
  const e = err as { status?: unknown; type?: unknown; code?: unknown; message?: unknown };
  if (typeof e.status !== 'number' || e.status < 400 || e.status >= 500) return err;
  const coding = contentCoding(req);
  switch (e.type) {
    case 'encoding.unsupported':
      return unsupportedMediaType(`Content-Encoding ${JSON.stringify(coding ?? '')} is not supported: send the form uncompressed, or as gzip, deflate or br`);
    case 'charset.unsupported':
      return unsupportedMediaType('A form must be sent in UTF-8');
    case 'entity.too.large':
    case 'parameters.too.many':
      return payloadTooLarge('The form is too large');
    case 'request.aborted':
      return badRequest('The request body was not received in full');
  }
  // The decompression stream's own errors (zlib's "incorrect header check", "unexpected end of
  // file", brotli's) carry no type: the body is not what its Content-Encoding claims.
  if (coding !== undefined && e.type === undefined) {
    return badRequest(`The body does not decode as its Content-Encoding (${coding}) says`);
  }
  return badRequest(typeof e.message === 'string' && e.message !== '' ? `The form could not be read: ${e.message}` : 'The form could not be read');
}
