import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../../lib/clock.js';
import { bearerToken, parseAuthorization } from '../../../lib/http/authorization.js';
import type { BobStore } from './store.js';
import { SCOPE, digest } from './wire.js';

/** How long an install's code may wait for its exchange (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_MS = 10 * 60_000;
/**
 * [mock decision] How long an access token works: an hour. HiBob's pages do not say; an hour is
 * short enough that a sandbox session, or the mock's clock moved forward, sees the partner refresh.
 */
export const ACCESS_TOKEN_TTL_S = 3600;

/** RFC 6749 §5.2's error answer. */
export interface TokenError {
  error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';
  error_description: string;
}

/**
 * What the token URL answers: 200 with the tokens, or RFC 6749 §5.2's error — 401 for a client
 * that authenticated with Basic and failed (`basic`: the answer then carries `WWW-Authenticate`).
 */
export type TokenResult =
  | { status: 200; body: Record<string, unknown>; companyId: string }
  | { status: 400 | 401; body: TokenError; basic: boolean };

/** Who a bearer token is: its company, or why it is refused (RFC 6750 §3: 401 either way). */
export type Bearer = { ok: true; companyId: string } | { ok: false; error: 'invalid_request' | 'invalid_token'; description: string };

export type BobOAuth = ReturnType<typeof bobOAuth>;

/**
 * Bob's side of OAuth 2.0 for the vendor's app (docs/hibob.md §3, RFC 6749): the one-time codes an
 * install issues, the token URL's two grants — `authorization_code` and `refresh_token`,
 * form-encoded, the client id and secret in the body or as HTTP Basic (§2.3.1), never both — and
 * the bearer tokens the API takes (RFC 6750). Access tokens expire after ACCESS_TOKEN_TTL_S;
 * refresh tokens rotate: each works once, and its refresh issues a new pair. A code works once and
 * for CODE_TTL_MS. Codes and tokens are kept as SHA-256 digests only.
 */
export function bobOAuth(deps: { store: BobStore; clock: Clock }) {
  const { store, clock } = deps;

  /** A new pair for the company: the token answer's body (RFC 6749 §5.1), with the company, as the kit reads it. */
  const issue = (companyId: string): Record<string, unknown> => {
    const access = `bob_at_${randomBytes(24).toString('base64url')}`;
    const refresh = `bob_rt_${randomBytes(24).toString('base64url')}`;
    store.saveToken(digest(access), 'access', companyId, clock.now() + ACCESS_TOKEN_TTL_S * 1000);
    store.saveToken(digest(refresh), 'refresh', companyId, null);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refresh, scope: SCOPE, companyId };
  };

  const refused = (status: 400 | 401, error: TokenError['error'], description: string, basic = false): TokenResult => ({
    status,
    body: { error, error_description: description },
    basic,
  });

  /** The client the request authenticates as: by Basic or by the body, never both (RFC 6749 §2.3). */
  const client = (form: Record<string, string>, authorization: string | undefined): { id: string; secret: string; basic: boolean } | TokenResult => {
    const parsed = parseAuthorization(authorization);
    if (parsed?.scheme === 'basic') {
      if (form.client_secret !== undefined) return refused(400, 'invalid_request', 'The client authenticated twice: with HTTP Basic and with client_secret in the body');
      const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(parsed.credentials) ? Buffer.from(parsed.credentials, 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      if (colon <= 0) return refused(401, 'invalid_client', 'The HTTP Basic credentials are not client_id:client_secret', true);
      let id: string;
      let secret: string;
      try {
        // RFC 6749 §2.3.1: each is form-encoded before it is joined.
        id = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
        secret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
      } catch {
        return refused(401, 'invalid_client', 'The HTTP Basic credentials do not decode', true);
      }
      if (form.client_id !== undefined && form.client_id !== id) return refused(400, 'invalid_request', 'client_id in the body is not the HTTP Basic one');
      return { id, secret, basic: true };
    }
    if (form.client_id === undefined || form.client_secret === undefined) {
      return refused(401, 'invalid_client', 'The client did not authenticate: send client_id and client_secret in the body, or HTTP Basic');
    }
    return { id: form.client_id, secret: form.client_secret, basic: false };
  };

  return {
    /** An install's one-time code for the company, to be exchanged at the token URL within CODE_TTL_MS. */
    issueCode(companyId: string, redirectUri: string): string {
      const code = `bob_code_${randomBytes(24).toString('base64url')}`;
      store.saveCode(digest(code), companyId, redirectUri, clock.now() + CODE_TTL_MS);
      return code;
    },

    /** The token URL: a form already read (`form`, undefined when the body was not a form) and the Authorization header. */
    token(form: Record<string, string> | undefined, authorization: string | undefined): TokenResult {
      if (form === undefined) return refused(400, 'invalid_request', 'The request must be a form: Content-Type application/x-www-form-urlencoded');
      const who = client(form, authorization);
      if ('status' in who) return who;
      const app = store.app();
      if (!same(who.id, app.clientId) || !same(who.secret, app.clientSecret)) {
        return refused(401, 'invalid_client', 'Unknown client, or a wrong client secret', who.basic);
      }

      if (form.grant_type === 'authorization_code') {
        if (!form.code) return refused(400, 'invalid_request', 'code is required');
        const code = store.code(digest(form.code));
        if (!code) return refused(400, 'invalid_grant', 'The code is not one Bob issued');
        if (code.usedAt !== null) return refused(400, 'invalid_grant', 'The code was exchanged already: a code works once');
        if (Date.parse(code.expiresAt) <= clock.now()) return refused(400, 'invalid_grant', 'The code expired: it must be exchanged within 10 minutes');
        if (form.redirect_uri !== undefined && form.redirect_uri !== code.redirectUri) {
          return refused(400, 'invalid_grant', 'redirect_uri is not the one the code was issued for');
        }
        if (!store.useCode(digest(form.code))) return refused(400, 'invalid_grant', 'The code was exchanged already: a code works once');
        return { status: 200, body: issue(code.companyId), companyId: code.companyId };
      }

      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token) return refused(400, 'invalid_request', 'refresh_token is required');
        const token = store.token(digest(form.refresh_token));
        if (!token || token.kind !== 'refresh') return refused(400, 'invalid_grant', 'The refresh token is not one Bob issued');
        if (token.usedAt !== null || !store.useToken(digest(form.refresh_token))) {
          return refused(400, 'invalid_grant', 'The refresh token was used already: each refresh issues a new one, which replaces it');
        }
        return { status: 200, body: issue(token.companyId), companyId: token.companyId };
      }

      if (form.grant_type === undefined) return refused(400, 'invalid_request', 'grant_type is required');
      return refused(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    },

    /** Who `Authorization: Bearer …` is: an access token Bob issued that has not expired. */
    bearer(authorization: string | undefined): Bearer {
      const presented = bearerToken(authorization);
      if (presented === undefined) return { ok: false, error: 'invalid_request', description: "Send the company's access token: Authorization: Bearer <token>" };
      const token = store.token(digest(presented));
      if (!token || token.kind !== 'access') return { ok: false, error: 'invalid_token', description: 'The access token is not one Bob issued' };
      if (token.expiresAt !== null && Date.parse(token.expiresAt) <= clock.now()) {
        return { ok: false, error: 'invalid_token', description: 'The access token expired: refresh it at the token URL' };
      }
      return { ok: true, companyId: token.companyId };
    },
  };
}

/** Compared in constant time, by their digests (any lengths). */
const same = (a: string, b: string) => timingSafeEqual(Buffer.from(digest(a), 'hex'), Buffer.from(digest(b), 'hex'));
