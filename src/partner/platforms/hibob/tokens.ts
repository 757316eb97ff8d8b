import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/http/logger.js';
import type { Sql } from '../../../lib/sql.js';
import type { ConnectionStore } from '../../connections/store.js';
import type { HibobSettings } from './settings.js';
import { BobTokens, TokenAnswer, TokenError } from './wire.js';

/** Stored with each connection, invitation and migration of HiBob's. */
export const HIBOB = 'hibob';

/**
 * [kit decision] An access token is refreshed when it has less than this left (docs/hibob.md §3):
 * a call made with it then cannot meet its expiry on the way.
 */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** How long a call to Bob's token URL or API may take, connection to last byte. */
export const BOB_TIMEOUT_MS = 10_000;
/** `expires_at` of a token Bob refused (a 401): refreshed before its next use. */
const REFUSED_AT = isoAt(0);
const USER_AGENT = 'partner-integration-kit/0.1 (HiBob)';

/**
 * Why Bob's tokens could not be had: `refused` (Bob refused the code or the refresh token: a used
 * or expired code, an install removed or revoked — only a new install helps), `client` (Bob refused
 * this partner's HIBOB_CLIENT_ID and HIBOB_CLIENT_SECRET), `unavailable` (the token URL could not
 * be reached, timed out, answered 5xx or nonsense: worth retrying), `missing` (the account has no
 * Bob install, or its stored credential is not one: an operator set another by hand). The message
 * never holds a token, a code or a secret.
 */
export class BobAuthError extends Error {
  constructor(
    readonly kind: 'refused' | 'client' | 'unavailable' | 'missing',
    message: string,
  ) {
    super(message);
    this.name = 'BobAuthError';
  }
}

export type BobTokenKeeper = ReturnType<typeof bobTokens>;

/**
 * Each installed company's OAuth tokens (docs/hibob.md §3), kept as the connection's sealed
 * credential (`connections.credential`, JSON: wire.ts `BobTokens`):
 *
 * - `install(code)` exchanges an install's one-time code at HIBOB_TOKEN_URL (RFC 6749 §4.1.3:
 *   form-encoded `authorization_code`, the app's client id and secret in the body);
 * - `accessToken(accountId)` is the company's access token, refreshed first (`refresh_token`
 *   grant) when it expires within REFRESH_MARGIN_MS or Bob refused it (`markRefused`, after a 401);
 * - a refresh stores the new pair at once: the new refresh token replaces the old one (Bob rotates
 *   them), written only if the stored one is still the one it used — in one transaction that locks
 *   the row on PostgreSQL — so a refresh of another instance is never overwritten by an older pair;
 *   and a refresh refused because another instance used the refresh token first takes that
 *   instance's new pair.
 *
 * Refreshes of one company are serialized within the process: callers at once share one. Tokens
 * are never logged.
 */
