import { isoAt, type Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/http/logger.js';
import { failure, type BobClient } from './client.js';
import type { BobStore, Delivery } from './store.js';
import { signBody } from './wire.js';

/**
 * Bob's retry schedule for a failed delivery (HiBob's "Getting started with partner webhooks"): the
 * retries come 1, 10, 20, 40, 80 and 160 minutes after the first failure — "this ~3-hour window" —
 * and the delivery stops after the last. In minutes.
 */
export const RETRY_AFTER_FIRST_FAILURE_MIN = [1, 10, 20, 40, 80, 160] as const;
/** Every attempt of a delivery: the first and its six retries. */
export const MAX_ATTEMPTS = RETRY_AFTER_FIRST_FAILURE_MIN.length + 1;

/**
 * How an attempt went: delivered (a 2xx), or failed with what the page shows, the listener's status
 * (null: no answer), and the next attempt (null: given up).
 */
export type Attempt = { ok: true; status: number } | { ok: false; message: string; status: number | null; nextAt: number | null };

export type BobDeliverer = ReturnType<typeof bobDeliverer>;

/**
 * Delivers Bob's webhooks to the vendor's one listener (the app's webhook URL, read at each
 * attempt), signed with the app's webhook secret (`Bob-Signature`): the same bytes on every
 * attempt. A 2xx within the call's timeout (Bob's 10 s) delivers it; anything else — another
 * status (a 4xx too: Bob retries "a 4xx or 5xx response"), no answer, a fault — fails the attempt,
 * and the next comes by RETRY_AFTER_FIRST_FAILURE_MIN on the mock's clock. The deliveries are rows
 * of `hibob_deliveries`, so a mock restarted with its database resumes them.
 *
 * `attempt` makes one attempt of a delivery its caller claimed (an order's first, made at once);
 * the worker makes every retry that falls due: every second, and whenever woken (the mock's clock
 * moved, `POST /_mock/clock`).
 */
export function bobDeliverer(deps: { store: BobStore; client: BobClient; clock: Clock; logger: Logger }) {
  const { store, client, clock, logger } = deps;

  async function attempt(d: Delivery): Promise<Attempt> {
    const app = store.app();
    const requestId = store.assessment(d.assessment)?.requestId ?? '';
    const answer = app.webhookUrl
      ? await client.webhook({ url: app.webhookUrl, body: d.body, signature: signBody(app.webhookSecret, d.body), assessmentRequestId: requestId })
      : ({ ok: false, error: 'the app has no webhook listener URL in the Developer Portal' } as const);
    if (answer.ok && answer.status >= 200 && answer.status < 300) {
      store.delivered(d.id, answer.status);
      return { ok: true, status: answer.status };
    }
    const now = clock.now();
    const firstFailedAt = d.firstFailedAt === null ? now : Date.parse(d.firstFailedAt);
    const after = RETRY_AFTER_FIRST_FAILURE_MIN[d.attempts];
    const nextAt = after === undefined ? null : firstFailedAt + after * 60_000;
    const said = failure(answer);
    store.attemptFailed(d.id, { status: answer.ok ? answer.status : null, error: said, firstFailedAt, nextAt });
    const attempts = d.attempts + 1;
    logger.info({ delivery: d.id, eventType: d.eventType, attempts, nextAt: nextAt === null ? null : isoAt(nextAt) }, 'a Bob webhook delivery failed');
    return {
      ok: false,
      message: `The ${d.eventType} webhook was not delivered (${said}; attempt ${attempts} of ${MAX_ATTEMPTS}): ${nextAt === null ? 'Bob gave it up' : `Bob tries again at ${isoAt(nextAt)}`}.`,
      status: answer.ok ? answer.status : null,
      nextAt,
    };
  }

  /** Makes every attempt that is due, oldest first; resolves once each is recorded. */
  async function runOnce(stopping: () => boolean): Promise<number> {
    let made = 0;
    for (let due = store.dueDeliveries(20); due.length > 0 && !stopping(); due = store.dueDeliveries(20)) {
      for (const d of due) {
        if (stopping()) break;
        if (!store.claim(d.id)) continue;
        await attempt(store.delivery(d.id)!);
        made += 1;
      }
    }
    return made;
  }

  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await runOnce(() => stopped);
      } while (again && !stopped);
    })()
      .catch((err: unknown) => logger.error({ err }, "Bob's webhook worker failed"))
      .finally(() => {
        running = undefined;
      });
  };

  return {
    attempt,
    runOnce: () => runOnce(() => false),
    /** The background work of the plugin (platforms/plugin.ts `worker`). */
    worker: {
      start() {
        if (!stopped) return;
        stopped = false;
        // An attempt a stopped mock left in flight is made again.
        store.unstick();
        timer = setInterval(run, 1000);
        timer.unref();
        run();
      },
      async stop() {
        stopped = true;
        clearInterval(timer);
        await running;
      },
      wake: run,
    },
  };
}
