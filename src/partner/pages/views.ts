import { Eta } from 'eta';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this module with a package.json (src/ under tsx, dist/src/ when built). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the partner pages');
    dir = parent;
  }
  return dir;
}

export const PARTNER_VIEWS_DIR = path.join(packageRoot(), 'views', 'partner');
export const PARTNER_ASSETS_DIR = path.join(PARTNER_VIEWS_DIR, 'assets');

/**
 * The partner's templates: candidate pages, results page, dashboard and e-mails. Every `<%= %>`
 * is escaped; no template contains an inline script: the one script, the e-mail preview's
 * (assets/mail-frame.js), is a file of its own (helmet's CSP stays on).
 */
export const views = new Eta({ views: PARTNER_VIEWS_DIR, cache: true, autoEscape: true });
