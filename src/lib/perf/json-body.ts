import type { Request, RequestHandler } from 'express';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';

/**
 * The JSON body reader of both servers, in place of `express.json()`, which cost the callbacks a
 * measurable share of their CPU time (docs/performance.md): UTF-8 JSON only, the size limit enforced
 * while streaming, `req.body` left undefined when there is no body.
 *
 * 400 malformed JSON · 413 over the limit · 415 a body that is not declared as JSON.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req)) return next();
    if (!isJson(req.headers['content-type'])) return next(unsupportedMediaType());
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      // Refuse before reading; the connection is closed after the answer (see error handler).
      return next(payloadTooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limitBytes) {
        failed = true;
        next(payloadTooLarge());
      } else chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (!failed) {
        failed = true;
        next(badRequest(`Could not read request body: ${err.message}`));
      }
    });
    req.on('end', () => {
      if (failed) return;
      if (size === 0) return next();
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
      try {
        req.body = JSON.parse(text);
      } catch {
        return next(badRequest('Malformed JSON body'));
      }
      next();
    });
  };
}

/**
 * jsonBody's 415 alone, before anything is read: for a route that reads its body raw and parses
 * it itself (the signed results endpoint), so that it refuses what the callbacks refuse.
 */
export const jsonDeclared: RequestHandler = (req, _res, next) => {
  next(hasBody(req) && !isJson(req.headers['content-type']) ? unsupportedMediaType() : undefined);
};

/** A request carries a body when it declares a length other than 0, or is chunked. */
function hasBody(req: Request): boolean {
  const declared = req.headers['content-length'];
  return declared === undefined ? req.headers['transfer-encoding'] !== undefined : declared !== '0';
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  // "application/json", "application/json; charset=utf-8", "application/vnd.x+json"
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json' && !(type.startsWith('application/') && type.endsWith('+json'))) return false;
  if (semi === -1) return true;
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType.slice(semi))?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}
