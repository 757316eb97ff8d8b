import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Company } from '../companies/store.js';
import type { Flash } from './flash.js';

/** What every sandbox page module uses: rendering, form actions (POST → redirect → GET), the company in the path. */
export interface PageKit {
  render(req: Request, res: Response, template: string, data: Record<string, unknown>, status?: number): void;
  /** Runs `fn`, then redirects to `back` (or where `fn` says) with its message; a 4xx becomes an error message there. */
  act(back: (req: Request) => string, fn: (req: Request) => Promise<Flash | { flash: Flash; to: string }>): RequestHandler;
  /** The company named by `:companyId`, or a 404. */
  companyOf(req: Request): Company;
  /** A template rendered alone (a part of a page, no layout), with the helpers every page has (`it.time`). */
  fragment(template: string, data: Record<string, unknown>): string;
  /**
   * Answers the poll of a page's live part (`/assets/live-reports.js`): `{ final, html }`, never
   * cached. `html`: one or more elements (`fragment`s), each replacing the page's element of the
   * same id. `final`: nothing on it is in flight any more (every report has its result, was
   * cancelled or could not be sent), so the page stops asking.
   */
  livePart(res: Response, part: { final: boolean; html: string }): void;
}

/**
 * A test picked from a listed select: the option's value is the test as JSON (its id and name),
 * read by `test`, which says what an id is on that platform.
 */
export function testChoice<T extends z.ZodType>(test: T) {
  return z
    .string()
    .min(1, 'choose a test')
    .max(1000)
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'choose a test from the list' });
        return z.NEVER;
      }
    })
    .pipe(test);
}
