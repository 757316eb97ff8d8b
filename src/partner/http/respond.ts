import type { ServerResponse } from 'node:http';

const CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON writer for the given security headers (a flat [name, value, …] list, see
 * `helmetHeaders`): each call writes the response in one `writeHead` + `end`. The header list is
 * built once and only its Content-Length slot changes per call — `writeHead` copies the list
 * before returning, so reusing it allocates nothing per response. `body` may be pre-serialised JSON.
 */
export function jsonWriter(securityHeaders: readonly string[]) {
  const headers = [...securityHeaders, 'Content-Type', CONTENT_TYPE, 'Content-Length', '0'];
  const lengthSlot = headers.length - 1;
  return (res: ServerResponse, status: number, body: unknown): void => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    headers[lengthSlot] = String(Buffer.byteLength(text));
    res.writeHead(status, headers);
    res.end(text);
  };
}
