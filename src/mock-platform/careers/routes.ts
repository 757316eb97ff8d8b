import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import type { Logger } from '../../lib/http/logger.js';
import type { PlatformEvents } from '../events.js';
import type { MailLog } from '../mail.js';
import { careersApi } from './api.js';
import { careersApplications } from './apply.js';
import type { CareersContext } from './context.js';
import { careersPages } from './pages.js';
import { applicationBodyReader } from './request-body.js';
import { careersStore } from './store.js';
import { uploadStorage } from './uploads.js';

export interface CareersDeps {
  db: Db;
  clock: Clock;
  mail: MailLog;
  events: PlatformEvents;
  /** Where applications' files are kept (created if missing). */
  uploadsDir: string;
  /** The mock's public base URL, for the careers_url/careers_apply_url of offers. */
  publicUrl: string;
  logger: Logger;
  /** The careers page templates; found next to the sources (or the build) when not given. */
  viewsDir?: string;
}

/**
 * One company's careers site, to mount at `/careers/:subdomain`: the API under `/api` (platform-contract.md §7.5,
 * §4.2; platform-contract.md §7) and the sandbox careers page at `/` and `/offers/:slug`.
 */
export function careersRouter(deps: CareersDeps): Router {
  const storage = uploadStorage(deps.uploadsDir);
  const ctx: CareersContext = {
    store: careersStore(deps.db),
    applications: careersApplications({ ...deps, storage }),
    readBody: applicationBodyReader(storage),
    publicUrl: deps.publicUrl,
  };
  const router = Router({ mergeParams: true });
  router.use('/api', careersApi(ctx));
  router.use(careersPages(ctx, deps.viewsDir ?? defaultViewsDir()));
  return router;
}

/** views/mock/careers at the project root: three levels up from the sources, four from dist/src. */
function defaultViewsDir(): string {
  const candidates = ['../../../views/mock/careers/', '../../../../views/mock/careers/'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}
