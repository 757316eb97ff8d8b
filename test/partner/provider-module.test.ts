import { describe, expect, it } from 'vitest';
import { importProviderModule, ProviderModuleError, providerModuleOf } from '../../src/partner/provider/module.js';

const provider = { kind: 'assessment', listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'https://product.example/t' }) };

describe("the vendor's module, src/provider/index.ts", () => {
  it('as shipped, hands on the demo: a factory with the demo\'s migrations', async () => {
    const shipped = await importProviderModule();
    expect(typeof shipped.provider).toBe('function');
    expect((shipped.provider as { migrations?: { prefix: string } }).migrations?.prefix).toBe('demo');
  });

  it('takes a provider or a factory, with its optional webhook handlers and routes', () => {
    const handlers = { new_candidate: () => 'seen' };
    const routes = () => {};
    expect(providerModuleOf({ default: provider })).toEqual({ provider, webhookHandlers: undefined, routes: undefined });
    expect(providerModuleOf({ default: () => provider, webhookHandlers: handlers, routes })).toMatchObject({ webhookHandlers: handlers, routes });
  });

  it.each([
    ['no default export', {}, 'default export must be your provider'],
    ['a default export that is no provider', { default: { kind: 'assessment' } }, 'default export must be your provider'],
    ['a handler that is no function', { default: provider, webhookHandlers: { new_candidate: 'yes' } }, 'webhookHandlers must map'],
    ['routes that are no function', { default: provider, routes: [] }, 'routes must be a function'],
  ])('refuses %s, naming the file and what is wrong', (_what, exported, problem) => {
    expect(() => providerModuleOf(exported)).toThrow(ProviderModuleError);
    expect(() => providerModuleOf(exported)).toThrow(new RegExp(`^src/provider/index\\.ts: .*${problem}`));
  });
});
