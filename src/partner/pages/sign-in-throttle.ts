import { isIP } from 'node:net';
import type { Clock } from '../../lib/clock.js';

/**
 * [kit decision] How many wrong dashboard sign-ins are answered before the dashboard answers 429
 * instead (docs/report-delivery.md#signing-in). Counted over the last `windowMs`, in this process.
 */
export const SIGN_IN_LIMITS = {
  /** Wrong sign-ins from one client address (an IPv6 client's /64) within the window. */
  perAddress: 10,
  /** Wrong sign-ins from all addresses together within the window: an attacker's many addresses. */
  overall: 100,
  windowMs: 15 * 60_000,
  /**
   * How long an address that signed in stays exempt from the overall limit after its last
   * signed-in request: an operator keeps working while someone else's guesses exhaust it.
   */
  signedInMs: 24 * 60 * 60_000,
  /** Addresses remembered at once, each kind: the oldest is forgotten first. */
  maxAddresses: 10_000,
} as const;

export type SignInLimits = { readonly [K in keyof typeof SIGN_IN_LIMITS]: number };

/**
 * Failed sign-ins, remembered per client address and overall, so that guessing the dashboard's
 * password goes no faster than the limits allow. Only wrong credentials count; a request that
 * presents none (a browser's first) and one that signs in do not. Memory is bounded: failures
 * older than the window are dropped as new ones come, and at most `maxAddresses` addresses are
 * kept, the least recent forgotten first — an attacker rotating addresses forgets its own, and
 * still meets the overall limit.
 */
export function signInThrottle(clock: Clock, limits: SignInLimits = SIGN_IN_LIMITS) {
  /** Per address, the times of its recent failures, oldest first; the addresses, least recent first. */
  const failures = new Map<string, number[]>();
  /** The times of the recent failures of all addresses, oldest first (at most `overall`). */
  const overall: number[] = [];
  /** Per address, when it last signed in; least recent first. */
  const signedIn = new Map<string, number>();

  /** Milliseconds until `times` (oldest first) holds fewer than `limit` within the window; 0 if it does. */
  const waitFor = (times: readonly number[] | undefined, limit: number, now: number) => {
    if (times === undefined || times.length < limit) return 0;
    return Math.max(0, times[times.length - limit]! + limits.windowMs - now);
  };
  /** Moves `key` to the end of `map` (most recent), forgetting the least recent beyond the cap. */
  const touch = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > limits.maxAddresses) map.delete(map.keys().next().value!);
  };
  const forgetOld = (now: number) => {
    for (const [key, times] of failures) {
      if (times[times.length - 1]! > now - limits.windowMs) break;
      failures.delete(key);
    }
    for (const [key, at] of signedIn) {
      if (at > now - limits.signedInMs) break;
      signedIn.delete(key);
    }
  };

  return {
    /**
     * How long a client at `address` must wait before its next attempt is looked at, in whole
     * seconds; 0 when it may try now.
     */
    retryAfter(address: string | undefined): number {
      const now = clock.now();
      const key = addressKey(address);
      const trusted = (signedIn.get(key) ?? -Infinity) > now - limits.signedInMs;
      const ms = Math.max(waitFor(failures.get(key), limits.perAddress, now), trusted ? 0 : waitFor(overall, limits.overall, now));
      return Math.ceil(ms / 1000);
    },
    /**
     * A wrong sign-in: how many the address has made within the window, and whether this one
     * reached the overall limit.
     */
    failed(address: string | undefined): { failures: number; overallReached: boolean } {
      const now = clock.now();
      forgetOld(now);
      const key = addressKey(address);
      const times = (failures.get(key) ?? []).filter((t) => t > now - limits.windowMs);
      times.push(now);
      if (times.length > limits.perAddress) times.shift();
      touch(failures, key, times);
      const before = waitFor(overall, limits.overall, now);
      overall.push(now);
      if (overall.length > limits.overall) overall.shift();
      return { failures: times.length, overallReached: before === 0 && waitFor(overall, limits.overall, now) > 0 };
    },
    /** A sign-in that worked: the address's failures are forgotten, and it is exempt from the overall limit. */
    succeeded(address: string | undefined): void {
      const now = clock.now();
      const key = addressKey(address);
      failures.delete(key);
      touch(signedIn, key, now);
      forgetOld(now);
    },
    /** How many addresses are remembered (failures and sign-ins): what the memory bound caps. */
    get addresses(): number {
      return failures.size + signedIn.size;
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;

/**
 * The address a limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6
 * address by its /64 — one subscriber's network, whose addresses an attacker rotates through for
 * free — and anything else (a forwarded header that is not an address) as one shared "other".
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return 'other';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const kind = isIP(address);
  if (kind === 4) return address;
  if (kind !== 6) return 'other';
  const [head = '', tail] = address.toLowerCase().split('%', 1)[0]!.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const front = groups(head);
  const back = groups(tail);
  // An embedded IPv4 tail (::1.2.3.4) is two groups, beyond the first four either way.
  const width = (list: string[]) => list.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const full = tail === undefined ? front : [...front, ...Array<string>(8 - width(front) - width(back)).fill('0'), ...back];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
