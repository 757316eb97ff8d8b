import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import { parseAuthorization } from '../../lib/http/authorization.js';
import type { Config } from '../config.js';
import type { AdminSessions, Operator, SignedInWith } from './admin-session.js';
import { renderMessage, renderPage } from './render.js';
import { signInThrottle, SIGN_IN_LIMITS, type SignInLimits } from './sign-in-throttle.js';

/**
 * Where the sign-in page sends the operator once signed in: a page of the dashboard, never
 * another site (`//evil.example`, `/admin@evil.example` are refused: the dashboard's home then).
 */
const NextPage = z.string().max(1000).regex(/^\/admin(?:[/?][^\\\s]*)?$/).refine((v) => !v.startsWith('/admin//'));

/** The sign-in form's fields. */
const SignInForm = z.object({
  username: z.string().max(200).default(''),
  password: z.string().max(1000).default(''),
  next: z.string().optional(),
});

/** What the sign-in page says after a redirect: only a key travels in the URL, so no text is reflected from it. */
const SIGN_IN_NOTICES = {
  'signed-out': { kind: 'ok', text: 'You are signed out.' },
  ended: { kind: 'info', text: 'Your session has ended: sign in again.' },
} as const;

/**
 * The dashboard's door. A person signs in on the sign-in page (`/admin/sign-in`) with
 * ADMIN_USERNAME / ADMIN_PASSWORD, or with ADMIN_TOKEN as the password, and gets a session
 * (admin-session.ts) until it ends or they sign out (`POST /admin/sign-out`). A script sends the
 * credentials on every request instead, as before: HTTP Basic, or ADMIN_TOKEN as `Authorization:
 * Bearer` (or as the Basic password). Every comparison is in constant time over SHA-256 digests,
 * so neither the length nor the content of a secret leaks through timing.
 *
 * A request with neither a session nor credentials is a browser's when it asks for HTML: it is
 * sent to the sign-in page, and comes back to the page it asked for once signed in; any other
 * (a script's) is answered 401 with a Basic challenge, as before. The browser's own Basic prompt
 * never shows. A link to the dashboard followed from another site reaches it without the session's
 * SameSite=Strict cookie: that page reloads itself once, from this origin, which sends it.
 *
 * Wrong credentials, from the sign-in page or in a header alike, are logged (the client's address,
 * never what it sent) and counted: past SIGN_IN_LIMITS, a client's next attempts answer 429 with
 * Retry-After, right or wrong, without being looked at — otherwise the guessing would go on, a
 * 429 meaning only "wrong". A signed-in operator's requests are never slowed. The client's address
 * is Express's `req.ip`: behind a proxy, set TRUST_PROXY, or every client shares the proxy's
 * address and its limit.
 *
 * `routes` serve the sign-in page and sign-out, before `guard`; both run after `publicHostOnly`,
 * and the sign-in and sign-out forms after `sameOriginOnly`, as every form of the dashboard.
 */
