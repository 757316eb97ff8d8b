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
  /** Request timeout (platform-contract.md §6.4: 10 s). */
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
 * worker, `configurations` what a member with "Manage webhooks" does. `start()` wakes the worker
 * every second and right after each event; tests leave it stopped and call `deliverer.runOnce()`.
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
  /** Fills the worker's free slots with what is due now, when it is running. */
  const wake = (): void => {
    if (timer === undefined) return;
    try {
      deliverer.wake();
    } catch (err) {
      logger.error({ err }, 'webhook worker failed');
    }
  };

  const events: PlatformEvents = {
    emit(companyId, eventType, eventSubtype, payload) {
      const { deliveries } = store.recordEvent(companyId, eventType, eventSubtype, payload);
      // Deferred: the event may belong to a transaction that has not committed yet.
      if (deliveries > 0) setImmediate(wake);
    },
  };

  return {
    store,
    events,
    deliverer,
    configurations,
    /** Asks the running worker to look for due deliveries now (after "retry now", a clock change). */
    kick: () => void setImmediate(wake),
    start(intervalMs = 1000): void {
      if (timer !== undefined) return;
      timer = setInterval(wake, intervalMs);
      timer.unref();
      wake();
    },
    /** Stops the interval and waits for the requests in flight to be recorded. */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await deliverer.idle();
    },
  };
}
