import { ESLint } from 'eslint';
import path from 'node:path';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The halves' boundary and the provider's are two copies of one rule (eslint.config.js). */
const RULES = ['no-restricted-imports', '@typescript-eslint/no-restricted-imports'];
/**
 * The project's own ESLint configuration, without the rules that need types (the import rules do
 * not), running the import rules alone: the others' messages would be dropped, and took most of the
 * time of linting the tree.
 */
const importLinter = () => new ESLint({ cwd: ROOT, overrideConfig: [tseslint.configs.disableTypeChecked], ruleFilter: ({ ruleId }) => RULES.includes(ruleId) });

/**
 * Lints `code` as if it were the file at `filePath`, with the project's own ESLint configuration.
 * The file does not exist, so no TypeScript project holds it: the rules that need types are off
 * (the import rules do not). A file that fails to parse throws rather than passing with no messages.
 */
async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await importLinter().lintText(code, { filePath: path.join(ROOT, filePath) });
  const fatal = result?.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${filePath} could not be linted: ${fatal.message}`);
  return (result?.messages ?? []).filter((m) => RULES.includes(m.ruleId ?? '')).map((m) => m.message);
}

describe('the import boundaries between the halves', () => {
  it('refuses a mock platform module that imports partner code', async () => {
    const messages = await restrictedImports('src/mock-platform/x.ts', "export { accountStore } from '../partner/accounts/store.js';\n");
    expect(messages).toEqual([expect.stringContaining('never partner code')]);
  });

  it('refuses a partner module that imports the mock platform', async () => {
    const messages = await restrictedImports('src/partner/accounts/x.ts', "export { SEED_COMPANIES } from '../../mock-platform/seed.js';\n");
    expect(messages).toEqual([expect.stringContaining('deployed without the mock')]);
  });

  it('refuses shared code that imports either half', async () => {
    expect(await restrictedImports('src/lib/x.ts', "export { loadConfig } from '../partner/config.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/contract/x.ts', "export { SEED_COMPANIES } from '../mock-platform/seed.js';\n")).toHaveLength(1);
  });

  it('lets only the vendor\'s folder and the public entry name the demo provider', async () => {
    const code = "export { demoProvider } from './provider/demo/index.js';\n";
    expect(await restrictedImports('src/partner/x.ts', code)).toEqual([expect.stringContaining("Only the vendor's folder")]);
    expect(await restrictedImports('src/partner/server.ts', code)).toHaveLength(1);
    expect(await restrictedImports('src/partner/pages/x.ts', "export { DEMO_CATALOG } from '../provider/demo/catalog.js';\n")).toHaveLength(1);
    expect(await restrictedImports('scripts/accounts.ts', "export { addDemoTests } from '../src/partner/provider/demo/catalog.js';\n")).toHaveLength(1);
    expect(await restrictedImports('scripts/dev.ts', "export { demoProvider } from '../src/partner/provider/demo/index.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/partner/index.ts', code)).toEqual([]);
    expect(await restrictedImports('src/partner/provider/demo/x.ts', "export { questionsFor } from './questions.js';\n")).toEqual([]);
    expect(await restrictedImports('src/provider/index.ts', "export { demoProvider } from '../partner/index.js';\n")).toEqual([]);
    // The mock boundary still holds where the demo rule applies.
    expect(await restrictedImports('src/partner/x.ts', "export { SEED_COMPANIES } from '../mock-platform/seed.js';\n")).toHaveLength(1);
  });

  it('lets the vendor\'s folder import the kit\'s public entry and its own files only, and its tests the harness too', async () => {
    const allowed = "export { startPartner } from '../partner/index.js';\nexport { mine } from './mine.js';\nexport { z } from 'zod';\n";
    expect(await restrictedImports('src/provider/index.ts', allowed)).toEqual([]);
    expect(await restrictedImports('src/provider/product/client.ts', "export { startPartner } from '../../partner/index.js';\nexport { x } from '../index.js';\n")).toEqual([]);
    expect(await restrictedImports('src/provider/index.test.ts', "export { startSandbox } from '../testing/index.js';\n")).toEqual([]);
    for (const [file, code] of [
      ['src/provider/index.ts', "export { buildProvider } from '../partner/assemble.js';\n"],
      ['src/provider/index.ts', "export { systemClock } from '../lib/clock.js';\n"],
      ['src/provider/index.ts', "export { demoProvider } from '../partner/provider/demo/index.js';\n"],
      ['src/provider/index.ts', "export { startSandbox } from '../testing/index.js';\n"],
      ['src/provider/index.test.ts', "export { startMockPlatform } from '../mock-platform/server.js';\n"],
      ['src/provider/product/client.ts', "export { loadConfig } from '../../partner/config.js';\n"],
      ['src/provider/a/b/c.test.ts', "export { SEED_COMPANIES } from '../../../mock-platform/seed.js';\n"],
    ]) {
      expect(await restrictedImports(file!, code!), `${file}: ${code}`).toEqual([expect.stringContaining('src/provider/')]);
    }
  });

  it('lets each half import the contract and the shared library', async () => {
    const code = "export { systemClock } from '../lib/clock.js';\nexport { Codename } from '../contract/schemas.js';\n";
    expect(await restrictedImports('src/mock-platform/x.ts', code)).toEqual([]);
    expect(await restrictedImports('src/partner/x.ts', code)).toEqual([]);
  });

  it('keeps the conformance checker to the contract, the library and the mock\'s entry points', async () => {
    const allowed =
      "export { runConformance } from './run.js';\n" +
      "export { exchange } from '../contract/partner-calls.js';\n" +
      "export { startMockPlatform } from '../mock-platform/server.js';\n" +
      "export { SEED_API_TOKENS } from '../mock-platform/seed.js';\n";
    expect(await restrictedImports('src/conformance/x.ts', allowed)).toEqual([]);
    expect(await restrictedImports('src/conformance/x.ts', "export { main } from '../partner/server.js';\n")).toEqual([
      expect.stringContaining('never partner code'),
    ]);
    expect(await restrictedImports('src/conformance/x.ts', "export { partnerClient } from '../mock-platform/marketplace/partner-client.js';\n")).toHaveLength(1);
  });

  it('keeps the checker out of the partner, the mock and the shared code', async () => {
    const code = "export { runConformance } from '../conformance/run.js';\n";
    expect(await restrictedImports('src/partner/x.ts', code)).toHaveLength(1);
    expect(await restrictedImports('src/mock-platform/x.ts', code)).toHaveLength(1);
    expect(await restrictedImports('src/contract/x.ts', code)).toHaveLength(1);
  });
});

describe('the platforms', () => {
  it('keeps every module of the core from importing a platform\'s folder: it knows one through platforms/platform.ts and the registry', async () => {
    for (const [file, code] of [
      ['src/partner/invitations/x.ts', "export { hiringPlatform } from '../platforms/hiring-platform/index.js';\n"],
      ['src/partner/pages/x.ts', "export { WEBHOOK_PATH } from '../platforms/hiring-platform/webhooks/receiver.js';\n"],
      ['src/partner/updates/x.ts', "export { statusOf } from '../platforms/greenhouse/status.js';\n"],
      ['src/partner/app.ts', "export { registerCallbacks } from './platforms/hiring-platform/callbacks.js';\n"],
      // No exception for the modules that put the partner together: they are given the registry's definitions.
      ['src/partner/index.ts', "export { hiringPlatform } from './platforms/hiring-platform/index.js';\n"],
      ['src/partner/config.ts', "export { GreenhouseSettings } from './platforms/greenhouse/settings.js';\n"],
      ['src/partner/openapi.ts', "export { greenhouseApi } from './platforms/greenhouse/api.js';\n"],
      ['src/partner/assemble.ts', "export { greenhousePlatform } from './platforms/greenhouse/index.js';\n"],
      ['src/partner/start.ts', "export type { WebhookHandler } from './platforms/hiring-platform/webhooks/handlers/index.js';\n"],
      ['src/partner/provider/module.ts', "export type { WebhookHandler } from '../platforms/hiring-platform/webhooks/handlers/index.js';\n"],
    ]) {
      expect(await restrictedImports(file!, code!), `${file}: ${code}`).toEqual([expect.stringContaining('The core knows no platform')]);
    }
    const seam = "export type { Platform } from '../platforms/platform.js';\n";
    expect(await restrictedImports('src/partner/updates/x.ts', seam)).toEqual([]);
    // The registry is the one way to the platforms.
    expect(await restrictedImports('src/partner/assemble.ts', "export { kitPlatforms } from './platforms/index.js';\n")).toEqual([]);
    expect(await restrictedImports('src/partner/config.ts', "export { kitPlatforms } from './platforms/index.js';\n")).toEqual([]);
  });

  it('holds in the tree as it is: no module of src/partner outside platforms/ imports a platform\'s folder', async () => {
    const results = await importLinter().lintFiles(['src/partner/**/*.ts']);
    const core = results.filter((r) => !path.relative(ROOT, r.filePath).startsWith(path.join('src', 'partner', 'platforms')));
    expect(core.length).toBeGreaterThan(50);
    const crossings = core.flatMap((r) =>
      r.messages.filter((m) => m.message.includes('The core knows no platform')).map((m) => `${path.relative(ROOT, r.filePath)}: ${m.message}`),
    );
    expect(crossings).toEqual([]);
  });

  it('keeps a platform from importing another, at every depth of its folder, and lets it import the core and its own files', async () => {
    for (const [file, code] of [
      ['src/partner/platforms/greenhouse/x.ts', "export { registerCallbacks } from '../hiring-platform/callbacks.js';\n"],
      ['src/partner/platforms/hiring-platform/x.ts', "export { statusOf } from '../greenhouse/status.js';\n"],
      ['src/partner/platforms/hiring-platform/webhooks/x.ts', "export { statusOf } from '../../greenhouse/status.js';\n"],
      ['src/partner/platforms/hiring-platform/webhooks/handlers/x.ts', "export { statusOf } from '../../../greenhouse/status.js';\n"],
      ['src/partner/platforms/third/a/b/c/x.ts', "export { statusOf } from '../../../../greenhouse/status.js';\n"],
    ]) {
      expect(await restrictedImports(file!, code!), `${file}: ${code}`).toEqual([expect.stringContaining('never another platform')]);
    }
    const allowed =
      "export type { Platform } from '../platform.js';\n" +
      "export { invitationLinks } from '../../invitations/links.js';\n" +
      "export { isoAt } from '../../../lib/clock.js';\n" +
      "export { statusOf } from './status.js';\n";
    expect(await restrictedImports('src/partner/platforms/greenhouse/x.ts', allowed)).toEqual([]);
    const deeper = "export { Platform } from '../../platform.js';\nexport { isoAt } from '../../../../lib/clock.js';\nexport { x } from '../inbox.js';\n";
    expect(await restrictedImports('src/partner/platforms/hiring-platform/webhooks/handlers/x.ts', deeper.replace('../../platform.js', '../../../platform.js'))).toEqual([]);
    // The halves' boundary still holds in a platform's folder.
    expect(await restrictedImports('src/partner/platforms/greenhouse/x.ts', "export { SEED_COMPANIES } from '../../../mock-platform/seed.js';\n")).toEqual([
      expect.stringContaining('deployed without the mock'),
    ]);
  });
});
