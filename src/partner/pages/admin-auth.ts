import type { RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import { parseAuthorization } from '../../lib/http/authorization.js';
import type { Config } from '../config.js';
import { renderMessage } from './render.js';
import { signInThrottle, SIGN_IN_LIMITS, type SignInLimits } from './sign-in-throttle.js';

/**
 * The dashboard's door: HTTP Basic with ADMIN_USERNAME / ADMIN_PASSWORD, or ADMIN_TOKEN (as
 * `Authorization: Bearer`, or as the Basic password for a browser). Every comparison is in
 * constant time over SHA-256 digests, so neither the length nor the content of a secret leaks
 * through timing.
 *
 * Wrong credentials are logged (the client's address, never what it sent) and counted: past
 * SIGN_IN_LIMITS, a client's next attempts answer 429 with Retry-After, right or wrong, without
 * being looked at — otherwise the guessing would go on, a 429 meaning only "wrong". A request
 * without credentials is a browser asking for the prompt, and a signed-in operator's requests are
 * never slowed. The client's address is Express's `req.ip`: behind a proxy, set TRUST_PROXY, or
 * every client shares the proxy's address and its limit.
 */
export function adminAuth(
  admin: Config['admin'],
  options: { clock: Clock; logger: Logger; limits?: SignInLimits },
): RequestHandler {
  const { logger } = options;
  const limits = options.limits ?? SIGN_IN_LIMITS;
  const throttle = signInThrottle(options.clock, limits);
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  const same = (presented: string, expected: Buffer) => timingSafeEqual(digest(presented), expected);
  const user = digest(admin.username);
  const password = admin.password === undefined ? undefined : digest(admin.password);
  const token = admin.token === undefined ? undefined : digest(admin.token);

  const allowed = (header: string | undefined): boolean => {
    const presented = parseAuthorization(header);
    if (presented?.scheme === 'bearer') return token !== undefined && same(presented.credentials, token);
    if (presented?.scheme !== 'basic') return false;
    const decoded = Buffer.from(presented.credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const [u, p] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    // Both checks run whatever the first one says: no early exit to time.
    const byPassword = password !== undefined && same(u, user) && same(p, password);
    const byToken = token !== undefined && same(p, token);
    return byPassword || byToken;
  };

  return (req, res, next) => {
    const presented = req.headers.authorization;
    if (presented) {
      const wait = throttle.retryAfter(req.ip);
      if (wait > 0) {
        res.set('Retry-After', String(wait));
        return renderMessage(
          res,
          429,
          {
            title: 'Too many attempts',
            text: `Too many wrong sign-ins to the dashboard: try again in ${minutesOf(wait)}.`,
          },
          { admin: true },
        );
      }
      if (allowed(presented)) {
        throttle.succeeded(req.ip);
        return next();
      }
      const { failures, overallReached } = throttle.failed(req.ip);
      logger.warn({ address: req.ip, failures, limit: limits.perAddress }, 'dashboard sign-in refused: wrong credentials');
      if (overallReached) {
        logger.warn(
          { failures: limits.overall, minutes: limits.windowMs / 60_000 },
          'dashboard sign-ins are refused for a while to every address that has not signed in: too many wrong ones from all addresses together',
        );
      }
    }
    res.set('WWW-Authenticate', 'Basic realm="Partner dashboard", charset="UTF-8"');
    renderMessage(
      res,
      401,
      { title: 'Sign-in required', text: 'The dashboard is for the partner’s operators: sign in with the admin credentials.' },
      { admin: true },
    );
  };
}

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
 * CSRF protection for the dashboard's forms. A browser attaches Basic credentials to any request
 * to this origin, including a form another site submits; it also says where the form came from,
 * in headers a page cannot set:
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
