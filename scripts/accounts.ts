/**
 * Manage customer accounts and their tokens:
 *
 *   npm run accounts -- create "<name>" [--test "<test name>"]… [--json]
 *   npm run accounts -- list [--json]
 *   npm run accounts -- show <account-id> [--json]     the account, its tokens and its connections
 *   npm run accounts -- token <account-id> [--json]     issue another token (rotation)
 *   npm run accounts -- revoke <account-id> [--json]    revoke every token of the account
 *   npm run accounts -- credential set <account-id> <platform> [<secret>] [--json]
 *   npm run accounts -- credential remove <account-id> <platform> [--json]
  npm run accounts -- connect <account-id> <platform> <company-id> [--json]
 *   npm run accounts -- connect <account-id> <platform> <company-id> [--json]
 *                                  a platform's company reaches this account (Bob's, before its install)
 *
 * A token is printed once, when it is issued; only its digest is stored. A customer's credential
 * for a platform (its own API key there) is sealed under CANDIDATE_LINK_SECRET and never printed:
 * only its last four characters are shown. Reads DATABASE_PATH (or DATABASE_URL) and
 * CANDIDATE_LINK_SECRET like the server does.
 *
 * Every change goes through src/partner/accounts/admin.ts, as the dashboard's Accounts pages do:
 * the same rules (rules.ts) and the same line in the account's history, here with the system user
 * who ran the command.
 */
import { accountStore } from '../src/partner/accounts/store.js';
import { systemClock } from '../src/lib/clock.js';
import { ConfigError, loadConfig } from '../src/partner/config.js';
import { openPartnerDatabase } from '../src/partner/db/open.js';
import { buildProvider } from '../src/partner/assemble.js';
import { partnerCore } from '../src/partner/core.js';
import { createLogger } from '../src/lib/http/logger.js';
// The vendor's module, which `npm start` runs too: --test adds to its provider's catalog.
import { importProviderModule, ProviderModuleError } from '../src/partner/provider/module.js';
import type { ProviderSource } from '../src/partner/provider/types.js';
import { platformsOf, PLATFORM_NAME, type PlatformDefinition } from '../src/partner/platforms/index.js';
import { connectionStore, maskedCredential, type Connection } from '../src/partner/connections/store.js';
import { accountAdmin, type Actor } from '../src/partner/accounts/admin.js';
import { AccountName, RefusedCredential, UnknownAccount } from '../src/partner/accounts/rules.js';
import { userInfo } from 'node:os';
import { loadEnvFile } from '../src/lib/env-file.js';
import { UsageError, isEntryPoint, parseCommandLine, processOutput, type CliOutput } from '../src/lib/cli.js';

const USAGE = `Usage:
  npm run accounts -- create "<name>" [--test "<test name>"]... [--json]
  npm run accounts -- list [--json]
  npm run accounts -- show <account-id> [--json]
  npm run accounts -- token <account-id> [--json]
  npm run accounts -- revoke <account-id> [--json]
  npm run accounts -- credential set <account-id> <platform> [<secret>] [--json]
  npm run accounts -- credential remove <account-id> <platform> [--json]

credential set reads the secret from standard input when it is not given (safer: npm prints
its command line, a secret in it included, unless run with --silent).`;


/** Where the command writes, and the environment it reads (DATABASE_PATH, PARTNER_KIND, …). */
export interface AccountsIo extends CliOutput {
  env: Record<string, string | undefined>;
  /** The provider whose catalog --test adds to: the vendor's module's (src/provider/index.ts) unless given. */
  provider?: () => Promise<ProviderSource>;
  /**
   * The platforms the partner speaks, which `credential` checks the platform against: the kit's and
   * the vendor module's own (`platformsOf`), as the server speaks them, unless given.
   */
  platforms?: () => Promise<readonly PlatformDefinition[]>;
  /** The secret of `credential set` when it is not an argument: standard input (unechoed on a terminal) unless given. */
  stdin?: () => Promise<string>;
  /** Who the account's history says made a change: the system user running the command unless given. */
  user?: string;
}

/** The system user running the command, for the account's history; "unknown" where the system names none. */
function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

