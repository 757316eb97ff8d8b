-- webhook_inbox is keyed by (company_id, event_id) instead of event_id alone. Event ids are one
-- sequence across the platform, so guessable, and a customer knows its own webhook secret: keyed by
-- the id alone, an event it signed for its own company with the id another company's event would
-- get made that event a "duplicate", answered 200 and never handled (a candidate_deleted whose
-- candidate was then never erased). The company is the one in the URL, which the signature vouches
-- for; a retry of an event repeats both, so it is still recognised.
--
-- The rebuild keeps every row (SQLite cannot change a primary key in place). Nothing references
-- this table. The primary key's index serves the per-company list; webhook_inbox_by_event serves
-- the list of every company, newest first.
CREATE TABLE webhook_inbox_rebuilt (
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
INSERT INTO webhook_inbox_rebuilt (event_id, company_id, event_type, event_subtype, occurred_at, attempt_count, candidate_id,
    offer_id, payload, status, outcome, attempts, next_attempt_at, last_error, duplicates, received_at, handled_at)
  SELECT event_id, company_id, event_type, event_subtype, occurred_at, attempt_count, candidate_id,
    offer_id, payload, status, outcome, attempts, next_attempt_at, last_error, duplicates, received_at, handled_at
  FROM webhook_inbox ORDER BY event_id;
DROP TABLE webhook_inbox;
ALTER TABLE webhook_inbox_rebuilt RENAME TO webhook_inbox;
CREATE INDEX webhook_inbox_due ON webhook_inbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_inbox_by_event ON webhook_inbox(event_id, company_id);
CREATE INDEX webhook_inbox_by_candidate ON webhook_inbox(company_id, candidate_id);
CREATE INDEX webhook_inbox_by_received ON webhook_inbox(received_at);
