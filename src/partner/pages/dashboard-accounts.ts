import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../lib/errors.js';
import { accountAdmin, type AccountAdmin, type Actor } from '../accounts/admin.js';
import { AccountName, RefusedCredential, UnknownAccount } from '../accounts/rules.js';
import type { AccountStore, AccountSummary } from '../accounts/store.js';
import { CREDENTIAL_MAX_LENGTH, maskedCredential, type Connection, type ConnectionStore } from '../connections/store.js';
import { PLATFORM_NAME, type Platform, type PlatformDefinition } from '../platforms/platform.js';
import type { Provider } from '../provider/types.js';
import type { Sql } from '../../lib/sql.js';
import type { Clock } from '../../lib/clock.js';
import type { Operator } from './admin-session.js';
import { CursorParam, cursorText, LIST_COUNT_CAP, PAGE_SIZE, type DashboardReads } from './dashboard-reads.js';

/** What the Accounts pages need of the dashboard. */
export interface AccountPagesDeps {
  sql: Sql;
  clock: Clock;
  accounts: AccountStore;
  connections: Pick<ConnectionStore, 'ofAccounts' | 'ofAccount' | 'get' | 'setCredential' | 'removeCredential' | 'connect'>;
  platforms: readonly Pick<Platform, 'name' | 'label'>[];
  credentials: readonly Pick<PlatformDefinition, 'name' | 'label' | 'credential'>[];
  provider: Pick<Provider, 'catalog'>;
  reads: DashboardReads;
  /** Renders a page of the dashboard (its header, notices and helpers). */
  page: (req: Request, res: Response, template: string, data: Record<string, unknown>, status?: number) => void;
}

const IdParam = z.string().regex(/^[1-9]\d{0,11}$/).transform(Number);
const AccountsQuery = z.object({ before: z.string().regex(/^[1-9]\d{0,11}$/).transform(Number).optional() });
const CreateForm = z.object({
  name: z.string().max(1000).default(''),
  // One test a line, as many `--test` as the CLI takes; blank lines dropped.
  tests: z
    .string()
    .max(20_000)
    .default('')
    .transform((v) => v.split(/\r?\n/).map((t) => t.trim()).filter((t) => t !== '')),
});
const RevokeForm = z.object({ key: z.union([z.literal('all'), z.string().regex(/^ptk_[0-9A-Za-z]{12}$/)]), confirm: z.string().optional() });
const CredentialForm = z.object({ credential: z.string().default('') });
/** How many lines of an account's history its page shows. */
const HISTORY_SHOWN = 20;

/**
 * The dashboard's Accounts pages: the accounts, a page at a time (keyset on the id), each with its
 * connections to platforms, its tokens, how many invitations it has and when it was last active;
 * one account's page with its tokens, credentials, invitations and history; and the forms that
 * create an account, issue and revoke tokens, and set and remove a platform credential. Every
 * change goes through accounts/admin.ts, as `npm run accounts` does: the same rules, and a line in
 * the account's history naming the dashboard, the operator and the client's address. A token is
 * shown once, on the page that answers the form that made it (no redirect: it never travels in a
 * URL); a credential is never shown, only its last four characters.
 */
