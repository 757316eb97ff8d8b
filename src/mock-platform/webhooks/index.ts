import type { Dispatcher } from 'undici';
import type { Clock } from '../../lib/clock.js';
import { WEBHOOK_TIMEOUT_MS } from '../../contract/decisions.js';
import type { Db } from '../../lib/db.js';
import type { Logger } from '../../lib/http/logger.js';
import { companyStore } from '../companies/store.js';
import type { PlatformEvents } from '../events.js';
import type { MailLog } from '../mail.js';
import { webhookConfigurations } from './configurations.js';
import { webhookDeliverer } from './deliverer.js';
import { webhookSender } from './sender.js';
import { webhookStore } from './store.js';

export interface MockWebhooksDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  mail: MailLog;
  /** For the requests to webhook URLs; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
  /** Request timeout (seed §6: 10 s). */
  timeoutMs?: number;
  /** The rate limit's ± 5 minutes draw from it (Math.random by default). */
  random?: () => number;
  /** Generates configuration secrets (tests fix them). */
  generateSecret?: () => string;
}

export type MockWebhooks = ReturnType<typeof mockWebhooks>;

/**
 * The platform's webhooks, assembled: `events` is the `PlatformEvents` the rest of the mock emits
 * to (each event is stored with one delivery per configuration that selected it), `deliverer` the
 * worker, `configurations` what a member with "Manage webhooks" does. `start()` runs the worker on
 * an interval and right after each event; tests leave it stopped and call `deliverer.runOnce()`.
 */
export function mockWebhooks(deps: MockWebhooksDeps) {
  const { db, clock, logger, mail } = deps;
  const timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const store = webhookStore(db, clock);
  const companies = companyStore(db);
  const send = webhookSender({ timeoutMs, dispatcher: deps.dispatcher });
  const deliverer = webhookDeliverer({ store, companies, send, mail, clock, logger, timeoutMs, random: deps.random });
  const configurations = webhookConfigurations({ store, send, clock, generateSecret: deps.generateSecret });

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let queued = false;
  /** Runs the worker after the current one; kicks while one is waiting are merged into it. */
  const kick = (): void => {
    if (timer === undefined || queued) return;
    queued = true;
    running = running
      .then(() => {
        queued = false;
        return deliverer.runOnce();
      })
      .catch((err: unknown) => logger.error({ err }, 'webhook worker failed'));
  };

  const events: PlatformEvents = {
    emit(companyId, eventType, eventSubtype, payload) {
      const { deliveries } = store.recordEvent(companyId, eventType, eventSubtype, payload);
      // Deferred: the event may belong to a transaction that has not committed yet.
      if (deliveries > 0) setImmediate(kick);
    },
  };

  return {
    store,
    events,
    deliverer,
    configurations,
    /** Asks the running worker to look for due deliveries now (after "retry now"). */
    kick: () => setImmediate(kick),
    start(intervalMs = 1000): void {
      if (timer !== undefined) return;
      timer = setInterval(kick, intervalMs);
      timer.unref();
      kick();
    },
    /** Stops the interval and waits for the requests in flight to be recorded. */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
