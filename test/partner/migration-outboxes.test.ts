import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { sqliteSql } from '../../src/lib/sql.js';
import { openDb } from '../../src/partner/db/open.js';
import { mailOutbox } from '../../src/partner/mail/outbox.js';
import { updateOutbox } from '../../src/partner/updates/outbox.js';

const MIGRATIONS = fileURLToPath(new URL('../../src/partner/db/migrations/', import.meta.url));
const REPORT = '3f2a1c9e-8b7d-4e6f-a5b4-c3d2e1f0a9b8';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database as the version before 003 left it, with an invitation, its e-mail, its updates and a delivery attempt. */
function databaseAtVersion2(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'migration-003-'));
  dirs.push(dir);
  const older = path.join(dir, 'migrations');
  mkdirSync(older);
  for (const f of ['001_initial.sql', '002_vendor_progress.sql']) copyFileSync(path.join(MIGRATIONS, f), path.join(older, f));
  const file = path.join(dir, 'partner.db');
  const db = openDb(file, { migrationsDir: older });
  const at = '2026-11-23T10:00:00.000Z';
  db.prepare("INSERT INTO accounts (id, name, created_at) VALUES (1, 'Acme', ?)").run(at);
  db.prepare(
    `INSERT INTO invitations (id, report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email, created_at, updated_at)
     VALUES (7, ?, 1, 1, 17, '1', 'Logic', 'Ada', 'Lovelace', 'ada@example.com', ?, ?)`,
  ).run(REPORT, at, at);
  db.prepare(
    `INSERT INTO mail_outbox (id, report_id, kind, status, next_attempt_at, give_up_at, recipient, created_at, updated_at)
     VALUES (4, ?, 'invitation', 'sent', ?, ?, 'ada@example.com', ?, ?)`,
  ).run(REPORT, at, at, at, at);
  const update = db.prepare(
    `INSERT INTO report_updates (id, report_id, body, status, next_attempt_at, give_up_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  update.run(10, REPORT, '{"urls":{"show":"http://partner.test/results"}}', 'delivered', at, at, at, at);
  update.run(11, REPORT, '{"status":"completed","score":"80%"}', 'pending', at, at, at, at);
  // An update pruned since: AUTOINCREMENT must not hand its id out again.
  update.run(12, REPORT, '{"status":"canceled"}', 'superseded', at, at, at, at);
  db.prepare('DELETE FROM report_updates WHERE id = 12').run();
  db.prepare(
    `INSERT INTO report_update_attempts (report_id, first_update_id, last_update_id, request_body, response_status, outcome, started_at, duration_ms)
     VALUES (?, 10, 10, '{}', 200, 'delivered', ?, 12)`,
  ).run(REPORT, at);
  db.close();
  return file;
}

describe('migration 003: the outboxes find their invitation by row id', () => {
  it('keeps every e-mail, update and attempt with its id, links each to its invitation, and reads them by report as before', async () => {
    const db = openDb(databaseAtVersion2());
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(3);
    expect(db.prepare('SELECT id, invitation_id, report_id, recipient FROM mail_outbox').all()).toEqual([
      { id: 4, invitation_id: 7, report_id: REPORT, recipient: 'ada@example.com' },
    ]);
    expect(db.prepare('SELECT id, invitation_id, status FROM report_updates ORDER BY id').all()).toEqual([
      { id: 10, invitation_id: 7, status: 'delivered' },
      { id: 11, invitation_id: 7, status: 'pending' },
    ]);
    expect(db.prepare('SELECT invitation_id, report_id, response_status FROM report_update_attempts').all()).toEqual([
      { invitation_id: 7, report_id: REPORT, response_status: 200 },
    ]);

    const clock: Clock = { now: () => Date.parse('2026-11-23T11:00:00.000Z') };
    const sql = sqliteSql(db);
    const reports = updateOutbox(sql, clock);
    expect((await reports.pendingOf(REPORT)).map((u) => u.body)).toEqual([{ status: 'completed', score: '80%' }]);
    expect((await reports.attemptsOf(REPORT)).map((a) => a.responseStatus)).toEqual([200]);
    expect((await mailOutbox(sql, clock).ofReport(REPORT)).map((m) => m.id)).toEqual([4]);
    // Ids go on after the highest ever handed out, the pruned one included.
    expect(await sql.transaction((tx) => reports.enqueue(tx, REPORT, { status: 'canceled' }))).toBe(13);
    db.close();
  });

  it('leaves no index keyed by report_id on the outboxes, and deleting an invitation still deletes what it queued', () => {
    const db = openDb(databaseAtVersion2());
    const indexed = db
      .prepare<[], { tbl: string; col: string }>(
        `SELECT m.name AS tbl, i.name AS col FROM sqlite_master m, pragma_index_list(m.name) l, pragma_index_info(l.name) i
          WHERE m.type = 'table' AND m.name IN ('mail_outbox', 'report_updates', 'report_update_attempts')`,
      )
      .all();
    expect(indexed.filter((i) => i.col === 'report_id')).toEqual([]);
    expect(indexed).toContainEqual({ tbl: 'report_updates', col: 'invitation_id' });

    db.prepare('DELETE FROM invitations WHERE report_id = ?').run(REPORT);
    const left = (table: string) => db.prepare(`SELECT count(*) AS n FROM ${table}`).get();
    expect([left('mail_outbox'), left('report_updates'), left('report_update_attempts')]).toEqual([{ n: 0 }, { n: 0 }, { n: 0 }]);
    db.close();
  });

  it('refuses to queue for a report it has no invitation for, and stores nothing', async () => {
    const db = openDb(databaseAtVersion2());
    const sql = sqliteSql(db);
    const clock: Clock = { now: () => Date.now() };
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(sql.transaction((tx) => updateOutbox(sql, clock).enqueue(tx, missing, { status: 'canceled' }))).rejects.toThrow(/No invitation for report/);
    await expect(sql.transaction((tx) => mailOutbox(sql, clock).enqueue(tx, missing, 'invitation'))).rejects.toThrow(/No invitation for report/);
    expect(db.prepare('SELECT count(*) AS n FROM report_updates WHERE report_id = ?').get(missing)).toEqual({ n: 0 });
    db.close();
  });
});

/** A database as the version before 004 left it: three invitations, at three points of their way. */
function databaseAtVersion3(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'migration-004-'));
  dirs.push(dir);
  const older = path.join(dir, 'migrations');
  mkdirSync(older);
  for (const f of ['001_initial.sql', '002_vendor_progress.sql', '003_outboxes_by_invitation.sql']) copyFileSync(path.join(MIGRATIONS, f), path.join(older, f));
  const file = path.join(dir, 'partner.db');
  const db = openDb(file, { migrationsDir: older });
  const at = '2026-11-23T10:00:00.000Z';
  db.prepare("INSERT INTO accounts (id, name, created_at) VALUES (1, 'Acme', ?)").run(at);
  const invitation = db.prepare(
    `INSERT INTO invitations (id, report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email, started_at, created_at, updated_at)
     VALUES (?, ?, 1, 1, 17, '1', 'Logic', 'Ada', 'Lovelace', 'ada@example.com', ?, ?, ?)`,
  );
  const mail = db.prepare(
    `INSERT INTO mail_outbox (invitation_id, report_id, kind, status, next_attempt_at, give_up_at, created_at, updated_at)
     VALUES (?, ?, 'invitation', ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    `INSERT INTO report_updates (invitation_id, report_id, body, status, delivered_at, next_attempt_at, give_up_at, created_at, updated_at)
     VALUES (?, ?, '{"urls":{}}', ?, ?, ?, ?, ?, ?)`,
  );
  // 1: the platform took its first update, and the candidate was e-mailed.
  invitation.run(1, 'r-delivered', at, at, at);
  update.run(1, 'r-delivered', 'delivered', '2026-11-23T10:00:05.000Z', at, at, at, at);
  mail.run(1, 'r-delivered', 'sent', at, at, at, at);
  // 2: e-mailed long ago; its delivered updates pruned since.
  invitation.run(2, 'r-mailed', at, at, '2026-11-23T10:30:00.000Z');
  mail.run(2, 'r-mailed', 'sent', at, at, at, at);
  // 3: the first update and the e-mail both still waiting.
  invitation.run(3, 'r-waiting', at, at, at);
  update.run(3, 'r-waiting', 'pending', null, at, at, at, at);
  mail.run(3, 'r-waiting', 'pending', at, at, at, at);
  db.close();
  return file;
}

