import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import type { PartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { discardDatabase, endKeptConnections, freshDatabase, openTestDatabase, rowsOf, type DatabaseTemplate } from '../support/database.js';
import { eventually } from '../support/eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'recycled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = async (template: DatabaseTemplate): Promise<{ url: string; database: PartnerDatabase }> => {
  const settings = await freshDatabase(dir, template);
  return { url: settings.DATABASE_URL!, database: await openTestDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL }) };
};

/** The server process behind the database's connection: the same one for a connection kept open. */
const backend = async (database: PartnerDatabase) => (await database.sql.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
/** Whether the server still has that process (a connection not yet closed), seen from another connection. */
const connected = async (database: PartnerDatabase, pid: number) =>
  (await rowsOf(database.sql, 'SELECT 1 FROM pg_stat_activity WHERE pid = ?', pid)).length > 0;
const giveBack = ({ url, database }: { url: string; database: PartnerDatabase }) => discardDatabase(database, { DATABASE_URL: url });

/**
 * Ends the server process `pid` from a process of its own, and waits for it to be gone
 * (`pg_terminate_backend`'s timeout), with this process's event loop held meanwhile.
 */
function terminatedMeanwhile(url: string, pid: number): void {
  const script = `import pg from 'pg';
    const client = new pg.Client(process.argv[1]);
    await client.connect();
    const { rows } = await client.query('SELECT pg_terminate_backend($1, 60000) AS ended', [Number(process.argv[2])]);
    await client.end();
    if (!rows[0].ended) process.exit(1);`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script, url, String(pid)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Every table's rows but the migrations' bookkeeping, by table. */
async function contents(database: PartnerDatabase): Promise<Record<string, number>> {
  const tables = await rowsOf(database.sql, "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename");
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name as string] = Number((await rowsOf(database.sql, `SELECT count(*) AS n FROM ${name as string}`))[0]!.n);
  return counts;
}

/** A customer with a test of the demo catalog (its questions too): rows in accounts, account_tokens, tests, demo_questions. */
async function customer(database: PartnerDatabase) {
  return database.sql.transaction(async (tx) => {
    const { account } = await accountStore(tx, systemClock).create('Acme', tx);
    const [test] = await addDemoTests(tx, systemClock, account.id, ['JavaScript']);
    return { accountId: account.id, testId: test!.id };
  });
}

// The tests' databases are given back and emptied for the next test (test/support/database.ts): a
// test must not see what the one before it left, nor get a database whose schema a test changed.
describe("the tests' PostgreSQL databases, given back", () => {
  it('come back empty, their ids counted from the start again, as a new copy of the template is', async () => {
    const first = await open('demo');
    const before = await contents(first.database);
    const made = await customer(first.database);
    expect(Object.values(await contents(first.database)).some((n) => n > 0)).toBe(true);
    await giveBack(first);

    const again = await open('demo');
    expect(again.url).toBe(first.url);
    expect(await contents(again.database)).toEqual(before);
    expect(Object.values(before).every((n) => n === 0)).toBe(true);
    expect(await customer(again.database)).toEqual(made);
    await giveBack(again);
  });

  it('are every one given back, not only the first copy the worker made', async () => {
    // Two at once: the second is a copy of its own, made by another CREATE DATABASE.
    const both = [await open('demo'), await open('demo')];
    const urls = both.map((d) => d.url);
    expect(new Set(urls).size).toBe(2);
    for (const d of both) await giveBack(d);
    const again = [await open('demo'), await open('demo')];
    expect(again.map((d) => d.url).sort()).toEqual([...urls].sort());
    for (const d of again) await giveBack(d);
  });

  it('are given only to a test asking for the template they match (the kit\'s has none of the demo\'s tables)', async () => {
    const demo = await open('demo');
    await giveBack(demo);
    const kit = await open('kit');
    expect(kit.url).not.toBe(demo.url);
    expect(Object.keys(await contents(kit.database)).filter((t) => t.startsWith('demo_'))).toEqual([]);
    await giveBack(kit);
    expect((await open('demo').then(async (d) => (await giveBack(d), d.url)))).toBe(demo.url);
  });

  it('come with the connections the test before left open, until its file ends', async () => {
    const first = await open('demo');
    const pid = await backend(first.database);
    await giveBack(first);

    const again = await open('demo');
    expect(again.url).toBe(first.url);
    expect(await backend(again.database)).toBe(pid);
    await giveBack(again);

    // As test/support/postgres-file.ts does after each file: the next file's test gets new ones.
    await endKeptConnections();
    const next = await open('demo');
    expect(next.url).toBe(first.url);
    expect(await backend(next.database)).not.toBe(pid);
    await eventually(async () => expect(await connected(next.database, pid)).toBe(false), { what: 'the kept connection to close' });
    await giveBack(next);
  });

  it('whose kept connection the server ended meanwhile (a restart, an administrator) still serve the next test, on a new connection', async () => {
    const first = await open('demo');
    const pid = await backend(first.database);
    await giveBack(first);
    // Ended from another process, while this one waits: the kept pool cannot have read the end
    // from its socket when the next test asks for the database, as on a busy machine. The first
    // query sent on that connection is refused; the harness asks the kept pool before handing it out.
    const admin = await open('kit');
    terminatedMeanwhile(admin.url, pid);
    const again = await open('demo');
    expect(again.url).toBe(first.url);
    expect(await backend(again.database)).not.toBe(pid);
    expect(Object.values(await contents(again.database)).every((n) => n === 0)).toBe(true);
    await giveBack(again);
    await giveBack(admin);
  });

  it('are closed, connections and all, when the test changed their catalog', async () => {
    const changed = await open('demo');
    const pid = await backend(changed.database);
    await changed.database.sql.exec('CREATE TABLE my_products (id TEXT PRIMARY KEY)');
    await giveBack(changed);
    const next = await open('demo');
    expect(next.url).not.toBe(changed.url);
    await eventually(async () => expect(await connected(next.database, pid)).toBe(false), { what: 'the changed database’s connection to close' });
    await giveBack(next);
  });

  it.each([
    ['a trigger', 'CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION \'no\'; END $$; CREATE TRIGGER refuse BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION refuse()'],
    ['a trigger it dropped again', 'CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION \'no\'; END $$; CREATE TRIGGER refuse BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION refuse(); DROP TRIGGER refuse ON accounts'],
    ['a table', 'CREATE TABLE my_products (id TEXT PRIMARY KEY)'],
    ['a column', 'ALTER TABLE accounts ADD COLUMN note TEXT'],
    ['an index', 'CREATE INDEX left_by_a_test ON accounts (name, created_at)'],
    ['a grant', 'GRANT SELECT ON accounts TO PUBLIC'],
    ['an attribute of the database', 'DO $$ BEGIN EXECUTE format(\'ALTER DATABASE %I CONNECTION LIMIT 50\', current_database()); END $$'],
    ['a setting of the database', 'DO $$ BEGIN EXECUTE format(\'ALTER DATABASE %I SET statement_timeout = 1\', current_database()); END $$'],
    ['a migration it recorded', "INSERT INTO schema_migrations (name, applied_at) VALUES ('mine/001_products.sql', 'now')"],
  ])('are not given again when the test left %s', async (_what, statement) => {
    const changed = await open('demo');
    await changed.database.sql.exec(statement);
    await giveBack(changed);
    const next = await open('demo');
    expect(next.url).not.toBe(changed.url);
    await giveBack(next);
  });
});
