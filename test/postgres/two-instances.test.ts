import jwt from 'jsonwebtoken';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { DELIVERY_CONCURRENCY } from '../../src/partner/updates/policy.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { eventually } from '../support/eventually.js';
import { roundRobin, startPartnerProcess, type PartnerProcess } from '../support/net.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';
import { smtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { ACME, CANDIDATES } from '../reports/support.js';

const CODENAME = 'kit-two-instances';
/**
 * Enough for the restart and the kill to land among sends, deliveries and e-mails in flight on both
 * instances (16 at a time); 1,000 took the run twice as long and exercised nothing more.
 */
const SENDS = 500;
/** One send in five is sent again with the same report id: a platform retrying. */
const REPLAY_EVERY = 5;
const VENDOR_SECRET = 'two-instances-vendor-secret-0123456789abcdef';
/** What the mail sender claims at a time (src/partner/mail/sender.ts): what a kill may send twice. */
const MAIL_BATCH = 20;
/** The mock platform's second company, and a candidate of it. */
const GLOBEX_ID = 2;
const GLOBEX_CANDIDATE = 31;
/** Each instance's pool (src/lib/sql.ts): the connections a PostgreSQL restart can break under it. */
const POOL_SIZE = 10;

interface Call {
  report_id: string;
  response_status: number | null;
  request_body: string | null;
}

describe('two partner instances on one PostgreSQL database, behind one address', () => {
  let mock: RunningMockPlatform;
  let sink: SmtpSink;
  let front: Awaited<ReturnType<typeof roundRobin>>;
  let dir: string;
  let database: PartnerDatabase;
  const instances: PartnerProcess[] = [];
  /** A server of its own: it is restarted mid-load, which would break the other test files' queries. */
  let postgres: RunningPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
    mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
    sink = await smtpSink();
    front = await roundRobin();
    dir = mkdtempSync(path.join(tmpdir(), 'two-instances-'));
  });
  afterAll(async () => {
    for (const i of instances) i.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.exited));
    await database?.close();
    await mock.close();
    await sink.close();
    await front.close();
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('500 sends from two companies with replays, PostgreSQL restarted a quarter in, one instance killed halfway: each acknowledged send stored once, each update and e-mail delivered, in order, none lost', async () => {
    const settings = { DATABASE_PATH: path.join(dir, 'partner.db'), DATABASE_URL: await postgres.createDatabase('two_instances') };
    const registered = await registerPartner({
      platformUrl: mock.url,
      codename: CODENAME,
      companyId: ACME.id,
      apiToken: ACME.apiToken,
      partner: loadManifest(DEFAULT_MANIFEST, front.url),
    });
    if (!registered.ok) throw new Error(registered.message);
    const env = {
      DATABASE_URL: settings.DATABASE_URL!,
      PUBLIC_URL: front.url,
      PLATFORM_URL: mock.url,
      PARTNER_CODENAME: CODENAME,
      PARTNER_SECRET: registered.partner.secret,
      CANDIDATE_LINK_SECRET: 'two-instances-link-secret-0123456789abcdef',
      VENDOR_RESULTS_SECRET: VENDOR_SECRET,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      // A killed instance's claims are taken over after 5 s, not the default 2 minutes.
      JOB_LEASE_SECONDS: '5',
    };

    // Both instances start together on the new database: one applies the migrations, the other waits.
    instances.push(startPartnerProcess(env), startPartnerProcess(env));
    front.to(await Promise.all(instances.map((i) => i.port)));

    // Two customers, each a company of the platform with an account of its own, created as the
    // accounts CLI creates them, from a third connection.
    database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL }, { provider: DEMO_MIGRATIONS });
    const { sql } = database;
    const count = async (query: string) => (await sql.get<{ n: number }>(query))!.n;
    const customers: { company: number; test: { id: number; name: string }; candidates: readonly number[] }[] = [];
    for (const { company, name, candidates } of [
      { company: ACME.id, name: 'Acme Corp', candidates: CANDIDATES },
      { company: GLOBEX_ID, name: 'Globex Ltd', candidates: [GLOBEX_CANDIDATE] },
    ]) {
      const { account, token } = await accountStore(sql, systemClock).create(name);
      const [test] = await sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['JavaScript fundamentals']));
      await request(mock.url).post(`/api/marketplace/c/${company}/partners/${CODENAME}/integration`).send({ token }).expect(201);
      customers.push({ company, test: test!, candidates });
    }
    /** Each report's company: the platform's paths name it. */
    const companyOf = new Map<string, number>();

    // The platform sends, 16 at a time; every fifth report is sent again at once (a retry). A
    // quarter in, PostgreSQL restarts under both instances (`pg_ctl restart -m fast`: every
    // connection ended); half way, one instance is killed: no shutdown, whatever it held in hand.
    const acknowledged = new Set<string>();
    let replays = 0;
    /** Sends the platform got no yes to: in flight on the instance that died, or refused (503) while PostgreSQL was away. */
    const unanswered: string[] = [];
    let restarted: Promise<void> | undefined;
    const send = async (i: number, reportId?: string) => {
      // The two companies in turn.
      const { company, test, candidates } = customers[i % customers.length]!;
      const res = await request(mock.url)
        .post(`/api/marketplace/c/${company}/partners/${CODENAME}/send`)
        .send({ candidate_id: candidates[i % candidates.length], test_id: test.id, test_name: test.name, ...(reportId && { report_id: reportId }) });
      // 201 for a new report, 200 for a report sent again: the partner said yes either way.
      if (res.status !== (reportId ? 200 : 201)) {
        // The platform's "problem": the connection to the partner broke, or the partner answered 503
        // while its database was away. Anything else is a failure.
        expect(res.body, JSON.stringify(res.body)).toMatchObject({ outcome: 'problem' });
        unanswered.push(res.body.error as string);
        return undefined;
      }
      acknowledged.add(res.body.report.id as string);
      companyOf.set(res.body.report.id as string, company);
      return res.body.report.id as string;
    };
    let next = 0;
    const lane = async () => {
      while (next < SENDS) {
        const i = next++;
        if (i === SENDS / 4) restarted = postgres.restart();
        if (i === SENDS / 2) {
          instances[0]!.child.kill('SIGKILL');
          await instances[0]!.exited;
        }
        const reportId = await send(i);
        // Refused while PostgreSQL was down: the lane goes on once it is back, as a platform's retry would.
        if (!reportId && restarted) await restarted;
        if (reportId && i % REPLAY_EVERY === 0) {
          replays += 1;
          await send(i, reportId);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, lane));
    expect(replays).toBeGreaterThanOrEqual(SENDS / REPLAY_EVERY - 16);
    // Only requests on connections to the killed instance, or refused while PostgreSQL restarted
    // (one per lane before it waits, and one per connection each pool held when the server went
    // away), can have gone unanswered.
    const refusable = SENDS / 50 + 16 + 2 * POOL_SIZE;
    expect(unanswered.length).toBeLessThanOrEqual(refusable);
    expect(acknowledged.size).toBeGreaterThanOrEqual(SENDS - refusable);
    // The partners stayed up through the restart: only the killed one exited.
    expect(instances[1]!.child.exitCode).toBeNull();

    // Each company's sends are stored under its own account: at least those acknowledged (a send
    // the killed instance stored but could not answer is stored and unacknowledged).
    const byCompany = await sql.all<{ company_id: number; n: number }>(
      'SELECT i.company_id, count(*) AS n FROM invitations i JOIN accounts a ON a.id = i.account_id AND a.company_id = i.company_id GROUP BY i.company_id ORDER BY i.company_id',
    );
    expect(byCompany.map((r) => r.company_id)).toEqual([ACME.id, GLOBEX_ID]);
    for (const { company_id, n } of byCompany) expect(n).toBeGreaterThanOrEqual([...companyOf.values()].filter((c) => c === company_id).length);
    // Every acknowledged send is stored, once: the replays created nothing.
    const stored = await sql.all<{ report_id: string }>('SELECT report_id FROM invitations');
    expect(new Set(stored.map((r) => r.report_id)).size).toBe(stored.length);
    for (const id of acknowledged) expect(stored.some((r) => r.report_id === id)).toBe(true);

    // The vendor's product finishes one report in ten (completed) through either instance, and the
    // platform cancels one in twenty: reports then carry a status after their links.
    const ids = [...acknowledged];
    const completed = ids.filter((_, i) => i % 10 === 1);
    const canceled = ids.filter((_, i) => i % 20 === 2);
    for (const reportId of completed) {
      const body = JSON.stringify({ status: 'completed', score: '90%' });
      await request(front.url)
        .post(`/vendor/reports/${reportId}/result`)
        .set('content-type', 'application/json')
        .set(VENDOR_SIGNATURE_HEADER, signVendorResult(VENDOR_SECRET, reportId, body))
        .send(body)
        .expect(200);
    }
    // The platform offers a cancel once the report's links reached it (the restart held some back).
    await eventually(
      async () => {
        for (const reportId of canceled) {
          const { body } = await request(mock.url).get(`/api/marketplace/c/${companyOf.get(reportId)}/reports/${reportId}`).expect(200);
          expect(body.report.urls?.cancel, reportId).toBeDefined();
        }
      },
      { what: 'the links of every report to cancel delivered', timeoutMs: 480_000, intervalMs: 250 },
    );
    for (const reportId of canceled) {
      await request(mock.url).post(`/api/marketplace/c/${companyOf.get(reportId)}/reports/${reportId}/cancel`).expect(202);
    }

    // The surviving instance takes over what the killed one had claimed once its leases run out.
    await eventually(
      async () => {
        expect(await count(`SELECT count(*) AS n FROM invitations WHERE started_at IS NULL AND status = 'sent'`)).toBe(0);
        expect(await count(`SELECT count(*) AS n FROM mail_outbox WHERE status = 'pending'`)).toBe(0);
        expect(await count(`SELECT count(*) AS n FROM report_updates WHERE status = 'pending'`)).toBe(0);
      },
      { what: 'every start, e-mail and report update done', timeoutMs: 480_000, intervalMs: 250 },
    );
    // The only dead letters: a send the killed instance stored but whose answer never reached the
    // platform, which hid the report and answers its first update 404. Its invitation is canceled,
    // and its candidate never e-mailed (the platform first, updates/policy.ts).
    const dead = await sql.all<{ report_id: string; last_status: number }>(`SELECT report_id, last_status FROM report_updates WHERE status = 'dead'`);
    expect(dead.length).toBeLessThanOrEqual(unanswered.length);
    for (const { report_id, last_status } of dead) {
      expect(acknowledged.has(report_id), report_id).toBe(false);
      expect(last_status).toBe(404);
      expect(await sql.get('SELECT status, canceled_by FROM invitations WHERE report_id = $1', [report_id])).toEqual({ status: 'canceled', canceled_by: 'platform' });
      expect(await sql.all('SELECT id FROM mail_outbox WHERE report_id = $1', [report_id])).toEqual([]);
    }

    // No e-mail lost: each candidate still owed one got it. Sent twice at most: the batch the
    // killed instance had sent and not recorded, and the batch each instance had sent when the
    // restart ended the connection its record went on (recorded by nobody, sent again after the lease).
    const owed = await sql.all<{ report_id: string }>(`SELECT report_id FROM mail_outbox WHERE status = 'sent'`);
    const received = sink.messages.map(reportOfMail);
    for (const { report_id } of owed) expect(received).toContain(report_id);
    const twice = received.length - new Set(received).size;
    expect(twice).toBeLessThanOrEqual(3 * MAIL_BATCH);
    // No start was dropped: every acknowledged report not canceled had its e-mail sent, unless the
    // vendor completed it first (the candidate has nothing left to take): before the e-mail went
    // out, which skipped it, or before the platform accepted the report, which the e-mail waits for
    // and which then queued none. A restart holding the platform's acceptance back makes both likely.
    const mails = new Map(
      (await sql.all<{ report_id: string; status: string; last_error: string | null }>('SELECT report_id, status, last_error FROM mail_outbox')).map((m) => [m.report_id, m]),
    );
    const invitations = new Map(
      (await sql.all<{ report_id: string; completed_at: string | null; platform_accepted_at: string | null }>('SELECT report_id, completed_at, platform_accepted_at FROM invitations')).map((i) => [
        i.report_id,
        i,
      ]),
    );
    for (const reportId of acknowledged) {
      if (canceled.includes(reportId)) continue;
      const mail = mails.get(reportId);
      if (mail?.status === 'sent') continue;
      expect(completed, reportId).toContain(reportId);
      if (mail) {
        expect(mail, reportId).toEqual({ report_id: reportId, status: 'skipped', last_error: 'the invitation is completed' });
      } else {
        const { completed_at, platform_accepted_at } = invitations.get(reportId)!;
        expect(completed_at! <= platform_accepted_at!, `${reportId}: completed ${completed_at}, accepted ${platform_accepted_at}`).toBe(true);
      }
    }

    // Every update delivered, in order, once per status: per report, the platform took its links
    // first and its status once; only requests in flight when the instance died, or whose answer
    // could not be recorded while PostgreSQL restarted (on either instance), can come twice.
    const calls: (Call & { id: number })[] = [];
    for (let page: (Call & { id: number })[] = []; ; ) {
      const after = page.length ? `&after_id=${page.at(-1)!.id}` : '';
      page = (await request(mock.url).get(`/_mock/calls?direction=inbound&endpoint=reports.update&order=asc&limit=1000${after}`).expect(200)).body.calls;
      calls.push(...page.filter((c) => c.response_status === 200 && c.request_body));
      if (page.length < 1000) break;
    }
    let repeated = 0;
    for (const reportId of ids) {
      const sent = calls.filter((c) => c.report_id === reportId).map((c) => JSON.parse(c.request_body!) as { status?: string; urls?: object });
      const statuses = sent.map((u) => u.status).filter((s) => s !== undefined);
      const expected = completed.includes(reportId) ? ['completed'] : canceled.includes(reportId) ? ['canceled'] : [];
      repeated += statuses.length - new Set(statuses).size + Math.max(0, sent.filter((u) => u.status === undefined).length - 1);
      expect([...new Set(statuses)], reportId).toEqual(expected);
      // The links came first (with or merged into the first request), never after the status.
      expect(sent[0]?.urls, reportId).toBeDefined();
      const { body: platform } = await request(mock.url).get(`/api/marketplace/c/${companyOf.get(reportId)}/reports/${reportId}`).expect(200);
      expect(platform.report.status, reportId).toBe(expected[0] ?? 'sent');
    }
    expect(repeated).toBeLessThanOrEqual(3 * DELIVERY_CONCURRENCY);
    for (const i of instances) expect(i.output()).not.toContain(registered.partner.secret);
  }, 600_000);
});

/** The report an invitation e-mail is for: the subject of its candidate link's token. */
function reportOfMail(message: string): string {
  // Quoted-printable: soft line breaks and escaped `=` undone before the link is read.
  const text = message.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const token = /\/take\?token=([\w-]+\.[\w-]+\.[\w-]+)/.exec(text)?.[1];
  const claims = token ? jwt.decode(token) : null;
  if (!claims || typeof claims !== 'object' || typeof claims.sub !== 'string') throw new Error(`no candidate link in:\n${text.slice(0, 2000)}`);
  return claims.sub;
}
