import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

/**
 * Personal API tokens (§1): issued per company member, presented as `Authorization: Bearer` on the
 * partners API. Only the SHA-256 digest is stored and the row is found by it: the digest of a
 * high-entropy token reveals nothing usable, so the lookup needs no separate constant-time compare.
 */
export const API_TOKEN_PREFIX = 'mock_api_';

export interface ApiToken {
  id: number;
  companyId: number;
  userId: number | null;
  label: string;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: number;
  company_id: number;
  user_id: number | null;
  label: string;
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

export type ApiTokenStore = ReturnType<typeof apiTokenStore>;

export const digestApiToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export function apiTokenStore(db: Db, clock: Clock) {
  const insert = db.prepare<[number, number | null, string, Buffer, string, string], Row>(
    `INSERT INTO api_tokens (company_id, user_id, label, digest, hint, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (digest) DO NOTHING RETURNING *`,
  );
  const byDigest = db.prepare<[Buffer], Row>('SELECT * FROM api_tokens WHERE digest = ? AND revoked_at IS NULL');
  const all = db.prepare<[], Row>('SELECT * FROM api_tokens ORDER BY id');
  const revoke = db.prepare<[string, number]>('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const byId = db.prepare<[number], Row>('SELECT * FROM api_tokens WHERE id = ?');

  /** Stores the digest of `token`; undefined when that exact token already exists. */
  const add = (token: string, owner: { companyId: number; userId: number | null; label: string }) => {
    const row = insert.get(owner.companyId, owner.userId, owner.label, digestApiToken(token), token.slice(-4), isoAt(clock.now()));
    return row && toApiToken(row);
  };

  return {
    add,

    /** Issues a new random token; the token itself is returned once and never stored. */
    issue(owner: { companyId: number; userId: number | null; label: string }): { token: string; record: ApiToken } {
      const token = API_TOKEN_PREFIX + randomBytes(24).toString('base64url');
      return { token, record: add(token, owner)! };
    },

    /** The company (and member) a presented token belongs to; undefined when unknown or revoked. */
    authenticate(token: string): ApiToken | undefined {
      if (token.length === 0 || token.length > 200) return undefined;
      const row = byDigest.get(digestApiToken(token));
      return row && toApiToken(row);
    },

    list: (): ApiToken[] => all.all().map(toApiToken),

    /** Revokes one token; undefined when there is no such token. */
    revoke(id: number): ApiToken | undefined {
      revoke.run(isoAt(clock.now()), id);
      const row = byId.get(id);
      return row && toApiToken(row);
    },
  };
}

function toApiToken(r: Row): ApiToken {
  return {
    id: r.id,
    companyId: r.company_id,
    userId: r.user_id,
    label: r.label,
    hint: r.hint,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}