export function adminDoor(
  admin: Config['admin'],
  options: { clock: Clock; logger: Logger; sessions: AdminSessions; limits?: SignInLimits; vendorName?: string },
): { routes: Router; guard: RequestHandler } {
  const { logger, sessions } = options;
  const limits = options.limits ?? SIGN_IN_LIMITS;
  const throttle = signInThrottle(options.clock, limits);
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  const same = (presented: string, expected: Buffer) => timingSafeEqual(digest(presented), expected);
  const user = digest(admin.username);
  const password = admin.password === undefined ? undefined : digest(admin.password);
  const token = admin.token === undefined ? undefined : digest(admin.token);
  const layout = { admin: true, vendor: options.vendorName };

  /** Which credential a user name and password are: the admin password, ADMIN_TOKEN (any user name), or neither. */
  const signedInWith = (u: string, p: string): SignedInWith | undefined => {
    // Both checks run whatever the first one says: no early exit to time.
    const byPassword = password !== undefined && same(u, user) && same(p, password);
    const byToken = token !== undefined && same(p, token);
    return byPassword ? 'p' : byToken ? 't' : undefined;
  };
  const fromHeader = (header: string | undefined): SignedInWith | undefined => {
    const presented = parseAuthorization(header);
    if (presented?.scheme === 'bearer') return token !== undefined && same(presented.credentials, token) ? 't' : undefined;
    if (presented?.scheme !== 'basic') return undefined;
    const decoded = Buffer.from(presented.credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    return signedInWith(decoded.slice(0, colon), decoded.slice(colon + 1));
  };
  const operatorOf = (kind: SignedInWith, via: Operator['via']): Operator => ({ who: kind === 'p' ? admin.username : 'ADMIN_TOKEN', via });
  /** Answers 429 when the client must wait before its next attempt is looked at; true if it did. */
  const heldBack = (req: Request, res: Response): boolean => {
    const wait = throttle.retryAfter(req.ip);
    if (wait <= 0) return false;
    res.set('Retry-After', String(wait));
    renderMessage(res, 429, { title: 'Too many attempts', text: `Too many wrong sign-ins to the dashboard: try again in ${minutesOf(wait)}.` }, layout);
    return true;
  };
  const refused = (req: Request) => {
    const { failures, overallReached } = throttle.failed(req.ip);
    logger.warn({ address: req.ip, failures, limit: limits.perAddress }, 'dashboard sign-in refused: wrong credentials');
    if (overallReached) {
      logger.warn(
        { failures: limits.overall, minutes: limits.windowMs / 60_000 },
        'dashboard sign-ins are refused for a while to every address that has not signed in: too many wrong ones from all addresses together',
      );
    }
  };
  const signInPage = (res: Response, data: { next?: string; username?: string; error?: string; notice?: (typeof SIGN_IN_NOTICES)[keyof typeof SIGN_IN_NOTICES] }, status = 200) =>
    renderPage(res, './admin/sign-in', { ...layout, pageTitle: 'Sign in', tokenOnly: password === undefined, ...data }, status);
  const nextOf = (value: unknown) => {
    const next = NextPage.safeParse(value);
    return next.success ? next.data : undefined;
  };

  const routes = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 5 });
  routes.get('/sign-in', async (req, res) => {
    const next = nextOf(req.query.next);
    // Signed in already (a bookmark, the back button): on to the page.
    if ((await sessions.read(req.headers.cookie)).state === 'valid') return res.redirect(303, next ?? '/admin');
    const key = typeof req.query.notice === 'string' ? req.query.notice : undefined;
    const notice = key !== undefined && Object.hasOwn(SIGN_IN_NOTICES, key) ? SIGN_IN_NOTICES[key as keyof typeof SIGN_IN_NOTICES] : undefined;
    signInPage(res, { next, notice });
  });
  routes.post('/sign-in', form, async (req, res) => {
    if (heldBack(req, res)) return;
    const fields = SignInForm.safeParse(req.body ?? {});
    const given = fields.success ? fields.data : { username: '', password: '', next: undefined };
    const next = nextOf(given.next);
    const kind = signedInWith(given.username, given.password);
    if (!kind) {
      refused(req);
      // The user name comes back to the form; the password never does.
      return signInPage(res, { next, username: given.username, error: 'Wrong user name or password.' }, 401);
    }
    throttle.succeeded(req.ip);
    logger.info({ address: req.ip, with: kind === 'p' ? 'password' : 'ADMIN_TOKEN' }, 'dashboard signed in');
    res.set('Set-Cookie', await sessions.start(kind));
    res.redirect(303, next ?? '/admin');
  });
  routes.post('/sign-out', (_req, res) => {
    res.set('Set-Cookie', sessions.end());
    res.redirect(303, '/admin/sign-in?notice=signed-out');
  });

  const guard: RequestHandler = async (req, res, next) => {
    const session = await sessions.read(req.headers.cookie);
    if (session.state === 'valid') {
      throttle.succeeded(req.ip);
      res.locals.operator = session.operator;
      return next();
    }
    // A session that ended is forgotten by the browser now, whatever comes next.
    if (session.state === 'ended') res.set('Set-Cookie', sessions.end());
    const presented = req.headers.authorization;
    if (presented) {
      if (heldBack(req, res)) return;
      const kind = fromHeader(presented);
      if (kind) {
        throttle.succeeded(req.ip);
        res.locals.operator = operatorOf(kind, 'authorization');
        return next();
      }
      refused(req);
    } else if (session.state === 'none' && req.method === 'GET' && req.get('sec-fetch-mode') === 'navigate' && /^(cross|same)-site$/.test(req.get('sec-fetch-site') ?? '')) {
      // A link followed from another site (a chat, an e-mail, the sandboxed preview of one): the
      // browser withholds the SameSite=Strict cookie from that navigation only. The page reloads
      // itself, a navigation of this origin's own, which carries the cookie if there is one; without
      // one, the reload comes here from this origin and goes on to the sign-in page.
      return void res.status(200).set('Cache-Control', 'no-store').type('html').send(RELOAD_PAGE);
    } else if (/\btext\/html\b/.test(req.get('accept') ?? '')) {
      // A browser: the sign-in page, then back here (a form's post comes back to the dashboard's home).
      const back = req.method === 'GET' ? nextOf(req.originalUrl) : undefined;
      const query = new URLSearchParams({ ...(session.state === 'ended' && { notice: 'ended' }), ...(back && back !== '/admin' && { next: back }) }).toString();
      return res.redirect(303, `/admin/sign-in${query ? `?${query}` : ''}`);
    }
    res.set('WWW-Authenticate', 'Basic realm="Partner dashboard", charset="UTF-8"');
    renderMessage(
      res,
      401,
      { title: 'Sign-in required', text: 'The dashboard is for the partner’s operators: sign in at /admin/sign-in, or send the admin credentials.' },
      layout,
    );
  };
  return { routes, guard };
}

