import { Eta } from 'eta';
import path from 'node:path';
import { packageRoot } from '../../lib/package-root.js';

const ROOT = packageRoot();
export const SANDBOX_VIEWS_DIR = path.join(ROOT, 'views', 'mock');
export const SANDBOX_ASSETS_DIR = path.join(SANDBOX_VIEWS_DIR, 'assets');

/** Templates escape every `<%= %>` interpolation; none of them contains a script. */
export const views = new Eta({ views: SANDBOX_VIEWS_DIR, cache: true, autoEscape: true });