describe('migration 004: the invitation e-mail waits for the platform to accept the report', () => {
  it('counts the reports the platform took an update of, or whose candidate was e-mailed, as accepted; an e-mail still waiting on the rest is dropped, to be queued on acceptance', () => {
    const db = openDb(databaseAtVersion3());
    expect(db.prepare('SELECT report_id, platform_accepted_at, cancel_reason FROM invitations ORDER BY id').all()).toEqual([
      { report_id: 'r-delivered', platform_accepted_at: '2026-11-23T10:00:05.000Z', cancel_reason: null },
      { report_id: 'r-mailed', platform_accepted_at: '2026-11-23T10:30:00.000Z', cancel_reason: null },
      { report_id: 'r-waiting', platform_accepted_at: null, cancel_reason: null },
    ]);
    expect(db.prepare('SELECT report_id, status FROM mail_outbox ORDER BY id').all()).toEqual([
      { report_id: 'r-delivered', status: 'sent' },
      { report_id: 'r-mailed', status: 'sent' },
    ]);
    expect(db.prepare('SELECT report_id, status FROM report_updates ORDER BY id').all()).toEqual([
      { report_id: 'r-delivered', status: 'delivered' },
      { report_id: 'r-waiting', status: 'pending' },
    ]);
    db.close();
  });
});
