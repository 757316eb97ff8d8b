import { afterEach, describe, expect, it } from 'vitest';
import type { Provider, ProviderKit } from '../../src/partner/index.js';
import { startHarness, type Harness } from '../../src/testing/index.js';

/**
 * The harness's `env` is "as in .env": a provider that reads its own settings from `process.env`
 * — when it is built, or when it is called — sees them during the harness's life, and the test
 * process has them no longer once it is closed.
 */
const PRODUCT = 'HARNESS_ENV_PRODUCT_URL';
const TEST = 'HARNESS_ENV_TEST_NAME';

/** A provider that reads one setting when the kit builds it and another each time it lists tests. */
const readsItsSettings = (kit: ProviderKit): Provider => {
  const productUrl = process.env[PRODUCT] ?? `${PRODUCT} is not set`;
  return {
    kind: kit.kind,
    listTests: async () => [{ id: 'typing', name: `${process.env[TEST] ?? `${TEST} is not set`} at ${productUrl}` }],
    startInvitation: async (invitation) => ({ candidateUrl: `${productUrl}/take/${invitation.reportId}` }),
  };
};

const open: Harness[] = [];
afterEach(async () => {
  for (const harness of open.splice(0)) await harness.close();
  delete process.env[PRODUCT];
  delete process.env[TEST];
});

describe('the harness\'s env option', () => {
  it('reaches the provider through process.env, when it is built and when it is called, until close() puts back what was there', async () => {
    process.env[TEST] = 'set by the test process';
    const harness = await startHarness({ provider: readsItsSettings, env: { [PRODUCT]: 'https://product.example', [TEST]: 'Typing speed' } });
    open.push(harness);
    expect(await harness.listTests()).toEqual([{ id: 'typing', name: 'Typing speed at https://product.example' }]);

    await open.pop()!.close();
    expect(process.env[PRODUCT]).toBeUndefined();
    expect(process.env[TEST]).toBe('set by the test process');
  });

  it('lets two harnesses run at once when they agree, and refuses a second that would change the first\'s', async () => {
    const first = await startHarness({ provider: readsItsSettings, env: { [PRODUCT]: 'https://one.example', [TEST]: 'Typing speed' } });
    open.push(first);
    await expect(startHarness({ provider: readsItsSettings, env: { [PRODUCT]: 'https://two.example' } })).rejects.toThrow(
      `Another harness still running set ${PRODUCT} to another value`,
    );
    const second = await startHarness({ provider: readsItsSettings, env: { [PRODUCT]: 'https://one.example' } });
    open.push(second);
    expect(await second.listTests()).toEqual([{ id: 'typing', name: 'Typing speed at https://one.example' }]);

    // The first closes: what the second set stays, what only the first set goes.
    await open.shift()!.close();
    expect(process.env[PRODUCT]).toBe('https://one.example');
    expect(process.env[TEST]).toBeUndefined();
    await open.shift()!.close();
    expect(process.env[PRODUCT]).toBeUndefined();
  });
});
