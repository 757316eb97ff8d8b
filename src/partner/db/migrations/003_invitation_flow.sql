-- Issue 4: what happens after send_candidate. The candidate's progress and result live on the
-- invitation (the kit's record of a report); e-mail and report updates go through outboxes written
-- in the same transaction as the change they announce, and workers drain them.

ALTER TABLE invitations ADD COLUMN opened_at TEXT;
-- The candidate's submission: a quiz's answers, or a check's consent.
ALTER TABLE invitations ADD COLUMN submitted_at TEXT;
ALTER TABLE invitations ADD COLUMN completed_at TEXT;
ALTER TABLE invitations ADD COLUMN score TEXT;
ALTER TABLE invitations ADD COLUMN subtitle TEXT;
ALTER TABLE invitations ADD COLUMN properties TEXT NOT NULL DEFAULT '[]';
ALTER TABLE invitations ADD COLUMN canceled_at TEXT;
ALTER TABLE invitations ADD COLUMN canceled_by TEXT CHECK (canceled_by IN ('platform', 'vendor'));

-- The demo provider's questions, per test. Choices are a JSON array of strings; `answer` is the
-- index of the right one.
CREATE TABLE demo_questions (
  id          INTEGER PRIMARY KEY,
  test_id     INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  prompt      TEXT NOT NULL,
  choices     TEXT NOT NULL,
  answer      INTEGER NOT NULL,
  UNIQUE (test_id, position)
);

-- What a candidate answered in a demo test: JSON {question id: choice index}.
CREATE TABLE demo_answers (
  report_id   TEXT PRIMARY KEY REFERENCES invitations(report_id) ON DELETE CASCADE,
  answers     TEXT NOT NULL,
  correct     INTEGER NOT NULL,
  total       INTEGER NOT NULL,
  created_at  TEXT NOT NULL
) WITHOUT ROWID;

-- E-mail to send. A row holds the intent (which e-mail, for which invitation); the message is
-- rendered when it is sent, so the link's lifetime starts then. `file` is where the JSON transport
-- wrote it.
CREATE TABLE mail_outbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  report_id        TEXT NOT NULL REFERENCES invitations(report_id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN ('invitation')),
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'skipped', 'dead')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT NOT NULL,
  give_up_at       TEXT NOT NULL,
  last_error       TEXT,
  recipient        TEXT,
  subject          TEXT,
  message_id       TEXT,
  file             TEXT,
  sent_at          TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_by_report ON mail_outbox(report_id);

-- Report updates to PATCH to the platform, in the order they were queued (`id`). `body` is the
-- part of the report this change sets. A report's pending updates are sent oldest first and
-- together (see src/reports/README.md); attempts, next attempt and the give-up time live here so a
-- restart resumes where it stopped.
CREATE TABLE report_updates (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  report_id        TEXT NOT NULL REFERENCES invitations(report_id) ON DELETE CASCADE,
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
CREATE INDEX report_updates_pending ON report_updates(report_id, id) WHERE status = 'pending';
CREATE INDEX report_updates_due ON report_updates(next_attempt_at) WHERE status = 'pending';
CREATE INDEX report_updates_by_report ON report_updates(report_id, id);
CREATE INDEX report_updates_by_status ON report_updates(status, id);

-- Every request the delivery worker made: what was sent, what came back. It covers the updates
-- first_update_id..last_update_id of one report.
CREATE TABLE report_update_attempts (
  id               INTEGER PRIMARY KEY,
  report_id        TEXT NOT NULL REFERENCES invitations(report_id) ON DELETE CASCADE,
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
CREATE INDEX report_update_attempts_by_report ON report_update_attempts(report_id, id);
CREATE INDEX report_update_attempts_by_time ON report_update_attempts(started_at);
CREATE INDEX report_updates_settled ON report_updates(updated_at) WHERE status IN ('delivered', 'superseded', 'canceled');
