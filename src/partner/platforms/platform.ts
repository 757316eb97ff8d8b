import type { Router } from 'express';
import type { z } from 'zod';
import type { ApiOperation } from '../../contract/openapi/document.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import type { Sql } from '../../lib/sql.js';
import type { Config } from '../config.js';
import type { ConnectionStore } from '../connections/store.js';
import type { PartnerCore } from '../core.js';
import type { InvitationLinks } from '../invitations/links.js';
import type { CreateOutcome, Invitation, InvitationToStore } from '../invitations/store.js';
import type { InvitationUpdate } from '../invitations/update.js';
import type { Provider } from '../provider/types.js';
export type { InvitationUpdate };

/**
 * A recruiting platform the partner speaks, as one definition: everything it adds to the kit —
 * its settings, its tables, its routes, its part of the API document, how it hears of an
 * invitation's updates, its background work and what the dashboard shows of it. The kit composes
 * the definitions it is given (the registry, `platforms/index.ts`, and a fork's own from
 * `src/provider/index.ts`); the core names none of them (docs/platforms.md).
 *
 * `S` is what its `settings` schema parses to, handed to `create`.
 */
export interface PlatformDefinition<S = unknown> {
  /**
   * Stored with each invitation it creates (`invitations.platform`), each connection
   * (`connections.platform`) and each of its migrations (`schema_migrations`): lowercase letters,
   * digits and `-`, e.g. `greenhouse`. Never renamed once invitations carry it.
   */
  readonly name: string;
  /** How the dashboard, the home page and the API document name it: `Greenhouse`. */
  readonly label: string;
  /**
   * Its settings: a zod object over environment variables (`ASHBY_API_URL`), parsed in the one
   * configuration load with the kit's and every other platform's, so every bad setting is reported
   * at once. Its keys must not be another's. The parsed value is `create`'s `settings`.
   */
  readonly settings?: z.ZodType<S>;
  /**
   * Its own tables: the `NNN_name.sql` files of `dir` (SQLite) and `postgresDir` (PostgreSQL),
   * applied after the kit's, each once, tracked as `<name>/NNN_name.sql`.
   */
  readonly migrations?: { dir: string; postgresDir: string };
  /** Its routes in the partner's OpenAPI document (`GET /openapi.json`), with their tag and credentials. */
  readonly api?: PlatformApi;
  /**
   * Whether it keeps a credential per customer (`connections.credential`: Ashby's API key, Bob's
   * OAuth tokens), and how the dashboard and `npm run accounts -- credential` name it. `required`:
   * without one the customer's updates cannot be delivered, which the dashboard says.
   */
  readonly credential?: { label: string; required: boolean };
  /** Makes the platform once the partner knows where it is reached (after it listens). */
  create(setup: PlatformSetup<S>): Platform;
}

/** Its part of the partner's OpenAPI document: operations, tags and security schemes, merged with the kit's. */
export interface PlatformApi {
  tags: readonly { name: string; description: string }[];
  securitySchemes?: Readonly<Record<string, Record<string, unknown>>>;
  operations: readonly ApiOperation[];
}

/** What a definition is made with. */
export interface PlatformSetup<S = unknown> {
  /** The kit's settings (`config.kind`, `config.links.secret`, `config.localOnly`…). */
  config: Config;
  /** Its own settings, as its `settings` schema parsed them. */
  settings: S;
  /** Where the platform and candidates reach this partner. */
  publicUrl: string;
  /** The customers' connections to it: company ids and sealed credentials. */
  connections: ConnectionStore;
  /** The partner's database: its own tables (a token's row locked while it is rotated). */
  sql: Sql;
  clock: Clock;
  logger: Logger;
}

/**
 * A platform, made: its routes (the calls it makes to the partner), how it is told of an
 * invitation's updates, and its wire format. The core stores each invitation with the name of the
 * platform that created it and asks that platform how to tell it of a change.
 */
export interface Platform {
  readonly name: string;
  readonly label: string;
  /**
   * Whether the invitation e-mail waits until the platform accepts the report's first update
   * ("the platform first", docs/report-delivery.md); when false it is queued at the start.
   */
  readonly emailAfterAcceptance: boolean;
  /**
   * Whether it hears of the candidate's progress (`stage` updates: opened, started, in_review):
   * only then does the lifecycle queue them for its invitations. Ashby shows `Started`.
   */
  readonly hearsProgress?: boolean;
  /**
   * What the platform is given to reach this partner (name → URL, `{…}` for a path parameter), and
   * the settings it is known by: shown on the home page (`GET /`) and in its JSON.
   */
  readonly home: { endpoints: Readonly<Record<string, string>>; settings?: Readonly<Record<string, string>> };
  /** Mounts the platform's routes. */
  mount(router: Router, context: PlatformContext): void;
  /**
   * The HTTP request telling the platform of an invitation's update (its pending updates merged
   * into one), or undefined when this platform has nothing to hear of it: the update is then
   * settled without a request. A request that can never be made (a credential missing or
   * unreadable) throws: a dead letter, with the error's message.
   */
  deliveryRequest(target: DeliveryTarget, update: InvitationUpdate): DeliveryRequest | Promise<DeliveryRequest | undefined> | undefined;
  /** Why its deliveries cannot go out now (the partner is not registered yet), if they cannot. */
  deliveriesWaiting?(): string | undefined;
  /**
   * What start-up warns about in its settings, one sentence each (a platform configured in part:
   * its routes answer 503 until the rest is set). Logged once the partner listens.
   */
  warnings?(): string[];
  /**
   * What an answer to a delivery means, where its status alone does not say (a 200 with
   * `success: false`), and what it says about the report. Unsaid: by the status (updates/policy.ts).
   * Given the delivery's target, it may act on what the answer says of the customer's credential
   * before the retry (an expired OAuth token: refreshed, `connections.setCredential`).
   */
  judgeAnswer?(answer: DeliveryAnswer, target: DeliveryTarget): AnswerVerdict | Promise<AnswerVerdict>;
  /**
   * The name the invitation e-mail greets the candidate by (`it.greeting` in the templates), from
   * what its routes stored; the candidate's first name when absent or undefined.
   */
  greetingName?(invitation: Pick<Invitation, 'firstName' | 'platformData'>): string | undefined;
  /**
   * What the dashboard's invitation page shows of what its routes stored (`platformData`), in the
   * platform's words; never a credential. `href` only for an http(s) URL the routes validated.
   */
  details?(platformData: Readonly<Record<string, unknown>>): { label: string; value: string; href?: string }[];
  /**
   * What it hears of an invitation and when, in its words, for the dashboard's invitation page, where
   * the kit's words would mislead (an update settled without a request, `superseded`, reads as lost).
   * Absent: the hiring platform's — every update is a request with a body, and the platform knows the
   * report once it has accepted the first ("accepted its first update").
   */
  readonly hears?: PlatformHearing;
  /** Background work of its own (a webhook processor, a catalog registration), run in a loop beside the kit's. */
  workers?(context: PlatformContext): PlatformWorker[];
}

