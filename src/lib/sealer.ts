import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * [kit decision] Secrets the kit must be able to read back — a customer's key for a platform, a
 * platform's OAuth tokens — are kept encrypted at rest: AES-256-GCM under a key derived with
 * HKDF-SHA256 from CANDIDATE_LINK_SECRET for one `purpose`, a fresh 96-bit IV each time, and what
 * the secret belongs to (`boundTo`: a report id, `account:platform`) as additional data, so a
 * sealed value copied onto another row does not open there.
 *
 * Stored as `v1.<iv>.<ciphertext>.<tag>` (base64url). Rotating CANDIDATE_LINK_SECRET makes what was
 * sealed before unreadable (`SealError`): it must be set again.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that cannot be opened: another secret sealed it, or it was altered. */
export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

export type Sealer = ReturnType<typeof sealer>;

/**
 * Seals and opens secrets under `secret` (CANDIDATE_LINK_SECRET) for one `purpose` (HKDF's `info`:
 * a key for this use only). `what` names the secret in errors ("the stored Greenhouse key"), and
 * `since` says what rotated ("the test was sent").
 */
export function sealer(secret: string, purpose: string, words: { what: string; since: string }) {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), purpose, 32));
  return {
    seal(boundTo: string, plain: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },

    /** The secret sealed for `boundTo`; throws a `SealError` when it cannot be opened. */
    open(boundTo: string, stored: unknown): string {
      const parts = typeof stored === 'string' ? stored.split('.') : [];
      const [iv, sealed, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
      if (parts.length !== 4 || parts[0] !== VERSION || iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) {
        throw new SealError(`${words.what} is missing or not in a form this kit writes`);
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(boundTo, 'utf8'));
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError(`${words.what} cannot be decrypted: CANDIDATE_LINK_SECRET changed since ${words.since}, or the row was altered`);
      }
    },
  };
}