export function accountPages(router: Router, deps: AccountPagesDeps): void {
  const { accounts, reads, page } = deps;
  const admin: AccountAdmin = accountAdmin({ sql: deps.sql, clock: deps.clock, accounts, connections: deps.connections, platforms: () => deps.credentials });
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 5 });
  // A credential as long as CREDENTIAL_MAX_LENGTH, percent-encoded, fits; one longer is refused by the rules, not the parser.
  const credentialForm = express.urlencoded({ extended: false, limit: `${CREDENTIAL_MAX_LENGTH * 3 + 1024}b`, parameterLimit: 5 });
  const actorOf = (req: Request, res: Response): Actor => ({ via: 'dashboard', who: (res.locals.operator as Operator | undefined)?.who, address: req.ip });
  const labelOf = (name: string) => deps.platforms.find((p) => p.name === name)?.label ?? deps.credentials.find((p) => p.name === name)?.label ?? name;
  const accountOf = async (req: Request) => {
    const id = IdParam.safeParse(req.params.accountId);
    const account = id.success ? await accounts.find(id.data) : undefined;
    if (!account) throw notFound('Unknown account');
    return account;
  };

  /** The accounts list: a page, with `create` the form's error and name when it was refused. */
  const listPage = async (req: Request, res: Response, create: { error?: string; name?: string; tests?: string } = {}, status = 200) => {
    const query = AccountsQuery.safeParse(req.query);
    const before = query.success ? query.data.before : undefined;
    const read = await accounts.page(before, PAGE_SIZE + 1);
    const shown = read.slice(0, PAGE_SIZE);
    const ids = shown.map((a) => a.id);
    const [connected, tokens, activity] = await Promise.all([deps.connections.ofAccounts(ids), accounts.activeTokensOf(ids), reads.activityOf(ids, LIST_COUNT_CAP)]);
    const rows = shown.map((a) => ({
      ...a,
      tokens: tokens.filter((t) => t.accountId === a.id),
      platforms: connectionsView(a.id, connected, () => false, deps),
      activity: activity.get(a.id),
    }));
    page(req, res, './admin/accounts', {
      pageTitle: 'Accounts',
      section: 'accounts',
      accounts: rows,
      accountsTotal: await accounts.count(),
      firstPage: before === undefined,
      older: read.length > PAGE_SIZE ? shown[shown.length - 1]!.id : undefined,
      // A company several accounts are connected to is said once, on the first page.
      sharedCompanies: before === undefined ? await sharedCompanies(accounts, reads) : [],
      canAddTests: deps.provider.catalog !== undefined,
      create,
    }, status);
  };

  /** One account's page: `problem` says what a form of it refused, and for which platform's credential. */
  const accountPage = async (req: Request, res: Response, account: AccountSummary, problem?: { platform?: string; text: string }, status = 200) => {
    const after = CursorParam.safeParse(req.query.after);
    const before = CursorParam.safeParse(req.query.before);
    const invitations = await reads.invitations({ accountId: account.id }, { after: after.success ? after.data : undefined, before: before.success ? before.data : undefined });
    const connected = await deps.connections.ofAccount(account.id);
    const required = deps.credentials.filter((d) => d.credential?.required).map((d) => d.name);
    const used = await reads.platformsUsed(account.id, required);
    const view = connectionsView(account.id, connected, (platform) => used.has(platform), deps);
    // Each platform the partner speaks that keeps a credential, and any other with one still stored (one no longer spoken).
    const keeping = [
      ...deps.credentials.filter((d) => d.credential).map((d) => ({ platform: d.name, label: d.label, credentialLabel: d.credential!.label })),
      ...connected.filter((c) => c.hasCredential && !deps.credentials.some((d) => d.name === c.platform && d.credential)).map((c) => ({ platform: c.platform, label: labelOf(c.platform), credentialLabel: 'credential' })),
    ].map((k) => ({ ...k, connection: view.connections.find((c) => c.platform === k.platform), missing: view.missing.some((m) => m.platform === k.platform) }));
    page(req, res, './admin/account', {
      pageTitle: `${account.name} #${account.id}`,
      section: 'accounts',
      account,
      tokens: await accounts.activeTokens(account.id),
      platforms: view,
      keeping,
      activity: (await reads.activityOf([account.id])).get(account.id),
      history: await admin.history(account.id, HISTORY_SHOWN),
      historyShown: HISTORY_SHOWN,
      invitations: invitations.rows,
      pager: pagerOf(`/admin/accounts/${account.id}`, {}, invitations, after.success || before.success),
      accountNames: new Map([[account.id, account.name]]),
      platformLabels: new Map(deps.platforms.map((p) => [p.name, p.label])),
      problem,
    }, status);
  };

  router.get('/accounts', (req, res) => listPage(req, res));

  router.post('/accounts', form, async (req, res) => {
    const fields = CreateForm.safeParse(req.body ?? {});
    const given = fields.success ? fields.data : { name: '', tests: [] };
    const name = AccountName.safeParse(given.name);
    const again = { name: given.name.slice(0, 200), tests: given.tests.join('\n') };
    if (!name.success) return listPage(req, res, { error: `The account was not created: ${name.error.issues[0]!.message}.`, ...again }, 400);
    if (given.tests.length > 0 && !deps.provider.catalog) {
      return listPage(req, res, { error: 'The account was not created: the product keeps its tests itself, and has no catalog to add tests to.', ...again }, 400);
    }
    const created = await admin.create(name.data, actorOf(req, res), { catalog: deps.provider.catalog, tests: given.tests });
    page(req, res, './admin/token', { pageTitle: `Account ${created.name} created`, section: 'accounts', account: { id: created.accountId, name: created.name }, token: created.token, created: true }, 201);
  });

  router.get('/accounts/:accountId', async (req, res) => accountPage(req, res, await accountOf(req)));

  router.post('/accounts/:accountId/tokens', form, async (req, res) => {
    const account = await accountOf(req);
    const token = await admin.issueToken(account.id, actorOf(req, res));
    page(req, res, './admin/token', { pageTitle: `New token for ${account.name}`, section: 'accounts', account, token, created: false }, 201);
  });

  /** Revoking cannot be undone, and the platform's calls with the token fail from then on: the operator confirms on a page of its own first. */
  const confirmRevoke = async (req: Request, res: Response, account: AccountSummary, key: string) => {
    const tokens = await accounts.activeTokens(account.id);
    const token = key === 'all' ? undefined : tokens.find((t) => t.keyId === key);
    if ((key === 'all' && tokens.length === 0) || (key !== 'all' && !token)) return res.redirect(303, `/admin/accounts/${account.id}?notice=not-revoked`);
    page(req, res, './admin/revoke', { pageTitle: key === 'all' ? `Revoke every token of ${account.name}` : `Revoke token ${key}…`, section: 'accounts', account, key, token, tokens });
  };
  router.get('/accounts/:accountId/revoke', async (req, res) => {
    const account = await accountOf(req);
    const fields = RevokeForm.safeParse(req.query);
    if (!fields.success) return res.redirect(303, `/admin/accounts/${account.id}?notice=not-revoked`);
    await confirmRevoke(req, res, account, fields.data.key);
  });
  router.post('/accounts/:accountId/revoke', form, async (req, res) => {
    const account = await accountOf(req);
    const fields = RevokeForm.safeParse(req.body ?? {});
    if (!fields.success) return res.redirect(303, `/admin/accounts/${account.id}?notice=not-revoked`);
    // Only the confirmation page's button says yes; any other post is asked first.
    if (fields.data.confirm !== 'yes') return confirmRevoke(req, res, account, fields.data.key);
    const actor = actorOf(req, res);
    const revoked = fields.data.key === 'all' ? (await admin.revokeTokens(account.id, actor)) > 0 : await admin.revokeToken(account.id, fields.data.key, actor);
    res.redirect(303, `/admin/accounts/${account.id}?notice=${revoked ? 'revoked' : 'not-revoked'}`);
  });

  /** The account and platform of a credential form, checked by the rules; a refusal shows on the account's page. */
  const credentialTarget = async (req: Request, res: Response, action: 'set' | 'remove') => {
    const account = await accountOf(req);
    const platform = typeof req.params.platform === 'string' && PLATFORM_NAME.test(req.params.platform) ? req.params.platform : undefined;
    if (!platform) throw notFound('Unknown platform');
    try {
      return await admin.credentialTarget(account.id, platform, action);
    } catch (err) {
      if (err instanceof RefusedCredential) return void (await accountPage(req, res, account, { platform, text: err.message }, 400));
      if (err instanceof UnknownAccount) throw notFound('Unknown account');
      throw err;
    }
  };

  router.post('/accounts/:accountId/credentials/:platform', credentialForm, async (req, res) => {
    const target = await credentialTarget(req, res, 'set');
    if (!target) return;
    const fields = CredentialForm.safeParse(req.body ?? {});
    try {
      // What was typed is never shown back, refused or not: the field stays empty.
      await admin.setCredential(target, fields.success ? fields.data.credential : '', actorOf(req, res));
    } catch (err) {
      if (!(err instanceof RefusedCredential)) throw err;
      return accountPage(req, res, target.account, { platform: target.platform, text: `The ${target.named.credential} was not stored: ${err.message.replace(/^credential set: /, '').replace(/; nothing was stored$/, '')}.` }, 400);
    }
    res.redirect(303, `/admin/accounts/${target.account.id}?notice=credential-set`);
  });

  router.post('/accounts/:accountId/credentials/:platform/remove', form, async (req, res) => {
    const target = await credentialTarget(req, res, 'remove');
    if (!target) return;
    const removed = await admin.removeCredential(target, actorOf(req, res));
    res.redirect(303, `/admin/accounts/${target.account.id}?notice=${removed ? 'credential-removed' : 'credential-none'}`);
  });
}

