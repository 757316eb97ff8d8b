import { z } from 'zod';
import { CREDENTIAL_MAX_LENGTH } from '../connections/store.js';
import type { PlatformDefinition } from '../platforms/platform.js';

/**
 * What may be done to a customer account, and what is refused, wherever it is done: the accounts
 * CLI (`npm run accounts`) and the dashboard's Accounts pages apply these same rules, through
 * admin.ts, and say the same things when they refuse.
 */

/** An account id that names no account: an error, but not a misuse of the command line or the form. */
export class UnknownAccount extends Error {
  constructor(readonly accountId: number) {
    super(`No account ${accountId} (see \`npm run accounts -- list\`)`);
    this.name = 'UnknownAccount';
  }
}

/** A credential the partner cannot keep: for a platform it does not speak, or that keeps none, or not a credential. */
export class RefusedCredential extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedCredential';
  }
}

/** The longest account name: a company's name, with room to spare. */
export const ACCOUNT_NAME_MAX_LENGTH = 200;

/**
 * An account's name as given ([kit decision]): trimmed, 1 to ACCOUNT_NAME_MAX_LENGTH characters,
 * on one line (no control characters: it is shown in tables, logs and a terminal).
 */
export const AccountName = z
  .string()
  .trim()
  .min(1, 'the account needs a name')
  .max(ACCOUNT_NAME_MAX_LENGTH, `an account's name is at most ${ACCOUNT_NAME_MAX_LENGTH} characters`)
  .refine((v) => !/\p{Cc}/u.test(v), "an account's name is one line, without control characters");

/**
 * A customer's credential as given ([kit decision]): 1 to CREDENTIAL_MAX_LENGTH characters, not
 * blank, without control characters but the line breaks an OAuth token pair as JSON may hold.
 */
export const Secret = z
  .string()
  .min(1, 'no credential was given (as the last argument, or on standard input)')
  .max(CREDENTIAL_MAX_LENGTH, `a credential is at most ${CREDENTIAL_MAX_LENGTH} characters`)
  .refine((v) => v.trim() !== '', 'the credential is blank')
  .refine((v) => !/[^\P{Cc}\n\r\t]/u.test(v), 'the credential holds a control character');

/** A platform's id of a company, as the operator connects an account to it: text, one line, at most 100 characters. */
export const CompanyId = z
  .string()
  .trim()
  .min(1, 'is blank')
  .max(100, 'is longer than 100 characters')
  .refine((v) => !/[\p{Cc}\u2028\u2029]/u.test(v), 'holds a control character');

/** How a platform and its credential are named, to the operator: "Ashby", "Ashby API key". */
export interface NamedCredential {
  label: string;
  credential: string;
}

/**
 * How `platform` and its credential are named, when the partner speaks it and it keeps a credential
 * per customer (`PlatformDefinition.credential`); else refused, saying which do. `stale`: a
 * credential is stored for it, which may still be removed when the platform is no longer spoken or
 * keeps none now.
 */
export function credentialOf(
  platforms: readonly Pick<PlatformDefinition, 'name' | 'label' | 'credential'>[],
  platform: string,
  stale: boolean,
): NamedCredential {
  const definition = platforms.find((p) => p.name === platform);
  if (definition?.credential) return { label: definition.label, credential: definition.credential.label };
  if (stale) return { label: definition?.label ?? platform, credential: 'credential' };
  if (!definition) throw new RefusedCredential(`No platform "${platform}": this partner speaks ${platforms.map((p) => p.name).join(', ')} (docs/platforms.md)`);
  const keeping = platforms.filter((p) => p.credential).map((p) => p.name);
  const which = keeping.length === 0 ? 'none of the platforms it speaks keeps one' : `only ${keeping.join(', ')} ${keeping.length === 1 ? 'keeps' : 'keep'} one`;
  throw new RefusedCredential(`${definition.label} ("${platform}") keeps no credential per customer: ${which}`);
}
