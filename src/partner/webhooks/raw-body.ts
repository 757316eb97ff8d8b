import type { RequestHandler } from 'express';
import { badRequest, payloadTooLarge } from '../../lib/errors.js';

/**
 * Reads the request body as the exact bytes sent, into `res.locals.rawBody` (a Buffer, empty when
 * there is none), for the one route that must verify a signature over them. No decoding, no JSON
 * parsing, no content-type matching: anything that changes a byte would break the signature.
 * The limit is enforced while streaming. 413 over the limit · 400 when the stream fails.
 */
export function rawBody(limitBytes: number): RequestHandler {
  return (req, res, next) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) return next(payloadTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limitBytes) {
        done = true;
        next(payloadTooLarge());
      } else chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      next(badRequest(`Could not read request body: ${err.message}`));
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      res.locals.rawBody = Buffer.concat(chunks, size);
      next();
    });
  };
}
