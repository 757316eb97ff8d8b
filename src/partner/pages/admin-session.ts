import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Sql } from '../../lib/sql.js';
import type { Config } from '../config.js';

/**
 * [kit decision] How long a dashboard sign-in lasts: a working day. Counted from the sign-in, not
 * renewed by use: a session copied off a machine ends with the day it was made.
 */
export const SESSION_LIFETIME_MS = 8 * 60 * 60_000;

/** The cookie's name. Its path is /admin: no other page of the partner ever receives it. */
export const SESSION_COOKIE = 'dashboard_session';

/** Which admin credential a session was signed in with: the password (`p`) or ADMIN_TOKEN (`t`). */
export type SignedInWith = 'p' | 't';

/** Who a request is signed in as: for the pages (sign-out shown for a session) and each account change's history. */
export interface Operator {
  /** ADMIN_USERNAME, or "ADMIN_TOKEN" for a token. */
  who: string;
  /** A session of the sign-in page, or credentials on every request (Basic or Bearer: scripts). */
  via: 'session' | 'authorization';
}

/**
 * The dashboard's sign-in sessions: a cookie signed with HMAC-SHA256, holding when it was made,
 * when it ends, which admin credential signed in, and 16 random bytes; nothing is stored per
 * session, so every instance of the partner reads it, and the dashboard works behind a load
 * balancer. HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure
 * when PUBLIC_URL is https, Path=/admin, Max-Age its remaining lifetime.
 *
 * The key is made of two parts: a random secret kept in the database (`dashboard_keys`, made by
 * the first instance that needs it), and the digest of the credential that signed in. Changing
 * ADMIN_PASSWORD (or ADMIN_TOKEN) ends every session signed in with it; reading the database
 * alone does not let anyone make one. Signing out clears the cookie in that browser; a copy of the
 * cookie taken before still works until it ends, within SESSION_LIFETIME_MS.
 */
export function adminSessions(deps: { sql: Sql; clock: Clock; admin: Config['admin']; publicUrl: string; lifetimeMs?: number }) {
  const { clock, admin } = deps;
  const lifetimeMs = deps.lifetimeMs ?? SESSION_LIFETIME_MS;
  const secure = new URL(deps.publicUrl).protocol === 'https:';
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  const credentialOf = (kind: SignedInWith) => (kind === 'p' ? admin.password : admin.token);

  let secret: Promise<Buffer> | undefined;
  /** The database's session secret: read once; made, at random, by the first instance that finds none. */
  const databaseSecret = () =>
    (secret ??= (async () => {
      const read = async () => (await deps.sql.get<{ secret: Buffer | Uint8Array }>("SELECT secret FROM dashboard_keys WHERE name = 'session'"))?.secret;
      let found = await read();
      if (found === undefined) {
        await deps.sql.run("INSERT INTO dashboard_keys (name, secret, created_at) VALUES ('session', $1, $2) ON CONFLICT (name) DO NOTHING", [
          randomBytes(32),
          isoAt(clock.now()),
        ]);
        found = await read();
      }
      if (found === undefined) throw new Error('the dashboard session key could not be stored');
      return Buffer.from(found);
    })().catch((err: unknown) => {
      secret = undefined;
      throw err;
    }));

  /** The MAC of a session's fields, under the key of the credential it was signed in with; undefined when that credential is not configured (any more). */
  const macOf = async (fields: string, kind: SignedInWith): Promise<Buffer | undefined> => {
    const credential = credentialOf(kind);
    if (credential === undefined) return undefined;
    const key = createHmac('sha256', await databaseSecret()).update(`partner-dashboard-session/v1|${kind}|`).update(digest(credential)).digest();
    return createHmac('sha256', key).update(fields).digest();
  };

  const attributes = (maxAgeSeconds: number) =>
    ['Path=/admin', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : []), `Max-Age=${maxAgeSeconds}`].join('; ');

  return {
    lifetimeMs,
    /** The Set-Cookie header of a new session signed in with `kind`. */
    async start(kind: SignedInWith): Promise<string> {
      const now = clock.now();
      const fields = `${now}.${now + lifetimeMs}.${kind}.${randomBytes(16).toString('base64url')}`;
      const mac = (await macOf(fields, kind))!;
      return `${SESSION_COOKIE}=${fields}.${mac.toString('base64url')}; ${attributes(Math.floor(lifetimeMs / 1000))}`;
    },

    /** The Set-Cookie header that ends the session in this browser. */
    end(): string {
      return `${SESSION_COOKIE}=; ${attributes(0)}`;
    },

    /**
     * What the request's session cookie says: `none` without one, `ended` for one that ran out, is
     * not well formed, is not signed with this database's key, or was signed in with a credential
     * that has changed since; else who it is.
     */
    async read(cookieHeader: string | undefined): Promise<{ state: 'none' | 'ended' } | { state: 'valid'; kind: SignedInWith; operator: Operator }> {
      const value = cookieValue(cookieHeader, SESSION_COOKIE);
      if (value === undefined || value === '') return { state: 'none' };
      const match = /^(\d{1,15})\.(\d{1,15})\.([pt])\.([\w-]{22})\.([\w-]{43})$/.exec(value);
      if (!match) return { state: 'ended' };
      const [, issued, expires, kind, nonce, presented] = match as unknown as [string, string, string, SignedInWith, string, string];
      const now = clock.now();
      if (Number(expires) <= now || Number(issued) > now + 60_000 || Number(expires) - Number(issued) > lifetimeMs) return { state: 'ended' };
      const expected = await macOf(`${issued}.${expires}.${kind}.${nonce}`, kind);
      const given = Buffer.from(presented, 'base64url');
      if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) return { state: 'ended' };
      return { state: 'valid', kind, operator: { who: kind === 'p' ? admin.username : 'ADMIN_TOKEN', via: 'session' } };
    },
  };
}

export type AdminSessions = ReturnType<typeof adminSessions>;

/** The value of cookie `name` in a Cookie header, as sent (the session's value needs no decoding); undefined when absent. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