/** A page that loads itself again, from this origin: no script, nothing of the request in it. */
const RELOAD_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0"><meta name="robots" content="noindex">' +
  '<title>Opening the dashboard</title></head><body><p><a href="">Open the dashboard</a></p></body></html>';

/** "1 minute", "15 minutes": a Retry-After in seconds as a person reads it, rounded up. */
function minutesOf(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * The dashboard answers on PUBLIC_URL's host only. A page on another name that resolves to this
 * server (DNS rebinding: evil.test, re-pointed at 127.0.0.1 or a LAN address) is same-origin with
 * itself, so the browser lets it read the dashboard and post its forms, with the default
 * admin/admin of a development server; its requests carry `Host: evil.test`. Refused with 421
 * (Misdirected Request) before the credentials are even asked for, GET included.
 *
 * The host checked is Express's `req.host`: the `Host` header or, from a proxy trusted by
 * TRUST_PROXY, its `X-Forwarded-Host`. Behind a proxy, have it forward the host the browser used
 * (nginx: `proxy_set_header Host $http_host;` — `$host` drops a port other than 80 or 443 — or
 * X-Forwarded-Host with TRUST_PROXY); a proxy that
 * rewrites it to the upstream's address gets 421 here.
 */
export function publicHostOnly(publicUrl: string): RequestHandler {
  const configured = new URL(publicUrl);
  // Parsed as a browser would write the URL: case and the scheme's default port do not matter.
  const hostOf = (host: string | undefined) => {
    if (host === undefined || !/^[\w.-]+(?::\d+)?$|^\[[\da-f:.]+\](?::\d+)?$/i.test(host)) return undefined;
    return URL.canParse(`${configured.protocol}//${host}`) ? new URL(`${configured.protocol}//${host}`).host : undefined;
  };
  return (req, res, next) => {
    if (hostOf(req.host) === configured.host) return next();
    renderMessage(
      res,
      421,
      {
        title: 'Wrong address',
        text: `The dashboard answers at ${configured.origin}/admin only (PUBLIC_URL); open it there.`,
      },
      { admin: true },
    );
  };
}

/**
 * CSRF protection for the dashboard's forms, the sign-in page's and sign-out's included. A browser attaches Basic
 * credentials to any request to this origin, including a form another site submits (the session
 * cookie is SameSite=Strict, which a site on the same domain can still get around); it also says
 * where the form came from, in headers a page cannot set:
 * - `Sec-Fetch-Site` (current browsers): the request must be `same-origin`.
 * - Otherwise `Origin` (older browsers): it must be PUBLIC_URL's origin. Never the origin the
 *   request's own `Host` makes: a page on a name that resolves to this server would match it.
 * Both say "same origin as the page", which is PUBLIC_URL's only because `publicHostOnly` runs
 * first and refuses every other host.
 * A request with neither is refused: every browser that can use the dashboard sends one of them
 * on a POST. (The dashboard's Referrer-Policy is `same-origin`, so a browser does send its Origin;
 * under `no-referrer` it would send `Origin: null`.)
 */
export function sameOriginOnly(publicUrl: string): RequestHandler {
  const configured = new URL(publicUrl).origin;
  return (req, res, next) => {
    // Pages link only within the dashboard; the referrer stays on this origin.
    res.set('Referrer-Policy', 'same-origin');
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const ok = site !== undefined ? site === 'same-origin' : origin === configured;
    if (ok) return next();
    renderMessage(
      res,
      403,
      { title: 'Not allowed', text: 'Dashboard actions must be submitted from the dashboard itself.' },
      { admin: true },
    );
  };
}
