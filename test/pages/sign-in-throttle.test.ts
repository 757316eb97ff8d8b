import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressKey, SIGN_IN_LIMITS, signInThrottle } from '../../src/partner/pages/sign-in-throttle.js';
import { ADMIN, flowHarness, type FlowHarness } from '../invitations/support.js';
import { fakeClock } from '../support/partner.js';
import { capturedLogger } from '../support/log.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const WINDOW_SECONDS = SIGN_IN_LIMITS.windowMs / 1000;

describe('signing in to the dashboard, with wrong passwords in between', () => {
  let h: FlowHarness;
  let log: ReturnType<typeof capturedLogger>;
  beforeEach(async () => {
    log = capturedLogger();
    // Behind a proxy the partner trusts, so that each request says which client it comes from.
    h = await flowHarness({ env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterEach(() => h.close());

  const signIn = (address: string, password: string, user: string = ADMIN.username) =>
    h.http().get('/admin').set('X-Forwarded-For', address).set('Authorization', basic(user, password));
  const wrong = async (address: string, times: number) => {
    for (let i = 0; i < times; i++) expect((await signIn(address, `guess-${i}`)).status, `wrong password ${i + 1} from ${address}`).toBe(401);
  };

  it('when one address has sent 10 wrong passwords, then its next attempts answer 429 with Retry-After, the right password too, until the window has passed', async () => {
    await wrong('203.0.113.5', SIGN_IN_LIMITS.perAddress);

    const refused = await signIn('203.0.113.5', 'guess-again');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(WINDOW_SECONDS));
    expect(refused.headers['www-authenticate']).toBeUndefined();
    expect(refused.text).toContain('Too many wrong sign-ins to the dashboard: try again in 15 minutes.');
    // Looking at the password now would tell a guesser when it is right.
    expect((await signIn('203.0.113.5', ADMIN.password)).status).toBe(429);

    h.clock.advance(5 * 60_000);
    expect((await signIn('203.0.113.5', ADMIN.password)).headers['retry-after']).toBe(String(WINDOW_SECONDS - 5 * 60));
    // Another client is not held up by it.
    expect((await signIn('198.51.100.7', ADMIN.password)).status).toBe(200);

    h.clock.advance(10 * 60_000);
    expect((await signIn('203.0.113.5', ADMIN.password)).status).toBe(200);
  });

  it('when wrong passwords come from many addresses, then past 100 a new address answers 429, while an operator who signed in before keeps working', async () => {
    expect((await signIn('192.0.2.10', ADMIN.password)).status).toBe(200);
    for (let n = 1; n <= SIGN_IN_LIMITS.overall / SIGN_IN_LIMITS.perAddress; n++) await wrong(`198.18.0.${n}`, SIGN_IN_LIMITS.perAddress);

    const refused = await signIn('198.18.1.1', ADMIN.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect((await signIn('192.0.2.10', ADMIN.password)).status).toBe(200);
    expect(log.entries().filter((e) => String(e.msg).startsWith('dashboard sign-ins are refused for a while'))).toHaveLength(1);

    h.clock.advance(SIGN_IN_LIMITS.windowMs);
    expect((await signIn('198.18.1.1', ADMIN.password)).status).toBe(200);
  });

  it('when a signed-in operator works, then no request is slowed, and a successful sign-in clears the wrong ones before it', async () => {
    await wrong('192.0.2.10', SIGN_IN_LIMITS.perAddress - 1);
    expect((await signIn('192.0.2.10', ADMIN.password)).status).toBe(200);
    await wrong('192.0.2.10', SIGN_IN_LIMITS.perAddress - 1);
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress + 5; i++) expect((await signIn('192.0.2.10', ADMIN.password)).status).toBe(200);
  });

  it('when a wrong sign-in is refused, then the log says from which address, and never what was sent', async () => {
    await signIn('203.0.113.9', 'hunter2-hunter2', 'root');
    const line = log.entries().find((e) => e.msg === 'dashboard sign-in refused: wrong credentials');
    expect(line).toMatchObject({ level: 'warn', address: '203.0.113.9', failures: 1, limit: SIGN_IN_LIMITS.perAddress });
    const all = log.lines.join('');
    for (const leaked of ['hunter2', 'root', basic('root', 'hunter2-hunter2').slice(6)]) expect(all).not.toContain(leaked);
  });

  it('when the addresses rotate within one IPv6 /64, or are not addresses at all, then they share one limit', async () => {
    for (let i = 1; i <= SIGN_IN_LIMITS.perAddress; i++) expect((await signIn(`2001:db8:1:2::${i.toString(16)}`, 'guess')).status).toBe(401);
    expect((await signIn('2001:db8:1:2:ffff:ffff:ffff:ffff', ADMIN.password)).status).toBe(429);
    expect((await signIn('2001:db8:1:3::1', ADMIN.password)).status).toBe(200);

    for (let i = 1; i <= SIGN_IN_LIMITS.perAddress; i++) expect((await signIn(`not-an-address-${i}`, 'guess')).status).toBe(401);
    expect((await signIn('not-an-address-at-all', ADMIN.password)).status).toBe(429);
  });

  it('when a locked-out browser asks without credentials, then it gets the sign-in prompt, as any browser does', async () => {
    await wrong('203.0.113.5', SIGN_IN_LIMITS.perAddress);
    const res = await h.http().get('/admin').set('X-Forwarded-For', '203.0.113.5');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
  });
});

describe('what the sign-in limits remember', () => {
  it('when an attacker rotates addresses for days, then the addresses remembered stay within the overall limit', () => {
    const clock = fakeClock();
    const throttle = signInThrottle(clock);
    let most = 0;
    for (let i = 0; i < 50_000; i++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      // As the dashboard does: an attempt that must wait is not looked at, nor counted.
      if (throttle.retryAfter(address) === 0) throttle.failed(address);
      most = Math.max(most, throttle.addresses);
      clock.advance(5_000);
    }
    expect(most).toBeLessThanOrEqual(SIGN_IN_LIMITS.overall);
  });

  it('when no overall limit stops them, then at most maxAddresses addresses are remembered, the oldest forgotten first', () => {
    const clock = fakeClock();
    const limits = { ...SIGN_IN_LIMITS, overall: Number.MAX_SAFE_INTEGER, maxAddresses: 1000 };
    const throttle = signInThrottle(clock, limits);
    for (let i = 0; i < 20_000; i++) throttle.failed(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.addresses).toBe(1000);
  });

  it('when the limits are documented, then docs/report-delivery.md gives the numbers the code has', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/report-delivery.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Signing in'));
    expect(section).toContain(`over the last ${SIGN_IN_LIMITS.windowMs / 60_000} minutes`);
    expect(section).toContain(`**${SIGN_IN_LIMITS.perAddress} from one client address**`);
    expect(section).toContain(`**${SIGN_IN_LIMITS.overall} from all addresses together**`);
    expect(section).toContain(`within the last ${SIGN_IN_LIMITS.signedInMs / 3_600_000} hours`);
    expect(section).toContain(`at most ${SIGN_IN_LIMITS.maxAddresses.toLocaleString('en')} addresses`);
  });

  it('reads an address as a limit counts it', () => {
    expect(addressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('2001:db8:1:2::a')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:ffff:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('x'.repeat(5000))).toBe('other');
    expect(addressKey(undefined)).toBe('other');
  });
});
