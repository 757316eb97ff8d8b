import type { Request, Response, Router } from 'express';
import { AppError } from '../../../lib/errors.js';
import { renderMessage } from '../../pages/render.js';
import type { PlatformContext } from '../platform.js';
import type { CatalogQueue } from './catalog.js';
import { isConfigured, notConfiguredMessage, type HibobSettings } from './settings.js';
import { BobAuthError, HIBOB, type BobTokenKeeper } from './tokens.js';
import { CompanyId } from './wire.js';

/** Where Bob sends the browser after a company installs the app: the app's redirect URI in Bob's Developer Portal. */
export const CALLBACK_PATH = '/hibob/oauth/callback';
/** The worker that registers catalogs, woken after an install. */
export const CATALOG_WORKER = 'HiBob catalog';

/** An authorization code as RFC 6749 §A.11 allows it (visible ASCII), of a sane length. */
const CODE = /^[\x20-\x7e]{1,2048}$/;
/** An OAuth `error` code (RFC 6749 §4.1.2.1): repeated on the page only when it is one. */
const ERROR_CODE = /^[a-z_]{1,64}$/;

export interface InstallDeps {
  context: PlatformContext;
  settings: HibobSettings;
  tokens: BobTokenKeeper;
  queue: CatalogQueue;
  /** The vendor's name, in the pages' header. */
  partnerName: string;
}

/**
 * `GET {PUBLIC_URL}/hibob/oauth/callback?code=…[&companyId=…][&state=…]`: the end of an install
 * started in Bob's marketplace (docs/hibob.md §2). The code is exchanged at HIBOB_TOKEN_URL; Bob's
 * company (the token answer's `companyId`, else the query's) is connected to the account an
 * operator linked it to beforehand, else to a new account named after it; the tokens become the
 * connection's sealed credential, and the catalog's registration is queued — one transaction.
 * The browser gets a small page: installed, or what went wrong. A code Bob refuses (used, expired,
 * made up) is a 400 page, never a 5xx; Bob unreachable or refusing this partner's app credentials
 * is a 502 page. Nothing on a page or in the log holds a code or a token.
 *
 * Without a code or an `error` it is a page saying what the address is (200). While HiBob is not
 * configured, anything else is 503 in the kit's error shape, naming the settings to set.
 * `state` is not checked: the kit starts no install itself, and the callback binds nothing to the
 * browser that calls it (the account follows from Bob's company, not from a session).
 */
export function mountInstall(router: Router, deps: InstallDeps): void {
  const { context, settings, tokens, queue } = deps;
  const { core, sql, logger } = context;
  const page = (res: Response, status: number, title: string, text: string, hint?: string) =>
    renderMessage(res, status, { title, text, ...(hint && { hint }) }, { vendor: deps.partnerName });
  const again = "Install the app again from Bob's marketplace.";

  /** Bob's company connected to an account (the linked one, or a new one), its tokens stored, its catalog queued. */
  const connect = async (companyId: string, credential: string): Promise<{ accountId: number; created: boolean }> => {
    const once = () =>
      sql.transaction(async (tx) => {
        const linked = await tx.get<{ account_id: number }>('SELECT account_id FROM connections WHERE platform = $1 AND company_id = $2', [HIBOB, companyId]);
        let accountId = linked?.account_id;
        if (accountId === undefined) {
          accountId = (await core.accounts.create(`Bob company ${companyId}`, tx)).account.id;
          if (!(await core.connections.connect(accountId, HIBOB, companyId, tx))) throw new Error(`Bob company ${companyId} was connected meanwhile`);
        }
        await core.connections.setCredential(accountId, HIBOB, credential, tx);
        await queue.install(tx, accountId, companyId);
        return { accountId, created: linked === undefined };
      });
    // Two installs of a new company at once: the second finds the first's account when it tries again.
    return once().catch(() => once());
  };

  router.get(CALLBACK_PATH, async (req: Request, res: Response) => {
    if (req.query.code === undefined && req.query.error === undefined) {
      return page(
        res,
        200,
        `${deps.partnerName} for Bob`,
        `This address finishes the install of ${deps.partnerName}'s app in Bob: Bob's marketplace brings you here once your company has installed it.`,
        "To connect your company, install the app from Bob's marketplace.",
      );
    }
    if (!isConfigured(settings)) throw new AppError(503, 'service_unavailable', notConfiguredMessage(settings));
    try {
      await install(req, res);
    } catch (err) {
      // The database, most likely: a page, as for every answer of this route.
      logger.error({ err }, 'a Bob install failed');
      page(res, 500, 'The install could not be completed', 'Something went wrong on our side.', 'Try the install again from Bob in a few minutes.');
    }
  });

  async function install(req: Request, res: Response): Promise<void> {
    const code = oneValue(req.query.code);
    const error = oneValue(req.query.error);
    if (error !== undefined) {
      const said = ERROR_CODE.test(error) ? ` (${error})` : '';
      return page(res, 400, 'Nothing was installed', `Bob ended the install${said}: no company was connected.`, again);
    }
    if (!code || !CODE.test(code)) return page(res, 400, 'This install link is not valid', 'It carries no usable code from Bob.', again);
    const queried = req.query.companyId === undefined ? undefined : CompanyId.safeParse(oneValue(req.query.companyId));
    if (queried && !queried.success) return page(res, 400, 'This install link is not valid', 'Its company id is not one of Bob\'s.', again);

    let installed: Awaited<ReturnType<BobTokenKeeper['install']>>;
    try {
      installed = await tokens.install(code);
    } catch (err) {
      if (!(err instanceof BobAuthError)) throw err;
      logger.warn({ err: err.message, kind: err.kind }, 'a Bob install could not be completed');
      if (err.kind === 'refused') {
        return page(res, 400, 'This install link has expired', 'Bob did not accept its code: it was used already, or is too old.', again);
      }
      if (err.kind === 'client') {
        return page(res, 502, 'The install could not be completed', `Bob refused ${deps.partnerName}'s app credentials: ${deps.partnerName} must correct its settings.`, 'Try the install again later.');
      }
      return page(res, 502, 'The install could not be completed', 'Bob could not be reached to complete it.', 'Try the install again from Bob in a few minutes.');
    }
    const fromQuery = queried?.success ? queried.data : undefined;
    if (installed.companyId !== undefined && fromQuery !== undefined && installed.companyId !== fromQuery) {
      logger.warn({ companyId: installed.companyId, queried: fromQuery }, "a Bob install's company id differs from the token answer's");
      return page(res, 400, 'This install link is not valid', 'It names another company than the one Bob installed the app for.', again);
    }
    const companyId = installed.companyId ?? fromQuery;
    if (companyId === undefined) return page(res, 400, 'This install link is not valid', 'Bob did not say which company installed the app.', again);

    const { accountId, created } = await connect(companyId, tokens.credentialOf(installed.tokens, companyId));
    logger.info({ companyId, accountId, created }, 'Bob company installed');
    context.kick(CATALOG_WORKER);
    page(
      res,
      200,
      'Installed',
      `${deps.partnerName} is connected to your Bob company. Its assessments appear in Bob Hiring within a few minutes.`,
      'You can close this page.',
    );
  }
}

/** A query parameter given once; a repeated one (`?a=1&a=2`) or a nested one reads as absent. */
const oneValue = (value: Request['query'][string]): string | undefined => (typeof value === 'string' ? value : undefined);
