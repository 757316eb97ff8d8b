import { randomInt } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { isoAt, type Clock } from '../../../lib/clock.js';
import { AppError, notFound, unprocessable } from '../../../lib/errors.js';
import { failure, type BobClient } from './client.js';
import type { BobOAuth } from './oauth.js';
import type { Assessment, BobApp, BobCompany, BobStore, Delivery, EventType } from './store.js';
import { DeleteBody, RegisterBody, UpdateBody, eventBody, readBody, sentence } from './wire.js';
import type { Attempt, BobDeliverer } from './webhooks.js';

/** Where the partner's HIBOB_API_URL points on the mock: `{mock}` + this (Bob's own is `https://api.hibob.com/v1`). */
export const BOB_API_PATH = '/hibob/api/v1';
/** Where the partner's HIBOB_TOKEN_URL points on the mock: `{mock}` + this (the path of Bob's `auth.app.hibob.com`). */
export const BOB_TOKEN_PATH = '/hibob/oauth2/v1/apps/token';
/** Where the kit answers Bob, under the partner's public URL (docs/hibob.md §1). */
export const KIT_CALLBACK_PATH = '/hibob/oauth/callback';
export const KIT_WEBHOOKS_PATH = '/hibob/webhooks';

/** The statuses after which the assessment holds its result. */
const FINAL = new Set(['completed', 'passed', 'failed']);

/** An assessment's state as Bob shows it: its badge, the details' `status`, `status` to a script. */
export const shownStatus = (a: Assessment): string => (a.cancelledAt !== null ? 'cancelled' : (a.status ?? 'ordered'));
/** The assessment holds its result (a final status the vendor PATCHed), and was not cancelled. */
export const isComplete = (a: Assessment): boolean => a.cancelledAt === null && a.status !== null && FINAL.has(a.status);

/** What an API route answers: a status, and a body unless it is 201/204. */
export interface ApiAnswer {
  status: number;
  body?: object;
}

/** An order or a cancel, made: the assessment, and how the webhook that told the vendor went. */
export interface Made {
  assessment: Assessment;
  sent: Attempt;
}

export type Bob = ReturnType<typeof bob>;

/**
 * What Bob does with a marketplace assessment vendor (docs/hibob.md): the vendor's app has a
 * redirect URI and a webhook listener; a company installs it (consent, then the browser goes to the
 * redirect URI with a one-time code and the company id); the vendor registers the company's catalog
 * with the company's token; a recruiter orders an assessment of an active package for a candidate,
 * and cancels it — each a signed webhook to the listener; the vendor reads the order's details and
 * PATCHes its status, score and result link, refused after a cancel. Every API call is scoped to
 * the company whose token it carries: another company's order is a 404.
 */
