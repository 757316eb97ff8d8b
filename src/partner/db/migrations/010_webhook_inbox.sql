-- Webhooks received from the platform (seed §6): one row per event id, whatever the number of
-- deliveries. It is at once the dedupe record (a retry repeats the id: the insert finds the row
-- and nothing is handled twice), the inbox the processor drains after the 200 has gone out, and
-- the list the dashboard shows. `payload` holds the event's personal data only until it is
-- handled; rows are pruned once older than the dedupe window (WEBHOOK_DEDUPE_WINDOW_MS).
CREATE TABLE webhook_inbox (
  event_id         INTEGER PRIMARY KEY,
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
  handled_at       TEXT
);
CREATE INDEX webhook_inbox_due ON webhook_inbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_inbox_by_company ON webhook_inbox(company_id, event_id);
CREATE INDEX webhook_inbox_by_candidate ON webhook_inbox(company_id, candidate_id);
CREATE INDEX webhook_inbox_by_received ON webhook_inbox(received_at);