const vendorProvider = async () => (await importProviderModule()).provider;
const servedPlatforms = async () => platformsOf(await importProviderModule());

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
  if (extra !== undefined && command !== 'credential' && command !== 'connect') throw new UsageError(`Unexpected argument "${extra}" (quote a name that has spaces)`);
  if (command === 'connect' && (positionals.length !== 4 || !PLATFORM_NAME.test(positionals[2]!))) {
    throw new UsageError('connect takes an account id, a platform and the company id it has there');
  }
  if (values.test && command !== 'create') throw new UsageError('--test goes with create only');
  // Checked before the database is opened: a misuse changes nothing.
  const credential = command === 'credential' ? credentialArguments(positionals.slice(1)) : undefined;
  const config = loadConfig(io.env);
  const database = await openPartnerDatabase(config);
  const { sql } = database;
  const accounts = accountStore(sql, systemClock);
  const connections = connectionStore(sql, systemClock, config.links.secret);
  const admin = accountAdmin({ sql, clock: systemClock, accounts, connections, platforms: io.platforms ?? servedPlatforms });
  const actor: Actor = { via: 'cli', who: io.user ?? systemUser() };
  const print = (json: unknown, text: string) => io.stdout(`${values.json ? JSON.stringify(json) : text}\n`);
  try {
    switch (command) {
      case 'create': {
        if (!arg?.trim()) throw new UsageError('create needs the account name');
        const named = AccountName.safeParse(arg);
        if (!named.success) throw new UsageError(`create: ${named.error.issues[0]!.message}`);
        const name = named.data;
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
        const { accountId, token } = await admin.create(name, actor, { catalog, tests });
        print(
          { id: accountId, name, token },
          `Created account ${accountId} (${name}).\nToken (shown once, give it to the customer):\n\n  ${token}\n`,
        );
        return;
      }
      case 'list': {
        // Each account with the key ids of its working tokens, as the dashboard names them, and its
        // connections to platforms, each credential masked.
        const byAccount = new Map<number, Connection[]>();
        for (const c of await connections.all()) byAccount.set(c.accountId, [...(byAccount.get(c.accountId) ?? []), c]);
        const list = [];
        for (const a of await accounts.list()) {
          list.push({ ...a, keyIds: (await accounts.activeTokens(a.id)).map((t) => t.keyId), connections: (byAccount.get(a.id) ?? []).map(shownConnection) });
        }
        const rows = list.map((a) => [
          String(a.id),
          a.name,
          a.companyId === null ? '—' : String(a.companyId),
          a.keyIds.map((k) => `${k}…`).join(', ') || 'none',
          a.connections.map(connectionText).join('; ') || '—',
        ]);
        print(list, list.length === 0 ? 'No accounts yet.' : table(['Account', 'Name', 'Company', 'Active tokens (key ids)', 'Connections'], rows));
        return;
      }
      case 'show': {
        const id = accountId(arg);
        const account = await accounts.find(id);
        if (!account) throw new UnknownAccount(id);
        const tokens = await accounts.activeTokens(id);
        const connected = (await connections.ofAccount(id)).map(shownConnection);
        print({ ...account, tokens: tokens.map(({ keyId, createdAt }) => ({ keyId, createdAt })), connections: connected }, [
          `Account ${id}: ${account.name}`,
          `Created        ${account.createdAt}`,
          `Company        ${account.companyId === null ? '— (no platform call yet)' : `${account.companyId} (the hiring platform), since ${account.boundAt}`}`,
          `Active tokens  ${tokens.map((t) => `${t.keyId}… (created ${t.createdAt})`).join(', ') || 'none'}`,
          `Connections    ${connected.length === 0 ? '—' : connected.map(connectionText).join('\n               ')}`,
        ].join('\n'));
        return;
      }
      case 'credential': {
        const { action, id, platform, secret } = credential!;
        const target = await admin.credentialTarget(id, platform, action);
        const { account, named, stored } = target;
        const whose = `account ${id} (${account.name})`;
        if (action === 'remove') {
          const removed = await admin.removeCredential(target, actor);
          print(
            { id, platform, removed },
            removed ? `Removed the ${named.credential} of ${whose} for ${named.label}.` : `Account ${id} (${account.name}) has no ${named.credential} for ${named.label}: nothing removed.`,
          );
          return;
        }
        const typed = secret ?? stripLineBreak(await (io.stdin ?? readSecret)(`${named.credential} of ${whose} for ${named.label} (not shown as you type): `));
        const now = await admin.setCredential(target, typed, actor);
        print(
          { id, platform, credential: now.credential, credentialSetAt: now.credentialSetAt, replaced: stored?.hasCredential === true },
          `${stored?.hasCredential ? 'Replaced' : 'Set'} the ${named.credential} of ${whose} for ${named.label}: ${now.credential}. It is used from the next delivery on.`,
        );
        return;
      }
      case 'connect': {
        const [, , platform, companyId] = positionals as [string, string, string, string];
        const id = accountId(arg);
        const { replaced } = await admin.connectCompany(id, platform, companyId, actor);
        print(
          { id, platform, companyId: companyId.trim(), replaced },
          `Account ${id} is connected to ${platform}'s company ${companyId.trim()}${replaced ? ` (it was ${replaced})` : ''}: that company's calls reach it.`,
        );
        return;
      }
      case 'token': {
        const id = accountId(arg);
        const token = await admin.issueToken(id, actor);
        print({ id, token }, `New token for account ${id} (shown once):\n\n  ${token}\n`);
        return;
      }
      case 'revoke': {
        const id = accountId(arg);
        const revoked = await admin.revokeTokens(id, actor);
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

/** A connection as the CLI shows it: the credential masked, never the credential. */
function shownConnection(c: Connection) {
  return { platform: c.platform, companyId: c.companyId, credential: maskedCredential(c), credentialSetAt: c.credentialSetAt };
}

function connectionText(c: ReturnType<typeof shownConnection>): string {
  const company = c.companyId === null ? '' : ` company ${c.companyId},`;
  return `${c.platform}:${company} ${c.credential === null ? 'no credential' : `credential ${c.credential} (set ${c.credentialSetAt})`}`;
}

/** `credential set|remove <account-id> <platform> [<secret>]`, checked. */
function credentialArguments(args: string[]): { action: 'set' | 'remove'; id: number; platform: string; secret: string | undefined } {
  const [action, id, platform, secret] = args;
  if (action !== 'set' && action !== 'remove') throw new UsageError('credential needs set or remove');
  // Never echoed: the argument too many may be a secret (a credential given to remove).
  if (args.length > (action === 'set' ? 4 : 3)) throw new UsageError(`credential ${action}: one argument too many${action === 'remove' ? ' (remove takes no secret)' : ''}`);
  const account = accountId(id);
  if (!platform) throw new UsageError(`credential ${action} needs the platform's name, e.g. ashby`);
  if (!PLATFORM_NAME.test(platform)) throw new UsageError(`"${platform}" is not a platform's name (lowercase letters, digits and "-")`);
  return { action, id: account, platform, secret };
}

/** What standard input gave, without the line break that ends it (`echo secret |`, a file's last line). */
const stripLineBreak = (text: string) => text.replace(/\r?\n$/, '');

/**
 * The secret from standard input: all of it when piped or redirected; typed at a terminal, one
 * line read without echo (the prompt on stderr, so --json's stdout stays JSON).
 */
async function readSecret(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let text = '';
    input.setEncoding('utf8');
    for await (const chunk of input) text += chunk as string;
    return text;
  }
  // Echo off before the prompt: what is typed once it shows is never shown.
  input.setRawMode(true);
  input.setEncoding('utf8');
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let secret = '';
    const finish = (then: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      then();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(() => resolve(secret));
        if (ch === '\u0003') return finish(() => reject(new RefusedCredential('credential set: canceled; nothing was stored')));
        secret = ch === '\u007f' || ch === '\b' ? secret.slice(0, -1) : secret + ch;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}

function accountId(arg: string | undefined): number {
  if (!arg || !/^[1-9]\d*$/.test(arg)) throw new UsageError('Give the numeric account id (see `npm run accounts -- list`)');
  return Number(arg);
}

/**
 * The command: runs it, prints to `io`; returns the exit code (0 done, 2 wrong arguments, an
 * unknown account, a credential refused or a bad setting). Any other error is thrown.
 */
export async function accountsCli(argv: string[], io: AccountsIo): Promise<number> {
  try {
    await run(argv, io);
    return 0;
  } catch (err) {
    if (
      err instanceof ConfigError ||
      err instanceof UsageError ||
      err instanceof UnknownAccount ||
      err instanceof RefusedCredential ||
      err instanceof ProviderModuleError
    ) {
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
