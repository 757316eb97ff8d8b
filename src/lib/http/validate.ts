import type { z } from 'zod';
import { unprocessable } from '../errors.js';

/**
 * Parses `input` with `schema` or throws a 422 whose `error` reads as a sentence (the platform
 * shows a partner's 4xx message to its user) and whose `errors` maps each field to its messages.
 */
export function parseOr422<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, {
    error: (issue) => (issue.input === undefined ? 'is required' : undefined),
  });
  if (result.success) return result.data;
  const fields: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.length ? issue.path.join('.') : 'body';
    (fields[key] ??= []).push(issue.message);
  }
  const sentence = Object.entries(fields)
    .map(([field, messages]) => `${field} ${messages[0]}`)
    .join('; ');
  throw unprocessable(sentence, fields);
}
