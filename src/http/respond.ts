import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON response in one `writeHead` + `end`, with the given security headers (a flat
 * [name, value, …] list, see `helmetHeaders`). `body` may be pre-serialised JSON text.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, securityHeaders: readonly string[]): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, [
    ...securityHeaders,
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(text)),
  ]);
  res.end(text);
}
