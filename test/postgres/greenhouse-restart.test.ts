import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { INITECH, KATHERINE, sendFromGreenhouse } from '../e2e/support.js';
import { eventually, present } from '../support/eventually.js';
import { fakeVendorProduct, type FakeVendorProduct } from '../support/fake-vendor-product.js';
import { REFUSED_URL, startPartnerProcess, type PartnerProcess } from '../support/net.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';

const SECRET = 'greenhouse-restart-results-secret-0123456789';
const PATCH_ENDPOINT = 'greenhouse.take_home_tests.update';

/**
 * Where the partner PATCHes Greenhouse (the mock's public address): a door in front of the mock
 * that holds the connections it accepts while it is shut, and forwards them once it is open. A
 * PATCH it holds has not reached Greenhouse.
 */
async function door(to: () => number) {
  let open = false;
  const held: Socket[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (!open) return void held.push(socket);
    const upstream = connect(to(), '127.0.0.1');
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Connections held while shut, oldest first. */
    held: () => held.length,
    /** Resets the connections held: their requests fail as a network that dropped them, never answered. */
    resetHeld: () => held.forEach((socket) => socket.resetAndDestroy()),
    open: () => void (open = true),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The partner's log lines saying a run of its report delivery failed (the run and its recording, not one request). */
const deliveryRunsFailed = (output: string) => (output.match(/"loop":"report delivery".*"msg":"background work failed"/g) ?? []).length;

// A server of its own: restarting the one the other test files share would break their queries.
describe('Greenhouse, a product that hosts its tests, and PostgreSQL restarted while a PATCH is due', () => {
  let postgres: RunningPostgres;
  let mock: RunningMockPlatform;
  let product: FakeVendorProduct;
  let greenhouse: Awaited<ReturnType<typeof door>>;
  let partner: PartnerProcess;
  let database: PartnerDatabase;
  let dir: string;
  beforeAll(async () => {
    postgres = await startPostgres();
    product = await fakeVendorProduct({ secret: SECRET });
    greenhouse = await door(() => (mock.server.address() as AddressInfo).port);
    mock = await startMockPlatform({ port: 0, logLevel: 'silent', publicUrl: greenhouse.url });
    dir = mkdtempSync(path.join(tmpdir(), 'greenhouse-restart-'));
  }, 60_000);
  afterAll(async () => {
    partner?.child.kill('SIGKILL');
    await partner?.exited;
    await database?.close();
    await Promise.all([mock?.close(), product?.close(), greenhouse?.close()]);
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the PATCH for a result stored before the restart reaches Greenhouse once, after it, and Greenhouse shows the score', async () => {
    const databaseUrl = await postgres.createDatabase('greenhouse');
    // The example's own entry point, as a vendor runs it (examples/hosted-provider/server.ts).
    partner = startPartnerProcess(
      {
        DATABASE_URL: databaseUrl,
        DATABASE_PATH: path.join(dir, 'partner.db'),
        PRODUCT_URL: product.url,
        VENDOR_RESULTS_SECRET: SECRET,
        PLATFORM_URL: REFUSED_URL,
        // What this instance claimed before the restart is due again this long after the claim.
        JOB_LEASE_SECONDS: '5',
      },
      ['--import', 'tsx', 'examples/hosted-provider/server.ts'],
    );
    const partnerUrl = `http://127.0.0.1:${await partner.port}`;
    database = await openPartnerDatabase({ databasePath: path.join(dir, 'partner.db'), databaseUrl });
    const { token } = await accountStore(database.sql, systemClock).create('Initech');
    // Greenhouse's partnerships team configures the partner, with the customer's key.
    await request(mock.url).post(`/api/greenhouse/companies/${INITECH}/partner`).send({ name: 'Hosted tests', api_key: token, base_url: partnerUrl }).expect(200);

    // A recruiter sends the product's first test; the partner asks the product to create it.
    const interviewId = await sendFromGreenhouse(mock.url);
    await eventually(() => present(product.assessment(interviewId), 'assessment'), { what: 'the product to create the test' });

    // The candidate finishes: the result is stored and its PATCH queued; the partner sends it, and
    // the door holds it.
    expect(await product.finish(interviewId, { status: 'completed', score: '87%' })).toEqual({ status: 200, body: { id: interviewId, status: 'completed' } });
    await eventually(() => expect(greenhouse.held()).toBe(1), { what: 'the PATCH to be sent' });

    await postgres.restart(async () => {
      // Down: the PATCH's connection drops, unanswered, and what the partner would record of it
      // cannot be. The PATCH stays due.
      const failedBefore = deliveryRunsFailed(partner.output());
      greenhouse.resetHeld();
      await eventually(() => expect(deliveryRunsFailed(partner.output())).toBeGreaterThan(failedBefore), {
        what: 'the delivery run to fail on the database',
      });
    });
    // Greenhouse is reachable from now on: whatever reaches it came after the restart.
    greenhouse.open();

    const delivered = async () =>
      (await database.sql.all<{ status: string }>('SELECT u.status FROM report_updates u JOIN invitations i ON i.id = u.invitation_id WHERE i.report_id = $1', [interviewId])).map(
        (u) => u.status,
      );
    // The result's update delivered, and nothing left to send (the start's, which Greenhouse hears
    // nothing of, settled without a request or with the result's, as the two came in time).
    await eventually(
      async () => {
        const statuses = await delivered();
        expect(statuses.at(-1)).toBe('delivered');
        expect(statuses.every((s) => s === 'delivered' || s === 'superseded'), statuses.join()).toBe(true);
      },
      { what: 'the PATCH to be delivered', timeoutMs: 60_000 },
    );
    const page = await eventually(
      async () => {
        const res = await request(mock.url).get(`/greenhouse/companies/${INITECH}/candidates/${KATHERINE}`).expect(200);
        expect(res.text).toContain('>complete</span>');
        return res.text;
      },
      { what: 'Greenhouse to read the result after the PATCH' },
    );
    expect(page).toMatch(/<span class="score"[^>]*>87<\/span>/);

    // Once: one PATCH reached Greenhouse, answered 200; the one the restart caught never arrived.
    const calls = await request(mock.url).get(`/_mock/calls?endpoint=${PATCH_ENDPOINT}`).expect(200);
    expect(calls.body.calls.map((c: { response_status: number }) => c.response_status)).toEqual([200]);
    expect(greenhouse.held()).toBe(1);
    expect(partner.output()).not.toContain('"msg":"unhandled error"');
  }, 180_000);
});
