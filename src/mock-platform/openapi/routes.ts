import { Router } from 'express';
import helmet from 'helmet';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { Codename } from '../../contract/schemas.js';
import { AppError, notFound } from '../../lib/errors.js';
import { escapeHtml } from '../../lib/html.js';
import { partnerBaseUrl } from '../partners/base-url.js';
import type { PartnerStore, StoredPartner } from '../partners/store.js';
import { param } from '../path-params.js';
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

/** A reference the page links to: the mock's API, or a registered partner's. */
interface Reference {
  href: string;
  label: string;
}

/**
 * The page: a bar with the way back to the sandbox and the other references, then Redoc, which
 * reads the document from `spec-url` by itself, so the page has no inline script and the app's CSP
 * (script-src 'self') stays as it is.
 */
function page(title: string, specUrl: string, references: Reference[], current: string): string {
  const links = references
    .map((r) => `<a href="${escapeHtml(r.href)}"${r.href === current ? ' aria-current="page"' : ''}>${escapeHtml(r.label)}</a>`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Mock platform sandbox</title>
  <link rel="stylesheet" href="/assets/api-reference.css">
</head>
<body>
  <header class="reference-bar">
    <a class="back" href="/">← Sandbox</a>
    <nav aria-label="API references">
      ${links}
    </nav>
  </header>
  <redoc spec-url="${escapeHtml(specUrl)}" hide-download-button="false" native-scrollbars="true"></redoc>
  <script src="${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;
}

/** How long the mock waits for a partner's document, and how much of it it reads. */
const PARTNER_DOCUMENT = { timeoutMs: 5_000, maxBytes: 4 * 1024 * 1024 } as const;

/** Where a registered partner serves its API document: `{base}/openapi.json`, as the kit's partner does. */
export const partnerDocumentUrl = (partner: Pick<StoredPartner, 'urls'>): string => `${partnerBaseUrl(partner)}/openapi.json`;

/**
 * `GET /openapi.json` (the platform's API for partners, §3.1 and §3.2) and `GET /api-reference`,
 * the same document rendered by Redoc; and, for each partner registered with the platform, its own
 * API — what the platforms call on it, as the partner documents it at its `GET /openapi.json` — at
 * `/api-reference/partners/{codename}`, the document read from the partner through the mock
 * (`…/openapi.json`), so the page's CSP still allows only its own origin. Each page has the way back
 * to the sandbox and links to the others.
 */
export function openApiRouter(deps: {
  publicUrl: string;
  platforms?: readonly PlatformPlugin[];
  /** The registered partners, whose references are listed; none without. */
  partners?: Pick<PartnerStore, 'list' | 'find'>;
  /** For reading a partner's document; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
}): Router {
  const router = Router();
  const document = platformApiDocument(deps.publicUrl, deps.platforms);
  const references = (): Reference[] => [
    { href: '/api-reference', label: 'The mock platform’s API' },
    ...(deps.partners?.list() ?? []).map((p) => ({ href: `/api-reference/partners/${encodeURIComponent(p.codename)}`, label: `${p.name}’s API (partner)` })),
  ];
  const partnerOf = (codename: string) => {
    const partner = Codename.safeParse(codename).success ? deps.partners?.find(codename) : undefined;
    if (!partner) throw notFound('No partner of that codename is registered with the platform');
    return partner;
  };

  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });

  // Redoc runs its search index in a Web Worker it creates from a blob: URL.
  const workerCsp = helmet.contentSecurityPolicy({ directives: { workerSrc: ["'self'", 'blob:'] } });
  const redocNeeded = () => {
    if (!redocBundle()) throw notFound('The API reference needs Redoc (a dev dependency): run npm install. /openapi.json is served without it.');
  };
  router.get('/api-reference', workerCsp, (_req, res) => {
    redocNeeded();
    res.type('html').send(page('API reference', '/openapi.json', references(), '/api-reference'));
  });

  router.get('/api-reference/partners/:codename', workerCsp, (req, res, next) => {
    redocNeeded();
    // A partner the platform does not have: the mock's 404, a page for a browser.
    const codename = param(req, 'codename');
    const partner = Codename.safeParse(codename).success ? deps.partners?.find(codename) : undefined;
    if (!partner) return next();
    const here = `/api-reference/partners/${encodeURIComponent(partner.codename)}`;
    res.type('html').send(page(`${partner.name}’s API`, `${here}/openapi.json`, references(), here));
  });

  // The partner's document, read from the partner: a 502 naming what went wrong when it cannot be.
  router.get('/api-reference/partners/:codename/openapi.json', async (req, res) => {
    const partner = partnerOf(param(req, 'codename'));
    const url = partnerDocumentUrl(partner);
    const read = await readPartnerDocument(url, deps.dispatcher);
    if (!read.ok) throw new AppError(502, 'bad_gateway', `${partner.name}’s API document could not be read at ${url}: ${read.problem}`);
    res.set('Cache-Control', 'no-store').json(read.document);
  });

  router.get(REDOC_SCRIPT_PATH, (_req, res, next) => {
    const bundle = redocBundle();
    if (!bundle) return next(notFound('Redoc is not installed'));
    res.set('Cache-Control', 'public, max-age=86400').type('text/javascript; charset=utf-8').send(bundle);
  });

  return router;
}

/** What an OpenAPI document is, as far as Redoc needs to know: an object naming its version. */
const OpenApiLike = z.looseObject({ openapi: z.string().regex(/^3\./), info: z.looseObject({ title: z.string() }) });

/** A partner's `GET /openapi.json`, read with a deadline and a size limit; what went wrong otherwise. */
async function readPartnerDocument(url: string, dispatcher?: Dispatcher): Promise<{ ok: true; document: unknown } | { ok: false; problem: string }> {
  try {
    const res = await request(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(PARTNER_DOCUMENT.timeoutMs),
      ...(dispatcher && { dispatcher }),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > PARTNER_DOCUMENT.maxBytes) {
        res.body.destroy();
        return { ok: false, problem: `it is larger than ${PARTNER_DOCUMENT.maxBytes / 1024 / 1024} MB` };
      }
      chunks.push(chunk as Buffer);
    }
    if (res.statusCode !== 200) return { ok: false, problem: `the partner answered ${res.statusCode}` };
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return { ok: false, problem: 'the answer is not JSON' };
    }
    if (!OpenApiLike.safeParse(body).success) return { ok: false, problem: 'the answer is not an OpenAPI 3 document' };
    return { ok: true, document: body };
  } catch (err) {
    const name = (err as { name?: string }).name;
    return { ok: false, problem: name === 'TimeoutError' ? `no answer within ${PARTNER_DOCUMENT.timeoutMs / 1000} s` : `the partner is not reachable (${(err as Error).message})` };
  }
}
