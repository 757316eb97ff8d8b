import { Router } from 'express';
import helmet from 'helmet';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { notFound } from '../../lib/errors.js';
import type { PlatformPlugin } from '../platforms/plugin.js';
import { platformApiDocument } from './document.js';

/** Where the page loads Redoc from: the mock serves the bundle itself, nothing comes from a CDN. */
export const REDOC_SCRIPT_PATH = '/assets/redoc/redoc.standalone.js';

/** The logo Redoc's footer loads from Redocly's CDN, which the CSP (img-src 'self' data:) refuses. */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * Redoc's standalone bundle (a dev dependency), or undefined when it is not installed. Its footer's
 * remote logo becomes an empty `data:` image: nothing is fetched from outside, the CSP refuses
 * nothing (no error in the console), and Redoc hides an image that does not load.
 */
function readRedocBundle(): string | undefined {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
  return readFileSync(file, 'utf8').replaceAll(REMOTE_LOGO, 'data:,');
}

/**
 * The bundle, read the first time a page asks for it and kept for the process: 1 MB read and
 * rewritten for every mock platform made (a test's each) cost the suite seconds, most never serve it.
 */
let redoc: { bundle: string | undefined } | undefined;
const redocBundle = () => (redoc ??= { bundle: readRedocBundle() }).bundle;

/**
 * The page: Redoc reads the document from `spec-url` by itself, so the page has no inline script
 * and the app's CSP (script-src 'self') stays as it is.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Mock platform sandbox</title>
</head>
<body>
  <redoc spec-url="/openapi.json" hide-download-button="false" native-scrollbars="true"></redoc>
  <script src="${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;

/**
 * `GET /openapi.json` (the platform's API for partners, §3.1 and §3.2) and `GET /api-reference`,
 * the same document rendered by Redoc.
 */
export function openApiRouter(deps: { publicUrl: string; platforms?: readonly PlatformPlugin[] }): Router {
  const router = Router();
  const document = platformApiDocument(deps.publicUrl, deps.platforms);

  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });

  // Redoc runs its search index in a Web Worker it creates from a blob: URL.
  const workerCsp = helmet.contentSecurityPolicy({ directives: { workerSrc: ["'self'", 'blob:'] } });
  router.get('/api-reference', workerCsp, (_req, res) => {
    if (!redocBundle()) throw notFound('The API reference needs Redoc (a dev dependency): run npm install. /openapi.json is served without it.');
    res.type('html').send(PAGE);
  });

  router.get(REDOC_SCRIPT_PATH, (_req, res, next) => {
    const bundle = redocBundle();
    if (!bundle) return next(notFound('Redoc is not installed'));
    res.set('Cache-Control', 'public, max-age=86400').type('text/javascript; charset=utf-8').send(bundle);
  });

  return router;
}
