import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { countingStatements } from '../../src/lib/sql.js';
import { loadConfig } from '../../src/partner/config.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';
import { freshDatabase, ON_POSTGRES, rowOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { bearer, candidateBody } from '../support/partner.js';

/**
 * What one send costs the database, its background work included: the callback (token, test,
 * insert), the start, the report's first update delivered to the platform and recorded with the
 * acceptance, and the e-mail sent. Counted as `npm run bench` counts it (`countingStatements`:
 * each statement, and each transaction's BEGIN and COMMIT), where on PostgreSQL each is a round trip.
 */
describe('a send and its background work, in round trips', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it('when a candidate is sent and the platform accepts the first update, then everything up to the e-mail takes 9 round trips on PostgreSQL (21 statements on SQLite), and no loop is woken for nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'send-round-trips-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    // The platform, accepting every report update.
    const patches: string[] = [];
    const platform: Server = createServer((req, res) => {
      patches.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => platform.close(() => resolve())));

    const config = loadConfig({
      ...(await freshDatabase(dir)),
      PORT: '0',
      LOG_LEVEL: 'silent',
      PLATFORM_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      PARTNER_SECRET: 'a-partner-secret-of-the-platform',
    });
    const counter = { statements: 0 };
    // No polling: every run of a background loop is one something woke.
    const partner = await main(config, { sql: (sql) => countingStatements(sql, counter), pollIntervalMs: 3_600_000 });
    let closed = false;
    cleanup.push(async () => void (closed || (await partner.close())));
    // A connection of the test's own, not counted: the customer, and what the partner stored.
    const database = await openPartnerDatabase(config);
    cleanup.push(() => database.close());
    const accounts = accountStore(database.sql, systemClock);
    const { account, token } = await accounts.create('Acme');
    const [test] = await database.sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['JavaScript']));
    await accounts.bindCompany(account, 3);

    const { port } = partner.server.address() as AddressInfo;
    const send = async () => {
      const body = candidateBody({ test_id: String(test!.id) });
      const res = await fetch(`http://127.0.0.1:${port}/callbacks/send_candidate`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      // The last of its background work: the e-mail, sent once the platform accepted the report.
      await eventually(async () => expect((await rowOf(database.sql, 'SELECT status FROM mail_outbox WHERE report_id = ?', body.report_id))?.status).toBe('sent'), {
        what: `the e-mail of ${body.report_id}`,
      });
    };

    // The first send after the start-up's runs, its connections opened and its templates read.
    await send();
    const before = counter.statements;
    await send();
    // Stopped: a loop still running (woken with nothing to do) has sent what it would.
    await partner.close();
    closed = true;

    expect(patches).toHaveLength(2);
    expect(counter.statements - before).toBe(ON_POSTGRES ? 9 : 21);
  });
});
