import type { Router } from 'express';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import type { Sql } from '../../lib/sql.js';
import type { PartnerCore } from '../core.js';
import type { Config } from '../config.js';
import type { InvitationLinks } from '../invitations/links.js';
import type { CreateOutcome, Invitation, InvitationToStore } from '../invitations/store.js';
import type { InvitationUpdate } from '../invitations/update.js';
import type { DeliveryTarget } from '../updates/outbox.js';

export type { DeliveryTarget };
import type { Provider } from '../provider/types.js';

/**
 * A recruiting platform the partner speaks: one folder under `platforms/`, holding its routes (the
 * calls it makes to the partner), how it is told of an invitation's updates, and its wire format.
 * The core — accounts, invitations, outboxes, e-mail, pages, the provider seam — knows none of
 * that: it stores each invitation with the name of the platform that sent it, and asks that
 * platform how to tell it of a change (docs/platforms.md).
 */
export interface Platform {
  /** Stored with each invitation it sends (`invitations.platform`): a folder name, e.g. `greenhouse`. */
  readonly name: string;
  /** How the dashboard names it. */
  readonly label: string;
  /**
   * Whether the invitation e-mail waits until the platform accepts the report's first update
   * ("the platform first", docs/report-delivery.md); when false it is queued at the start.
   */
  readonly emailAfterAcceptance: boolean;
  /**
   * What the platform is given to reach this partner (name → URL, `{…}` for a path parameter), and
   * the settings it is known by: shown on the home page (`GET /`) and in its JSON.
   */
  readonly home: { endpoints: Readonly<Record<string, string>>; settings?: Readonly<Record<string, string>> };
  /** Mounts the platform's routes on the app. */
  mount(router: Router, context: PlatformContext): void;
  /**
   * The HTTP request telling the platform of an invitation's update (its pending updates merged
   * into one), or undefined when this platform has nothing to hear of it: the update is then
   * settled without a request.
   */
  deliveryRequest(target: DeliveryTarget, update: InvitationUpdate): DeliveryRequest | Promise<DeliveryRequest | undefined> | undefined;
  /** Why its deliveries cannot go out now (the partner is not registered yet), if they cannot. */
  deliveriesWaiting?(): string | undefined;
  /**
   * What an answer to a delivery says about the report: `known` lets a waiting e-mail go
   * (`emailAfterAcceptance`), `unknown` cancels an invitation the platform never accepted an update of.
   */
  reportKnown?(status: number): 'known' | 'unknown' | undefined;
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
  /** Background work of its own (a webhook processor), run in a loop beside the kit's. */
  workers?(context: PlatformContext): PlatformWorker[];
}

/**
 * Makes a platform once the partner knows where it is reached (`publicUrl`, after it listens):
 * what `platforms` lists (platforms/index.ts), and what a fork passes to speak one of its own.
 */
export type PlatformFactory = (setup: { config: Config; publicUrl: string }) => Platform;

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
