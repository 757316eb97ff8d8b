import type { Request, RequestHandler, Response } from 'express';
import type { Company } from '../companies/store.js';
import type { Flash } from './flash.js';

/** What every sandbox page module uses: rendering, form actions (POST → redirect → GET), the company in the path. */
export interface PageKit {
  render(req: Request, res: Response, template: string, data: Record<string, unknown>, status?: number): void;
  /** Runs `fn`, then redirects to `back` (or where `fn` says) with its message; a 4xx becomes an error message there. */
  act(back: (req: Request) => string, fn: (req: Request) => Promise<Flash | { flash: Flash; to: string }>): RequestHandler;
  /** The company named by `:companyId`, or a 404. */
  companyOf(req: Request): Company;
}
