import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * `helmet(options)` for every route, its headers computed once: the same headers, set in one loop
 * instead of by helmet's thirteen middlewares on every request (docs/performance.md). Mount it
 * first, and every route gets them, a fork's own included.
 *
 * Only for static policies: a CSP with per-request nonces cannot be captured.
 */
export function securityHeaders(options?: Readonly<HelmetOptions>): RequestHandler {
  const headers: [string, string][] = [];
  const capture = { setHeader: (name: string, value: unknown) => headers.push([name, String(value)]), removeHeader() {} };
  let called = false;
  helmet(options)({} as never, capture as never, () => (called = true));
  if (!called) throw new Error('helmet did not finish synchronously; its headers cannot be captured');
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
