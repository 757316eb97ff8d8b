import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * [kit decision] The customer's key, kept with the invitation to sign the PATCH Greenhouse is sent
 * when the test is complete (docs/greenhouse.md §3). The kit stores customer keys only hashed, so
 * this one copy is encrypted: AES-256-GCM under a key derived with HKDF-SHA256 from
 * CANDIDATE_LINK_SECRET (`config.links.secret`), a fresh 96-bit IV each time, and the report id as
 * additional data — a sealed key copied onto another invitation's row does not open there.
 *
 * Stored as `v1.<iv>.<ciphertext>.<tag>` (base64url). Rotating CANDIDATE_LINK_SECRET makes the
 * keys sealed before unreadable: their PATCHes become dead letters (`CredentialError`).
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF's `info`: this key is for this use only, whatever else the secret signs. */
const PURPOSE = 'partner-integration-kit/greenhouse-patch-key/v1';

/** A stored key that cannot be opened: another secret sealed it, or it was altered. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

export type CredentialSealer = ReturnType<typeof credentialSealer>;

/** Seals and opens customer keys under `secret` (CANDIDATE_LINK_SECRET). */
export function credentialSealer(secret: string) {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), PURPOSE, 32));
  return {
    seal(reportId: string, plain: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(reportId, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },

    /** The key sealed for `reportId`; throws a `CredentialError` when it cannot be opened. */
    open(reportId: string, stored: unknown): string {
      const parts = typeof stored === 'string' ? stored.split('.') : [];
      const [iv, sealed, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
      if (parts.length !== 4 || parts[0] !== VERSION || iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) {
        throw new CredentialError('the stored Greenhouse key is missing or not in a form this kit writes');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(reportId, 'utf8'));
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
      } catch {
        throw new CredentialError(
          'the stored Greenhouse key cannot be decrypted: CANDIDATE_LINK_SECRET changed since the test was sent, or the row was altered',
        );
      }
    },
  };
}