export function bobTokens(deps: { settings: HibobSettings; connections: ConnectionStore; clock: Clock; logger: Logger; redirectUri: string }) {
  const { settings, connections, clock, logger } = deps;
  /** The partner's database, once a route or worker was given it (`bind`): the row lock of a refresh. */
  let database: Sql | undefined;
  /** The work in hand for each account: refreshes and marks run one after another. */
  const lanes = new Map<number, Promise<unknown>>();
  const inLane = <T>(accountId: number, work: () => Promise<T>): Promise<T> => {
    const before = lanes.get(accountId) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    lanes.set(accountId, settled);
    void settled.then(() => {
      if (lanes.get(accountId) === settled) lanes.delete(accountId);
    });
    return mine;
  };

  const expiring = (tokens: BobTokens) => tokens.expires_at !== null && Date.parse(tokens.expires_at) - REFRESH_MARGIN_MS <= clock.now();
  const expired = (tokens: BobTokens) => tokens.expires_at !== null && Date.parse(tokens.expires_at) <= clock.now();

  /** The account's stored tokens; undefined when it has no credential for Bob. */
  async function stored(accountId: number, tx?: Sql): Promise<BobTokens | undefined> {
    let text: string | undefined;
    try {
      text = await connections.credential(accountId, HIBOB, tx);
    } catch (err) {
      throw new BobAuthError('missing', `the account's Bob tokens cannot be opened (${err instanceof Error ? err.message : String(err)}): install the app from Bob again`);
    }
    if (text === undefined) return undefined;
    let parsed: ReturnType<typeof BobTokens.safeParse>;
    try {
      parsed = BobTokens.safeParse(JSON.parse(text));
    } catch {
      parsed = BobTokens.safeParse(undefined);
    }
    if (!parsed.success) throw new BobAuthError('missing', "the account's credential for Bob is not the OAuth tokens an install stores: install the app from Bob again");
    return parsed.data;
  }

  /**
   * Replaces the stored tokens with `next` when `expect(current)` holds, in one transaction (the
   * row locked on PostgreSQL); returns what is stored afterwards.
   */
  async function swap(accountId: number, expect: (current: BobTokens | undefined) => boolean, next: BobTokens): Promise<BobTokens | undefined> {
    const run = async (tx?: Sql) => {
      if (tx?.dialect === 'postgres') await tx.get('SELECT 1 AS locked FROM connections WHERE account_id = $1 AND platform = $2 FOR UPDATE', [accountId, HIBOB]);
      const current = await stored(accountId, tx);
      if (!expect(current)) return current;
      await connections.setCredential(accountId, HIBOB, serialize(next), tx);
      return next;
    };
    return database ? database.transaction(run) : run();
  }

  /** A grant at HIBOB_TOKEN_URL, with the app's client id and secret in the form (RFC 6749 §2.3.1). */
  async function grant(form: Record<string, string>): Promise<TokenAnswer> {
    if (!settings.clientId || !settings.clientSecret) throw new BobAuthError('client', `HiBob is not configured: set ${settings.missing.join(', ')}`);
    let res: Response;
    let text: string;
    try {
      res = await fetch(settings.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': USER_AGENT },
        body: new URLSearchParams({ ...form, client_id: settings.clientId, client_secret: settings.clientSecret }).toString(),
        // The client secret goes to HIBOB_TOKEN_URL and nowhere else.
        redirect: 'error',
        signal: AbortSignal.timeout(BOB_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new BobAuthError('unavailable', `Bob's token URL could not be reached (${describe(err)})`);
    }
    const json = parseJson(text);
    if (res.status >= 200 && res.status < 300) {
      const answer = TokenAnswer.safeParse(json);
      if (answer.success) return answer.data;
      throw new BobAuthError('unavailable', `Bob's token URL answered ${res.status} without an access token`);
    }
    const error = TokenError.safeParse(json);
    const code = error.success ? error.data.error : undefined;
    const said = `Bob's token URL answered ${res.status}${code ? ` ${code}` : ''}`;
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new BobAuthError('unavailable', said);
    if (code === 'invalid_client' || code === 'unauthorized_client' || (res.status === 401 && code !== 'invalid_grant')) {
      throw new BobAuthError('client', `${said}: Bob refused this partner's HIBOB_CLIENT_ID and HIBOB_CLIENT_SECRET`);
    }
    throw new BobAuthError('refused', said);
  }

  /**
   * Refreshes the account's tokens unless another caller did since `stale` was read, and returns the
   * tokens to use. In the account's lane.
   */
  const refresh = (accountId: number, stale: string) =>
    inLane(accountId, async (): Promise<BobTokens> => {
      const current = await stored(accountId);
      if (!current) throw new BobAuthError('missing', 'the account has no Bob install: install the app from Bob');
      // Refreshed meanwhile (by a caller before in the lane, or another instance).
      if (current.access_token !== stale && !expiring(current)) return current;
      if (current.refresh_token === null) throw new BobAuthError('refused', 'Bob gave no refresh token at the install: install the app from Bob again');
      let answer: TokenAnswer;
      try {
        answer = await grant({ grant_type: 'refresh_token', refresh_token: current.refresh_token });
      } catch (err) {
        // Another instance used the refresh token first (rotation): its new pair is stored by now.
        if (err instanceof BobAuthError && err.kind === 'refused') {
          const now = await stored(accountId);
          if (now && now.refresh_token !== current.refresh_token) return now;
        }
        throw err;
      }
      const next: BobTokens = {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token ?? current.refresh_token,
        expires_at: expiryOf(answer),
        company_id: current.company_id,
        kind: 'bob-oauth',
      };
      const kept = await swap(accountId, (now) => now?.refresh_token === current.refresh_token, next);
      logger.info({ accountId, companyId: current.company_id, replaced: kept === next }, 'Bob tokens refreshed');
      return kept ?? next;
    });

  const expiryOf = (answer: TokenAnswer) => (answer.expires_in === undefined ? null : isoAt(clock.now() + answer.expires_in * 1000));

  return {
    /** Gives the keeper the partner's database (a route's or worker's context): refreshes then lock the connection's row. */
    bind(sql: Sql): void {
      database ??= sql;
    },

    /**
     * An install's one-time code exchanged for the company's tokens (RFC 6749 §4.1.3), with the
     * company id Bob's answer names, if it does. Throws a `BobAuthError`.
     */
    async install(code: string): Promise<{ tokens: Omit<BobTokens, 'company_id'>; companyId: string | undefined }> {
      const answer = await grant({ grant_type: 'authorization_code', code, redirect_uri: deps.redirectUri });
      return {
        tokens: { access_token: answer.access_token, refresh_token: answer.refresh_token ?? null, expires_at: expiryOf(answer), kind: 'bob-oauth' },
        companyId: answer.companyId ?? answer.company_id,
      };
    },

    /** The credential text an install stores: the tokens and their company, as JSON. */
    credentialOf: (tokens: Omit<BobTokens, 'company_id'>, companyId: string): string => serialize({ ...tokens, company_id: companyId }),

    /**
     * The access token to call Bob with for this account, refreshed first when due. With
     * `companyId`, the stored tokens must be that company's (one company's token never serves
     * another's order). `lenient`: when a refresh cannot be made for now (`unavailable`), the
     * current token is returned rather than an error — Bob then answers 401 if it has run out,
     * and the caller retries (a delivery: docs/hibob.md §6). Throws a `BobAuthError`.
     */
    async accessToken(accountId: number, options: { companyId?: string; lenient?: boolean } = {}): Promise<string> {
      const tokens = await stored(accountId);
      if (!tokens) throw new BobAuthError('missing', 'the account has no Bob install: install the app from Bob');
      if (options.companyId !== undefined && tokens.company_id !== options.companyId) {
        throw new BobAuthError('missing', `the account's Bob install is company ${tokens.company_id}, not ${options.companyId}`);
      }
      if (!expiring(tokens)) return tokens.access_token;
      try {
        return (await refresh(accountId, tokens.access_token)).access_token;
      } catch (err) {
        // Still good for a while: used rather than nothing, the refresh is tried at the next call.
        if (err instanceof BobAuthError && err.kind === 'unavailable' && (options.lenient || !expired(tokens))) {
          logger.warn({ accountId, companyId: tokens.company_id, err: err.message }, 'Bob tokens could not be refreshed; the current access token is used');
          return tokens.access_token;
        }
        throw err;
      }
    },

    /**
     * Bob refused `accessToken` (a 401): unless it was refreshed meanwhile, it is marked expired, so
     * its next use refreshes it first. In the account's lane.
     */
    markRefused: (accountId: number, accessToken: string | undefined) =>
      inLane(accountId, async () => {
        const current = await stored(accountId).catch(() => undefined);
        if (!current || (accessToken !== undefined && current.access_token !== accessToken) || current.expires_at === REFUSED_AT) return;
        await swap(accountId, (now) => now?.access_token === current.access_token, { ...current, expires_at: REFUSED_AT });
        logger.info({ accountId, companyId: current.company_id }, 'Bob refused an access token: it is refreshed before its next use');
      }),
  };
}

/** The credential as stored: the keys in this order, `kind` last (wire.ts `BobTokens`). */
function serialize(tokens: BobTokens): string {
  const { access_token, refresh_token, expires_at, company_id } = tokens;
  return JSON.stringify({ access_token, refresh_token, expires_at, company_id, kind: 'bob-oauth' });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A fetch failure in a few words: its code first ("UND_ERR_CONNECT_TIMEOUT: …", "ECONNREFUSED"). */
export function describe(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (e.name === 'TimeoutError') return `no answer within ${BOB_TIMEOUT_MS / 1000} s`;
  const code = typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.cause?.message === 'string' && e.cause.message ? e.cause.message : typeof e.message === 'string' ? e.message : String(err);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 300);
}
