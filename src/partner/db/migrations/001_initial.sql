-- The partner's schema. Later changes go in new numbered files beside this one (db/open.ts applies
-- them in order; PRAGMA user_version records the last one applied).

-- Customer accounts: one per customer of the vendor. An account is bound to the platform company
-- that integrated with its token (validate_token); until then company_id is NULL.
CREATE TABLE accounts (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  company_id   INTEGER,
  bound_at     TEXT,
  created_at   TEXT NOT NULL
);
CREATE INDEX accounts_by_company ON accounts(company_id);

-- Customer tokens. Only the SHA-256 digest is stored; `lookup` is the token's non-secret key id,
-- used to find the row before the digest is compared in constant time.
CREATE TABLE account_tokens (
  id           INTEGER PRIMARY KEY,
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  lookup       TEXT NOT NULL UNIQUE,
  digest       BLOB NOT NULL,
  created_at   TEXT NOT NULL,
  revoked_at   TEXT
);
CREATE INDEX account_tokens_by_account ON account_tokens(account_id);

-- Each account's tests, as `GET /callbacks/tests` lists them.
CREATE TABLE tests (
  id           INTEGER PRIMARY KEY,
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  created_at   TEXT NOT NULL
);
CREATE INDEX tests_by_account ON tests(account_id, id);

-- A counter that every write to accounts, tokens and tests bumps, from any connection or process.
-- The in-memory read caches (db/read-cache.ts) compare it on each use and empty themselves when it
-- moved, so a token revoked by the CLI stops working at once and a new test shows up at once.
CREATE TABLE read_cache_generation (n INTEGER NOT NULL);
INSERT INTO read_cache_generation (n) VALUES (0);
CREATE TRIGGER accounts_insert_bumps AFTER INSERT ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER accounts_update_bumps AFTER UPDATE ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER accounts_delete_bumps AFTER DELETE ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_insert_bumps AFTER INSERT ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_update_bumps AFTER UPDATE ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_delete_bumps AFTER DELETE ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_insert_bumps AFTER INSERT ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_update_bumps AFTER UPDATE ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_delete_bumps AFTER DELETE ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;

-- One invitation per platform report. report_id is the platform's UUID and the idempotency key of
-- send_candidate. `started_at` is set once the provider has started the candidate's test; the
-- starter picks up invitations not started yet, so a crash after the answer loses nothing. The
-- candidate's progress and result live here too; e-mails and report updates go through outboxes
-- written in the same transaction as the change they announce.
--
-- A rowid table with report_id UNIQUE rather than keyed by the random UUIDs: new rows land on the
-- table's last page, and only the small report_id index takes a random insert.
CREATE TABLE invitations (
  id              INTEGER PRIMARY KEY,
  report_id       TEXT NOT NULL UNIQUE,
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  company_id      INTEGER NOT NULL,
  candidate_id    INTEGER NOT NULL,
  test_id         TEXT NOT NULL,
  test_name       TEXT NOT NULL,
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  email           TEXT NOT NULL,
  phone           TEXT,
  extra_inputs    TEXT NOT NULL DEFAULT '{}',
  status          TEXT NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'completed', 'failed', 'canceled')),
  start_attempts  INTEGER NOT NULL DEFAULT 0,
  next_start_at   TEXT,
  started_at      TEXT,
  start_error     TEXT,
  candidate_url   TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  opened_at       TEXT,
  submitted_at    TEXT,
  completed_at    TEXT,
  score           TEXT,
  subtitle        TEXT,
  properties      TEXT NOT NULL DEFAULT '[]',
  canceled_at     TEXT,
  canceled_by     TEXT CHECK (canceled_by IN ('platform', 'vendor'))
);
-- Deleting an account and erasing a candidate use this one (it starts with account_id).
CREATE INDEX invitations_by_candidate ON invitations(account_id, candidate_id);
CREATE INDEX invitations_to_start ON invitations(next_start_at) WHERE started_at IS NULL AND status = 'sent';
-- The dashboard's newest-first list; it only ever grows at its end.
CREATE INDEX invitations_by_created ON invitations(created_at);

-- E-mail to send. A row holds the intent (which e-mail, for which invitation); the message is
-- rendered when it is sent, so the link's lifetime starts then. `message` is the e-mail as
-- nodemailer's JSON transport rendered it, kept with its row (the dashboard shows it; erasing a
-- candidate blanks it): NULL until sent, for e-mail sent through SMTP (not kept), and once erased.
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
  message          TEXT,
  sent_at          TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_by_report ON mail_outbox(report_id);

-- Report updates to PATCH to the platform, in the order they were queued (`id`). `body` is the
-- part of the report this change sets. A report's pending updates are sent oldest first and
-- together (docs/report-delivery.md); attempts, next attempt and the give-up time live here so a
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
CREATE INDEX report_updates_settled ON report_updates(updated_at) WHERE status IN ('delivered', 'superseded', 'canceled');

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

-- Webhooks received from the platform: one row per event of a company, whatever the number of
-- deliveries. It is at once the dedupe record (a retry repeats the id: the insert finds the row
-- and nothing is handled twice), the inbox the processor drains after the 200 has gone out, and
-- a record of what was handled. `payload` holds the event's personal data only until it is
-- handled; rows are pruned once older than the dedupe window (WEBHOOK_DEDUPE_WINDOW_MS).
--
-- Keyed by (company_id, event_id), not the id alone: event ids are one sequence across the
-- platform, so guessable, and a customer knows its own webhook secret. Keyed by the id alone, an
-- event it signed for its own company with the id of another company's next event would make that
-- event a "duplicate", never handled. The company is the one in the URL, which the signature
-- vouches for.
CREATE TABLE webhook_inbox (
  event_id         INTEGER NOT NULL,
  company_id       INTEGER NOT NULL,
  event_type       TEXT NOT NULL,
  event_subtype    TEXT NOT NULL,
  occurred_at      TEXT NOT NULL,
  attempt_count    INTEGER NOT NULL,
  candidate_id     INTEGER,
  offer_id         INTEGER,
  payload          TEXT,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'handled', 'failed')),
  outcome          TEXT,
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  last_error       TEXT,
  duplicates       INTEGER NOT NULL DEFAULT 0,
  received_at      TEXT NOT NULL,
  handled_at       TEXT,
  PRIMARY KEY (company_id, event_id)
);
CREATE INDEX webhook_inbox_due ON webhook_inbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_inbox_by_event ON webhook_inbox(event_id, company_id);
CREATE INDEX webhook_inbox_by_candidate ON webhook_inbox(company_id, candidate_id);
CREATE INDEX webhook_inbox_by_received ON webhook_inbox(received_at);
