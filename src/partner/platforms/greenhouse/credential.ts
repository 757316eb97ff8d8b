import { SealError, sealer } from '../../../lib/sealer.js';

/**
 * [kit decision] The customer's key, kept with the invitation to sign the PATCH Greenhouse is sent
 * when the test is complete (docs/greenhouse.md §3). The kit stores customer keys only hashed, so
 * this one copy is sealed (lib/sealer.ts: AES-256-GCM under a key derived from
 * CANDIDATE_LINK_SECRET for this use only), bound to the report id — a sealed key copied onto
 * another invitation's row does not open there. Rotating CANDIDATE_LINK_SECRET makes the keys
 * sealed before unreadable: their PATCHes become dead letters (`CredentialError`).
 */
const PURPOSE = 'partner-integration-kit/greenhouse-patch-key/v1';

/** A stored key that cannot be opened: another secret sealed it, or it was altered. */
export { SealError as CredentialError };

export type CredentialSealer = ReturnType<typeof credentialSealer>;

/** Seals and opens customer keys under `secret` (CANDIDATE_LINK_SECRET), each bound to its report id. */
export function credentialSealer(secret: string) {
  return sealer(secret, PURPOSE, { what: 'the stored Greenhouse key', since: 'the test was sent' });
}
