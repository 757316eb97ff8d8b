import type { Request } from 'express';

/** A path parameter as a string, '' when absent (Express 5 types them as `string | string[]`). */
export function param(req: Request, name: string): string {
  const value = (req.params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** A positive integer path parameter (a database id), or undefined for anything else. */
export function idParam(req: Request, name: string): number | undefined {
  const value = param(req, name);
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined;
}