/** What a platform hears of an invitation and when (`Platform.hears`): sentences for the dashboard, plain text. */
export interface PlatformHearing {
  /** How it knows the report, the invitation's "Platform" line: "Greenhouse knows the report from send_test's answer". */
  known: string;
  /**
   * Which updates it is told, how and when, above the invitation's report updates: the ones it has
   * no word for are settled without a request (`superseded`).
   */
  updates: string;
  /** How its request reads in the delivery log, before the body: "PATCH to the url Greenhouse sent, with no body". */
  request: string;
}

/** The invitation a delivery is about, and what the platform's routes stored with it. */
export interface DeliveryTarget {
  reportId: string;
  accountId: number;
  /** `invitations.platform_data`: what the platform's own routes stored at the send. */
  data: Readonly<Record<string, unknown>>;
  /**
   * The customer's credential for this platform (`connections`, set with `npm run accounts --
   * credential set`), opened; undefined when none is set. Read only when asked. Throws when it
   * cannot be opened (CANDIDATE_LINK_SECRET rotated since): the delivery is then a dead letter.
   */
  credential(): Promise<string | undefined>;
}

/** A platform's answer to a delivery, as the worker read it (the body's first 64 KB), with the request it answers. */
export interface DeliveryAnswer {
  status: number;
  body: string;
  /** What was sent: the credential it carried, say, which an answer of 401 condemns. */
  request: DeliveryRequest;
}

/**
 * Thrown by `deliveryRequest` when the request cannot be made now but may be later (the platform's
 * token URL is down while a token must be refreshed): the update is retried with backoff, as after
 * a 5xx, where any other error makes it a dead letter.
 */
export class DeliveryNotYet extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryNotYet';
  }
}

export interface AnswerVerdict {
  /** `delivered`, `retry` (backoff, Retry-After) or `dead`; unsaid: by the status. */
  outcome?: 'delivered' | 'retry' | 'dead';
  /**
   * What it says about the report: `known` lets a waiting e-mail go (`emailAfterAcceptance`),
   * `unknown` cancels an invitation the platform never accepted an update of.
   */
  report?: 'known' | 'unknown';
  /** Why, in the platform's words (its `errorInfo`), for the dashboard and the log. */
  reason?: string;
}

/** What a platform's routes and workers are given: the core's parts, never another platform's. */
export interface PlatformContext {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  provider: Provider;
  core: PartnerCore;
  /** The largest request body a route accepts (BODY_LIMIT_BYTES): over it, 413. */
  bodyLimitBytes: number;
  /** The kit's signed links: the recruiter's results page (`resultsUrl`), the candidate's. */
  links: InvitationLinks;
  /** Stores a new invitation; sends arriving in one event-loop turn share one commit. */
  createInvitation: (input: InvitationToStore) => Promise<CreateOutcome>;
  /** Told of each new invitation, so its start need not wait for the next poll. */
  onInvitationCreated?: (reportId: string) => void;
  /** Wakes the platform's workers (`PlatformWorker.kick`) when something is queued for them. */
  kick: (worker: string) => void;
}

export interface PlatformWorker {
  /** Its name in the log: `webhook processor`. */
  name: string;
  runOnce(stopping?: AbortSignal): Promise<unknown>;
}

export interface DeliveryRequest {
  url: string;
  method: 'PATCH' | 'POST' | 'PUT';
  headers: Record<string, string>;
  /** The request body, when it has one (its content-type is in `headers`). */
  body?: string;
  /**
   * What the invitation's `platform_data` becomes once this request is delivered, written in the
   * transaction that records the delivery: a credential only this request needed is dropped
   * (Greenhouse's key). Unchanged when absent.
   */
  platformDataAfter?: Readonly<Record<string, unknown>>;
}

/** A platform's name: what `invitations.platform`, `connections.platform` and its migrations' prefix hold. */
export const PLATFORM_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * Defines a platform: the identity function, for the types (`S` inferred from `settings`). A
 * platform's folder default-exports one (`export default definePlatform({ … })`).
 */
export function definePlatform<S = undefined>(definition: PlatformDefinition<S>): PlatformDefinition<S> {
  return definition;
}
