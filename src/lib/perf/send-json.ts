import type { ServerResponse } from 'node:http';

/**
 * `res.status(status).json(body)` for the callbacks, in one `writeHead`: Express's `res.json` and
 * `res.send` (content-type lookup, freshness check) cost the callbacks a measurable share of their
 * CPU time (docs/performance.md). Headers set before (the security headers) are kept.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
