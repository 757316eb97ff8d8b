/**
 * Manage customer accounts and their tokens:
 *
 *   npm run accounts -- create "<name>" [--test "<test name>"]… [--json]
 *   npm run accounts -- list [--json]
 *   npm run accounts -- token <account-id> [--json]     issue another token (rotation)
 *   npm run accounts -- revoke <account-id> [--json]    revoke every token of the account
 *
 * A token is printed once, when it is issued; only its digest is stored. Reads DATABASE_PATH like
 * the server does.
 */
import { accountStore } from '../src/partner/accounts/store.js';
import { systemClock } from '../src/lib/clock.js';
import { ConfigError, loadConfig } from '../src/partner/config.js';
import { openPartnerDatabase } from '../src/partner/db/open.js';
import { createAccountWithTests } from '../src/partner/accounts/demo-seed.js';
import { buildProvider } from '../src/partner/assemble.js';
import { partnerCore } from '../src/partner/core.js';
import { createLogger } from '../src/lib/http/logger.js';
// The vendor's module, which `npm start` runs too: --test adds to its provider's catalog.
import { importProviderModule, ProviderModuleError } from '../src/partner/provider/module.js';
import type { ProviderSource } from '../src/partner/provider/types.js';
import { loadEnvFile } from '../src/lib/env-file.js';
import { UsageError, isEntryPoint, parseCommandLine, processOutput, type CliOutput } from '../src/lib/cli.js';

const USAGE = `Usage:
  npm run accounts -- create "<name>" [--test "<test name>"]... [--json]
  npm run accounts -- list [--json]
  npm run accounts -- token <account-id> [--json]
  npm run accounts -- revoke <account-id> [--json]`;

/** An account id that names no account: an error, but not a misuse of the command line. */
class UnknownAccount extends Error {
  constructor(id: number) {
    super(`No account ${id} (see \`npm run accounts -- list\`)`);
  }
}

/** Where the command writes, and the environment it reads (DATABASE_PATH, PARTNER_KIND, …). */
export interface AccountsIo extends CliOutput {
  env: Record<string, string | undefined>;
  /** The provider whose catalog --test adds to: the vendor's module's (src/provider/index.ts) unless given. */
  provider?: () => Promise<ProviderSource>;
}

const vendorProvider = async () => (await importProviderModule()).provider;

async function run(argv: string[], io: AccountsIo): Promise<void> {
  const { values, positionals } = parseCommandLine(
    argv,
    { json: { type: 'boolean', default: false }, test: { type: 'string', multiple: true } },
    true,
  );
  const [command, arg, extra] = positionals;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return;
  }
  if (!command) throw new UsageError('Give a command');
  if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}" (quote a name that has spaces)`);
  if (values.test && command !== 'create') throw new UsageError('--test goes with create only');
  const config = loadConfig(io.env);
  const database = await openPartnerDatabase(config);
  const { sql } = database;
  const accounts = accountStore(sql, systemClock);
  const print = (json: unknown, text: string) => io.stdout(`${values.json ? JSON.stringify(json) : text}\n`);
  try {
    switch (command) {
      case 'create': {
        const name = arg?.trim();
        if (!name) throw new UsageError('create needs the account name');
        const tests = values.test ?? [];
        // The provider is built only to add tests, as the server builds it (its own tables migrated first).
        const catalog =
          tests.length === 0
            ? undefined
            : (
                await buildProvider(await (io.provider ?? vendorProvider)(), {
                  sql,
                  clock: systemClock,
                  kind: config.kind,
                  logger: createLogger('silent'),
                  publicUrl: config.publicUrl,
                  candidateUrl: () => config.publicUrl,
                  reports: partnerCore(sql, systemClock, { kind: config.kind }).results,
                })
              ).catalog;
        // Whatever its listTests reads — a list in its code, its own product — the kit has nowhere to add a test.
        if (tests.length > 0 && !catalog) {
          throw new UsageError(
            '--test: the provider has no catalog to add tests to: every account is offered the tests its listTests returns. Create the account without --test.',
          );
        }
        const { accountId, token } = await createAccountWithTests(sql, accounts, name, catalog, tests);
        print(
          { id: accountId, name, token },
          `Created account ${accountId} (${name}).\nToken (shown once, give it to the customer):\n\n  ${token}\n`,
        );
        return;
      }
      case 'list': {
        // Each account with the key ids of its working tokens, as the dashboard names them.
        const list = [];
        for (const a of await accounts.list()) list.push({ ...a, keyIds: (await accounts.activeTokens(a.id)).map((t) => t.keyId) });
        const rows = list.map((a) => [String(a.id), a.name, a.companyId === null ? '—' : String(a.companyId), a.keyIds.map((k) => `${k}…`).join(', ') || 'none']);
        print(list, list.length === 0 ? 'No accounts yet.' : table(['Account', 'Name', 'Company', 'Active tokens (key ids)'], rows));
        return;
      }
      case 'token': {
        const id = accountId(arg);
        const token = await accounts.issueToken(id);
        if (!token) throw new UnknownAccount(id);
        print({ id, token }, `New token for account ${id} (shown once):\n\n  ${token}\n`);
        return;
      }
      case 'revoke': {
        const id = accountId(arg);
        const revoked = await accounts.revokeTokens(id);
        if (revoked === undefined) throw new UnknownAccount(id);
        print({ id, revoked }, `Revoked ${revoked} token(s) of account ${id}.`);
        return;
      }
      default:
        throw new UsageError(`Unknown command "${command}"`);
    }
  } finally {
    await database.close();
  }
}

/** Rows under a header, each column as wide as its widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function accountId(arg: string | undefined): number {
  if (!arg || !/^[1-9]\d*$/.test(arg)) throw new UsageError('Give the numeric account id (see `npm run accounts -- list`)');
  return Number(arg);
}

/**
 * The command: runs it, prints to `io`; returns the exit code (0 done, 2 wrong arguments, an
 * unknown account or a bad setting). Any other error is thrown.
 */
export async function accountsCli(argv: string[], io: AccountsIo): Promise<number> {
  try {
    await run(argv, io);
    return 0;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof UnknownAccount || err instanceof ProviderModuleError) {
      io.stderr(`${err.message}\n`);
      if (err instanceof UsageError) io.stderr(`\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
}

if (isEntryPoint(import.meta.url)) {
  // Before the vendor's module is imported (for --test): it may read its settings as it loads.
  loadEnvFile();
  process.exitCode = await accountsCli(process.argv.slice(2), {
    ...processOutput,
    env: process.env,
  });
}
