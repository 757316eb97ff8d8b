-- invitations becomes a rowid table with report_id UNIQUE, instead of a WITHOUT ROWID table keyed
-- by report_id. The platform's report ids are random UUIDs: keyed by them, every new invitation
-- (some 600 bytes once started) went into a random page of the table, which split pages as it
-- grew, outgrew the page cache, and sent every WAL checkpoint a page of its own for each send. Now
-- new rows land on the table's last page, and only the report_id index (small entries) takes the
-- random insert. The children keep referencing invitations(report_id), which stays unique.
--
-- Also: invitations_by_account (account_id, created_at) served no query and cost every send a
-- write into a random page; it is gone. The cascade when an account is deleted and the erasure of
-- a candidate use invitations_by_candidate, which starts with account_id. invitations_by_created
-- serves the dashboard's newest-first list, and only ever grows at its end.
--
-- The rebuild runs as SQLite's documentation prescribes: foreign keys are off while migrations run
-- (db/open.ts), so dropping the old table does not cascade to the children, and checked after.
CREATE TABLE invitations_rebuilt (
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
INSERT INTO invitations_rebuilt (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name,
    last_name, email, phone, extra_inputs, status, start_attempts, next_start_at, started_at, start_error,
    candidate_url, created_at, updated_at, opened_at, submitted_at, completed_at, score, subtitle, properties,
    canceled_at, canceled_by)
  SELECT report_id, account_id, company_id, candidate_id, test_id, test_name, first_name,
    last_name, email, phone, extra_inputs, status, start_attempts, next_start_at, started_at, start_error,
    candidate_url, created_at, updated_at, opened_at, submitted_at, completed_at, score, subtitle, properties,
    canceled_at, canceled_by
  FROM invitations ORDER BY created_at, report_id;
DROP TABLE invitations;
ALTER TABLE invitations_rebuilt RENAME TO invitations;
CREATE INDEX invitations_by_candidate ON invitations(account_id, candidate_id);
CREATE INDEX invitations_to_start ON invitations(next_start_at) WHERE started_at IS NULL AND status = 'sent';
CREATE INDEX invitations_by_created ON invitations(created_at);
