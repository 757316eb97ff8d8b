import type { Request } from 'express';
import { SAFE_INTEGER_DIGITS } from '../contract/schemas.js';
import { notFound } from '../lib/errors.js';

/** A path parameter as a string, '' when absent (Express 5 types them as `string | string[]`). */
export function param(req: Request, name: string): string {
  const value = (req.params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * A positive integer path parameter (a database id) up to 2^53 − 1, or undefined for anything
 * else: a larger one would round to a neighbouring id as a number.
 */
export function idParam(req: Request, name: string): number | undefined {
  const value = param(req, name);
  return SAFE_INTEGER_DIGITS.test(value) ? Number(value) : undefined;
}

/** Reads the `companyId` path parameter of a company that exists; anything else is 404 "Unknown company". */
export function companyIdParam(companies: { find(id: number): unknown }): (req: Request) => number {
  return (req) => {
    const id = idParam(req, 'companyId');
    if (id === undefined || !companies.find(id)) throw notFound('Unknown company');
    return id;
  };
}
