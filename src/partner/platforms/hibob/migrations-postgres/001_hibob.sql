-- HiBob (docs/hibob.md). Its webhook inbox: one row per assessment request and event type, the
-- deduplication record (kept for good: Bob's signature has no timestamp, so a delivery replayed at
-- any later time must still find its row, §5), the processor's work queue, and what the dashboard
-- could list. Events carry ids only: no personal data is kept here.
CREATE TABLE hibob_inbox (
  assessment_request_id  TEXT NOT NULL,
  event_type             TEXT NOT NULL CHECK (event_type IN ('assessment.triggered', 'assessment.cancelled')),
  company_id             TEXT NOT NULL,
  triggered_at           TEXT,
  status                 TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'handled', 'failed')),
  outcome                TEXT,
  attempts               INTEGER NOT NULL DEFAULT 0,
  next_attempt_at        TEXT,
  last_error             TEXT,
  duplicates             INTEGER NOT NULL DEFAULT 0,
  received_at            TEXT NOT NULL,
  handled_at             TEXT,
  PRIMARY KEY (assessment_request_id, event_type)
);
CREATE INDEX hibob_inbox_due ON hibob_inbox(next_attempt_at) WHERE status = 'pending';

-- Each installed company's package catalog as registered with Bob (§4): a durable queue, one row
-- per connected account. Due now after an install; then checked every few minutes, registered
-- again when the listing's hash changed, retried with backoff while Bob refuses or is down.
CREATE TABLE hibob_catalog (
  account_id       BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  company_id       TEXT NOT NULL,
  next_attempt_at  TEXT NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT,
  registered_hash  TEXT,
  registered_at    TEXT,
  checked_at       TEXT,
  installed_at     TEXT NOT NULL
);
CREATE INDEX hibob_catalog_due ON hibob_catalog(next_attempt_at);