/** The Newest / Newer / Older links of a keyset page of invitations at `path` with `query`. */
export function pagerOf(path: string, query: Record<string, string>, at: { newer?: Parameters<typeof cursorText>[0]; older?: Parameters<typeof cursorText>[0] }, paged: boolean) {
  const href = (extra: Record<string, string>) => {
    const q = new URLSearchParams({ ...query, ...extra }).toString();
    return `${path}${q ? `?${q}` : ''}`;
  };
  return {
    newest: paged ? href({}) : undefined,
    newer: at.newer ? href({ before: cursorText(at.newer) }) : undefined,
    older: at.older ? href({ after: cursorText(at.older) }) : undefined,
  };
}

/**
 * An account's connections as the dashboard shows them: each platform's company id and the
 * customer's credential, masked (`••••wxyz`, never the credential), with when it was set; and
 * `missing`, each platform whose updates need a credential (`credential.required`) the account has
 * none for while it uses that platform — connected to it, or, where `used` says so, with
 * invitations of it: its updates there cannot be delivered. An account that never used a platform
 * is not flagged for it.
 */
export function connectionsView(
  accountId: number,
  connected: readonly Connection[],
  used: (platform: string) => boolean,
  { platforms, credentials }: Pick<AccountPagesDeps, 'platforms' | 'credentials'>,
) {
  const labelOf = (name: string) => platforms.find((p) => p.name === name)?.label ?? credentials.find((p) => p.name === name)?.label ?? name;
  const credentialOf = (name: string) => credentials.find((d) => d.name === name)?.credential;
  const own = connected.filter((c) => c.accountId === accountId);
  const shown = own.map((c) => ({
    platform: c.platform,
    label: labelOf(c.platform),
    companyId: c.companyId,
    credentialLabel: credentialOf(c.platform)?.label ?? 'credential',
    credential: maskedCredential(c),
    credentialSetAt: c.credentialSetAt,
  }));
  const missing = credentials
    .filter((d) => d.credential?.required)
    .filter((d) => !own.some((c) => c.platform === d.name && c.hasCredential))
    .filter((d) => own.some((c) => c.platform === d.name) || used(d.name))
    .map((d) => ({ platform: d.name, label: labelOf(d.name), credentialLabel: d.credential!.label }));
  return { connections: shown, missing };
}

/**
 * Each hiring-platform company that more than one account is connected to (a recruiter gave the
 * platform another account's token), with its accounts, and the one its latest invitation came in
 * through: the one the platform uses now.
 */
async function sharedCompanies(accounts: AccountStore, reads: DashboardReads) {
  const byCompany = new Map<number, AccountSummary[]>();
  for (const a of await accounts.sharingACompany()) byCompany.set(a.companyId!, [...(byCompany.get(a.companyId!) ?? []), a]);
  const shared = [];
  for (const [companyId, connected] of byCompany) {
    const latest = await reads.latestFromCompany(companyId, connected.map((a) => a.id));
    shared.push({ companyId, accounts: connected, latest, current: latest && connected.find((a) => a.id === latest.accountId) });
  }
  return shared;
}

