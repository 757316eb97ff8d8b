-- The outboxes (mail_outbox, report_updates) and the delivery log find their invitation by its row
-- id instead of its report_id. A report_id is a random UUID, so every index keyed by it takes its
-- new entry on a random page; a started invitation queued an e-mail and a report update with three
-- such entries, three of the four to five pages each start wrote to the WAL. Row ids grow with
-- every invitation, so these indexes only ever grow at their end, like the tables.
--
-- report_id stays in each row, unindexed: it never changes, the delivery worker builds the
-- report's URL from it, and a row read on its own (the dashboard, sqlite3 at a prompt) says which
-- report it is for. Lookups by report go through invitations' report_id index first.
--
-- SQLite cannot change a column's foreign key in place: each table is rebuilt, rows, ids and
-- AUTOINCREMENT counters kept.

CREATE TABLE mail_outbox_new (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  invitation_id    INTEGER NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
  report_id        TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('invitation')),
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'skipped', 'dead')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT NOT NULL,
  give_up_at       TEXT NOT NULL,
  last_error       TEXT,
  recipient        TEXT,
  subject          TEXT,
  message_id       TEXT,
  message          TEXT,
  sent_at          TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
INSERT INTO mail_outbox_new
  SELECT m.id, i.id, m.report_id, m.kind, m.status, m.attempts, m.next_attempt_at, m.give_up_at, m.last_error,
         m.recipient, m.subject, m.message_id, m.message, m.sent_at, m.created_at, m.updated_at
    FROM mail_outbox m JOIN invitations i ON i.report_id = m.report_id;
-- AUTOINCREMENT's counter: ids pruned since are never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'mail_outbox_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'mail_outbox_new', seq FROM sqlite_sequence WHERE name = 'mail_outbox';
DROP TABLE mail_outbox;
ALTER TABLE mail_outbox_new RENAME TO mail_outbox;
CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_by_invitation ON mail_outbox(invitation_id);

CREATE TABLE report_updates_new (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  invitation_id    INTEGER NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
  report_id        TEXT NOT NULL,
  body             TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'delivered', 'dead', 'canceled', 'superseded')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT NOT NULL,
  give_up_at       TEXT NOT NULL,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
INSERT INTO report_updates_new
  SELECT u.id, i.id, u.report_id, u.body, u.status, u.attempts, u.next_attempt_at, u.give_up_at, u.last_status,
         u.last_error, u.delivered_at, u.created_at, u.updated_at
    FROM report_updates u JOIN invitations i ON i.report_id = u.report_id;
-- AUTOINCREMENT's counter: ids pruned since are never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'report_updates_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'report_updates_new', seq FROM sqlite_sequence WHERE name = 'report_updates';
DROP TABLE report_updates;
ALTER TABLE report_updates_new RENAME TO report_updates;
-- A report's updates in queue order; its pending ones are read through this one too (a report
-- has a handful of rows), where a second, partial index would cost every update another entry.
CREATE INDEX report_updates_by_invitation ON report_updates(invitation_id, id);
CREATE INDEX report_updates_due ON report_updates(next_attempt_at) WHERE status = 'pending';
CREATE INDEX report_updates_by_status ON report_updates(status, id);
CREATE INDEX report_updates_settled ON report_updates(updated_at) WHERE status IN ('delivered', 'superseded', 'canceled');

CREATE TABLE report_update_attempts_new (
  id               INTEGER PRIMARY KEY,
  invitation_id    INTEGER NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
  report_id        TEXT NOT NULL,
  first_update_id  INTEGER NOT NULL,
  last_update_id   INTEGER NOT NULL,
  request_body     TEXT NOT NULL,
  response_status  INTEGER,
  response_body    TEXT,
  error            TEXT,
  outcome          TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'dead')),
  next_attempt_at  TEXT,
  started_at       TEXT NOT NULL,
  duration_ms      INTEGER NOT NULL
);
INSERT INTO report_update_attempts_new
  SELECT a.id, i.id, a.report_id, a.first_update_id, a.last_update_id, a.request_body, a.response_status,
         a.response_body, a.error, a.outcome, a.next_attempt_at, a.started_at, a.duration_ms
    FROM report_update_attempts a JOIN invitations i ON i.report_id = a.report_id;
DROP TABLE report_update_attempts;
ALTER TABLE report_update_attempts_new RENAME TO report_update_attempts;
CREATE INDEX report_update_attempts_by_invitation ON report_update_attempts(invitation_id, id);
CREATE INDEX report_update_attempts_by_time ON report_update_attempts(started_at);
