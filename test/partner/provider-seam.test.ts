import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProvider, partnerCore } from '../../src/partner/assemble.js';
import { systemClock } from '../../src/lib/clock.js';
import { ConfigError } from '../../src/partner/config.js';
import { openDb, type Db } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { ProviderFactory } from '../../src/partner/provider/types.js';

describe('a provider brought in by the kit', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'provider-seam-'));
    db = openDb(path.join(dir, 'partner.db'));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const kit = (kind: PartnerKind = 'assessment') => ({
    db,
    clock: systemClock,
    kind,
    logger: createLogger('silent'),
    publicUrl: 'http://partner.test',
    candidateUrl: (id: string) => `http://partner.test/take/${id}`,
    reports: partnerCore(db, systemClock, { kind }).results,
  });
  const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];

  it('the kit alone has none of the demo\'s tables; building the demo applies its migrations once, tracked by name', () => {
    expect(tables().filter((t) => t.startsWith('demo_'))).toEqual([]);
    buildProvider(demoProvider(), kit());
    buildProvider(demoProvider(), kit());
    expect(tables()).toEqual(expect.arrayContaining(['demo_answers', 'demo_questions', 'schema_migrations']));
    expect(db.prepare('SELECT name FROM schema_migrations').pluck().all()).toEqual(['demo/001_demo_tables.sql']);
    // The kit's own sequence is still counted by user_version (its newest file), untouched by the provider's.
    const kitLatest = Math.max(...readdirSync(new URL('../../src/partner/db/migrations/', import.meta.url)).map((f) => Number.parseInt(f, 10)));
    expect(db.pragma('user_version', { simple: true })).toBe(kitLatest);
  });

  it('a database whose demo tables came with the kit\'s old first migration keeps them and their rows', () => {
    db.exec('CREATE TABLE demo_questions (id INTEGER PRIMARY KEY, test_id INTEGER, position INTEGER, prompt TEXT, choices TEXT, answer INTEGER)');
    db.exec("INSERT INTO demo_questions (test_id, position, prompt, choices, answer) VALUES (1, 1, 'kept?', '[]', 0)");
    buildProvider(demoProvider(), kit());
    expect(db.prepare('SELECT prompt FROM demo_questions').pluck().all()).toEqual(['kept?']);
  });

  it('a provider\'s migrations apply in order, a new one on the next start only', () => {
    const migrations = path.join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(path.join(migrations, '001_products.sql'), 'CREATE TABLE my_products (id TEXT PRIMARY KEY);');
    const factory: ProviderFactory = Object.assign(
      (k: ReturnType<typeof kit>) => ({ kind: k.kind, listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'x' }) }),
      { migrations: { dir: migrations, prefix: 'mine' } },
    );
    buildProvider(factory, kit());
    writeFileSync(path.join(migrations, '002_more.sql'), "INSERT INTO my_products (id) VALUES ('a');");
    buildProvider(factory, kit());
    buildProvider(factory, kit());
    expect(db.prepare('SELECT id FROM my_products').pluck().all()).toEqual(['a']);
    expect(db.prepare('SELECT name FROM schema_migrations ORDER BY name').pluck().all()).toEqual(['mine/001_products.sql', 'mine/002_more.sql']);
  });

  it('a provider of another kind than PARTNER_KIND stops start-up with a ConfigError naming it', () => {
    const checks = { kind: 'background_check' as const, listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'x' }) };
    expect(() => buildProvider(checks, kit('assessment'))).toThrow(ConfigError);
    expect(() => buildProvider(checks, kit('assessment'))).toThrow(/PARTNER_KIND: is assessment, but the provider is a background_check provider/);
    expect(buildProvider(checks, kit('background_check')).kind).toBe('background_check');
  });
});