export function bob(deps: { store: BobStore; oauth: BobOAuth; client: BobClient; deliverer: BobDeliverer; clock: Clock; waitMs: number }) {
  const { store, oauth, client, deliverer, clock } = deps;
  /** `registered:<company>` each time a catalog is registered: what a script listing the catalog waits for. */
  const events = new EventEmitter().setMaxListeners(100);

  const company = (id: string): BobCompany => {
    const found = store.company(id);
    if (!found) throw notFound('Unknown company');
    return found;
  };
  const app = (): BobApp & { redirectUri: string } => {
    const found = store.app();
    if (found.redirectUri === null) throw unprocessable("The vendor's app has no redirect URI yet: enter the partner's URLs under \"The vendor's app\" first.");
    return found as BobApp & { redirectUri: string };
  };

  /** A request id Bob never gave: numeric, as Bob's, and random, so a fresh sandbox never repeats one a kept partner has seen. */
  const newRequestId = (): string => {
    for (;;) {
      const id = String(randomInt(1_000_000_000, 10_000_000_000));
      if (!store.requestIdTaken(id)) return id;
    }
  };

  /** A new event about an assessment, and its first attempt at once. */
  const tell = async (a: Assessment, type: EventType): Promise<Attempt> => {
    const body = eventBody({ companyId: a.companyId, type, triggeredBy: a.requesterId, triggeredAt: isoAt(clock.now()), assessmentRequestId: a.requestId });
    return deliverer.attempt(store.createDelivery({ assessment: a.id, companyId: a.companyId, eventType: type, body }));
  };

  const orderOf = (companyId: string, id: number): Assessment => {
    const found = store.assessment(id);
    if (!found || found.companyId !== companyId) throw notFound('Unknown assessment');
    return found;
  };
  /** The company's assessment Bob knows by this request id: another company's is unknown (404), as on Bob. */
  const scoped = (companyId: string, requestId: string): Assessment | undefined => {
    const found = requestId.length <= 100 ? store.byRequestId(requestId) : undefined;
    return found && found.companyId === companyId ? found : undefined;
  };

  /**
   * The company installs the app (consents): where Bob sends the browser — the redirect URI with
   * a one-time code and the company id.
   */
  const consent = (companyId: string): string => {
    const c = company(companyId);
    const redirect = app().redirectUri;
    store.markInstalled(c.id);
    const url = new URL(redirect);
    url.searchParams.set('code', oauth.issueCode(c.id, redirect));
    url.searchParams.set('companyId', c.id);
    return url.toString();
  };
  /** Active packages of the company, as a recruiter may order them. */
  const activePackages = (companyId: string) => store.packages(companyId).filter((p) => p.status === 'active');

  return {
    company,
    app: () => store.app(),
    /** The vendor's app in the Developer Portal: its name, redirect URI and webhook listener. */
    registerApp(input: { name: string; redirectUri: string; webhookUrl: string }): BobApp {
      store.saveApp(input);
      return store.app();
    },

    consent,
    /** The company declines the install: the redirect URI with RFC 6749 §4.1.2.1's `access_denied`. */
    declined(companyId: string): string {
      company(companyId);
      const url = new URL(app().redirectUri);
      url.searchParams.set('error', 'access_denied');
      url.searchParams.set('error_description', 'The company did not install the app');
      return url.toString();
    },
    /**
     * An install as a script makes it: consent, then the browser's visit to the redirect URI. The
     * install is complete when the vendor's callback answers 2xx (it has exchanged the code).
     */
    async install(companyId: string): Promise<{ ok: true } | { ok: false; refused: boolean; message: string }> {
      const answer = await client.install(consent(companyId));
      if (answer.ok && answer.status >= 200 && answer.status < 300) return { ok: true };
      const name = store.app().name ?? 'The vendor';
      const said = answer.ok ? pageTitle(answer.text) : undefined;
      return {
        ok: false,
        refused: answer.ok && answer.status < 500,
        message: `${name}'s OAuth callback did not complete the install (${failure(answer)}${said ? `: ${said}` : ''}).`,
      };
    },

    /** `POST /hiring/assessments/packages`: the company's catalog replaced, all or nothing. */
    registerCatalog(companyId: string, body: unknown): ApiAnswer {
      const read = readBody(RegisterBody, body);
      if (!read.ok) throw new AppError(400, 'bad_request', sentence(read.errors), read.errors);
      store.replaceCatalog(companyId, read.value.packages);
      events.emit(`registered:${companyId}`);
      return { status: 201 };
    },
    /** `POST /hiring/assessments/packages/delete`: these packages gone for good; unknown ids ignored. */
    deletePackages(companyId: string, body: unknown): ApiAnswer {
      const read = readBody(DeleteBody, body);
      if (!read.ok) throw new AppError(400, 'bad_request', sentence(read.errors), read.errors);
      store.deletePackages(companyId, read.value.packageIds);
      return { status: 204 };
    },
    activePackages,
    /**
     * Whether the vendor registered the company's catalog since its last install, waiting up to the
     * mock's call timeout for it: right after an install, the vendor registers it in the background.
     */
    async catalogRegistered(companyId: string): Promise<boolean> {
      const registered = () => {
        const c = company(companyId);
        return c.catalogRegisteredAt !== null && (c.installedAt === null || c.catalogRegisteredAt >= c.installedAt);
      };
      if (registered()) return true;
      try {
        await once(events, `registered:${companyId}`, { signal: AbortSignal.timeout(deps.waitMs) });
      } catch {
        // Not within the wait.
      }
      return registered();
    },

    /** `GET /hiring/assessments/{id}`: the order's fixed field set, for its own company only. */
    details(companyId: string, requestId: string): ApiAnswer {
      const a = scoped(companyId, requestId);
      if (!a) return { status: 404, body: { error: 'Assessment not found' } };
      store.markDetailsRead(a.id);
      const candidate = store.candidate(a.companyId, a.candidateId)!;
      const requester = store.employee(a.requesterId);
      const job = store.jobOpening(a.jobOpeningId);
      return {
        status: 200,
        body: {
          id: a.requestId,
          companyId: a.companyId,
          status: shownStatus(a),
          requestedAt: a.createdAt,
          candidate: { id: candidate.bobId, firstName: candidate.firstName, lastName: candidate.lastName, email: candidate.email },
          requester: requester
            ? { id: requester.id, firstName: requester.firstName, lastName: requester.lastName, displayName: `${requester.firstName} ${requester.lastName}`, email: requester.email }
            : null,
          jobOpening: job ? { id: job.id, title: job.title } : null,
          package: { id: a.packageId, name: a.packageName },
        },
      };
    },

    /**
     * `PATCH /hiring/assessments/{id}`: applied (204) unless it is another company's (404), breaks
     * the rules (400), or the order was cancelled (409: Bob refuses updates after a cancel). Every
     * PATCH about one of the company's orders is recorded, applied or not.
     */
    update(companyId: string, requestId: string, body: unknown): ApiAnswer {
      const a = scoped(companyId, requestId);
      if (!a) return { status: 404, body: { error: 'Assessment not found' } };
      const raw = JSON.stringify(body ?? null);
      if (body !== null && typeof body === 'object' && 'assessmentRequestId' in body) {
        const message = 'assessmentRequestId is not accepted in the body: the assessment id is in the path';
        store.keep(a.id, raw, `refused (400): ${message}`);
        return { status: 400, body: { error: message, errors: { assessmentRequestId: ['is not accepted in the body'] } } };
      }
      const read = readBody(UpdateBody, body);
      if (!read.ok) {
        store.keep(a.id, raw, `refused (400): ${sentence(read.errors)}`);
        return { status: 400, body: { error: sentence(read.errors), errors: read.errors } };
      }
      if (a.cancelledAt !== null) {
        store.keep(a.id, raw, 'refused (409): the assessment was cancelled');
        return { status: 409, body: { error: 'The assessment was cancelled: Bob takes no more updates for it' } };
      }
      store.apply(a.id, raw, read.value);
      return { status: 204 };
    },

    /**
     * A recruiter orders an assessment of an active package for a candidate: the order, and its
     * `assessment.triggered` webhook's first attempt (retried by Bob's schedule if it fails).
     */
    async order(companyId: string, candidateId: number, packageId: string): Promise<Made> {
      const c = company(companyId);
      const candidate = store.candidate(c.id, candidateId);
      if (!candidate) throw notFound('Unknown candidate');
      const pkg = activePackages(c.id).find((p) => p.id === packageId);
      if (!pkg) throw unprocessable(`${store.app().name ?? 'The vendor'} has no active package "${packageId}" in ${c.name}'s catalog.`);
      const requester = store.employees(c.id)[0];
      if (!requester) throw unprocessable(`${c.name} has no recruiter to order it.`);
      const made = store.createAssessment({
        requestId: newRequestId(),
        companyId: c.id,
        candidateId: candidate.id,
        jobOpeningId: candidate.jobOpeningId,
        requesterId: requester.id,
        packageId: pkg.id,
        packageName: pkg.name,
      });
      const sent = await tell(made, 'assessment.triggered');
      return { assessment: store.assessment(made.id)!, sent };
    },

    /** The recruiter cancels: the order takes no more updates, and `assessment.cancelled` tells the vendor. */
    async cancel(companyId: string, id: number): Promise<Made> {
      const a = orderOf(companyId, id);
      if (a.cancelledAt !== null) throw unprocessable('The assessment is cancelled already.');
      if (isComplete(a)) throw unprocessable('The assessment is complete: there is nothing to cancel.');
      store.markCancelled(a.id);
      const sent = await tell(a, 'assessment.cancelled');
      return { assessment: store.assessment(a.id)!, sent };
    },

    /** The same event again, as a new delivery (Bob delivers at least once): what a vendor's deduplication is for. */
    async deliverAgain(companyId: string, deliveryId: number): Promise<Attempt> {
      const d = store.delivery(deliveryId);
      if (!d || d.companyId !== companyId) throw notFound('Unknown webhook delivery');
      if (d.status === 'pending' || d.status === 'sending') throw unprocessable('That delivery is still under way.');
      return deliverer.attempt(store.createDelivery({ assessment: d.assessment, companyId: d.companyId, eventType: d.eventType, body: d.body }));
    },

    /** What went wrong with the last webhook about the assessment, if it is not delivered. */
    problemOf(a: Assessment): string | null {
      const last = store.deliveriesOf(a.id).at(-1);
      return last ? deliveryProblem(last) : null;
    },
  };
}

/** A delivery not (yet) delivered, in a sentence; null for one delivered or under way. */
export function deliveryProblem(d: Delivery): string | null {
  if (d.status === 'delivered' || d.status === 'sending') return null;
  const said = d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? 'no answer');
  if (d.status === 'failed') return `The ${d.eventType} webhook was given up after ${d.attempts} attempts (last: ${said}).`;
  return `The ${d.eventType} webhook was not delivered (${said}; attempt ${d.attempts}): Bob tries again at ${d.nextAttemptAt}.`;
}

/** The `<title>` of an HTML answer, for a sentence; undefined when there is none. */
function pageTitle(html: string): string | undefined {
  const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(html)?.[1]?.trim();
  return title
    ? title
        .replaceAll('&amp;', '&')
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&quot;', '"')
        .replaceAll('&#39;', "'")
    : undefined;
}
