import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';

/**
 * Faults the mock injects so a partner's failure paths can be exercised: for the next `times`
 * calls of one endpoint, answer with `status`, wait `delayMs` first, or drop the connection
 * without answering. Faults live in memory: they are test set-up, not platform state. Several
 * faults on one endpoint are used in the order they were added.
 *
 * The target says whose endpoint: `platform` (default), one of the platform's own endpoints that
 * the partner calls (`reports.update`, …) — the partner's retries; `callback`, one of the calls
 * the platform makes to the partner (`validate_token`, `tests`, `send_candidate`, `cancel`) — what
 * the recruiter sees when the partner's server fails, without stopping it (and the calls of each
 * platform plugin, which names its own: platforms/plugin.ts `callbacks`). A callback fault is
 * played by the platform's side: the partner receives no call.
 */
export const FAULT_TARGETS = ['platform', 'callback'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

/** The calls the hiring platform makes to a partner, by the names the call log gives them. */
export const PLATFORM_CALLBACKS = ['cancel', 'send_candidate', 'tests', 'validate_token'] as const;

export interface FaultSpec {
  target?: FaultTarget;
  endpoint: string;
  status?: number;
  delayMs?: number;
  drop?: boolean;
  times: number;
}

export interface Fault {
  id: number;
  target: FaultTarget;
  endpoint: string;
  status: number | null;
  delayMs: number;
  drop: boolean;
  remaining: number;
  createdAt: string;
}

export type FaultStore = ReturnType<typeof faultStore>;

/**
 * `callbacks`: the calls a callback fault may name — the hiring platform's, then each plugin's
 * (`<name>.…`), in that order.
 */
export function faultStore(clock: Clock, callbacks: readonly string[] = PLATFORM_CALLBACKS) {
  const endpoints = new Set<string>();
  let faults: Fault[] = [];
  let nextId = 1;

  return {
    /** Declares an endpoint that faults may target; called when routes are mounted. */
    register(endpoint: string): void {
      endpoints.add(endpoint);
    },
    endpoints: (): string[] => [...endpoints].sort(),
    isKnown: (endpoint: string): boolean => endpoints.has(endpoint),
    /** The calls to the partner a fault with `target: callback` may name. */
    callbacks: (): readonly string[] => callbacks,

    add(spec: FaultSpec): Fault {
      const fault: Fault = {
        id: nextId++,
        target: spec.target ?? 'platform',
        endpoint: spec.endpoint,
        status: spec.status ?? null,
        delayMs: spec.delayMs ?? 0,
        drop: spec.drop ?? false,
        remaining: spec.times,
        createdAt: isoAt(clock.now()),
      };
      faults.push(fault);
      return { ...fault };
    },

    list: (): Fault[] => faults.map((f) => ({ ...f })),

    remove(id: number): boolean {
      const before = faults.length;
      faults = faults.filter((f) => f.id !== id);
      return faults.length < before;
    },

    clear(): void {
      faults = [];
    },

    /** Uses up one call of the oldest fault on `endpoint`; undefined when none is armed. */
    take(endpoint: string, target: FaultTarget = 'platform'): Fault | undefined {
      const fault = faults.find((f) => f.target === target && f.endpoint === endpoint);
      if (!fault) return undefined;
      fault.remaining -= 1;
      if (fault.remaining === 0) faults = faults.filter((f) => f !== fault);
      return { ...fault };
    },
  };
}

/** What a fault applies to, in a sentence: "reports.update", "the send_candidate callback". */
export function faultPlace(f: Pick<Fault, 'target' | 'endpoint'>): string {
  return f.target === 'callback' ? `the ${f.endpoint} callback` : f.endpoint;
}

/** How a fault reads in the call log and the sandbox. */
export function describeFault(f: Pick<Fault, 'status' | 'delayMs' | 'drop'>): string {
  const parts: string[] = [];
  if (f.delayMs > 0) parts.push(`delay ${f.delayMs} ms`);
  if (f.drop) parts.push('drop connection');
  else if (f.status !== null) parts.push(`status ${f.status}`);
  return parts.join(', then ');
}
