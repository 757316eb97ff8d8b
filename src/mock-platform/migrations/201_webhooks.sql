-- Webhooks (platform-contract.md §6.1, §1.1, §6.4, §8.3). A company's configurations, the events its state changes
-- produced, one delivery per event × configuration that selected it, and the request log.

-- `events` is a JSON array of event types (may be empty). The secret signs every request; the
-- platform must keep it in clear to compute the HMAC. A deleted configuration is kept (deleted_at)
-- so its request log stays readable for its 30 days.
CREATE TABLE webhooks (
  id           INTEGER PRIMARY KEY,
  company_id   INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  url          TEXT NOT NULL,
  events       TEXT NOT NULL DEFAULT '[]',
  secret       TEXT NOT NULL,
  created_by   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  deleted_at   TEXT
);
CREATE INDEX webhooks_by_company ON webhooks(company_id) WHERE deleted_at IS NULL;

-- Members e-mailed when a delivery of this configuration fails.
CREATE TABLE webhook_recipients (
  webhook_id  INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (webhook_id, user_id)
) WITHOUT ROWID;

-- An event as it happened; `id` is the envelope's id, the same on every retry. `payload` is JSON.
CREATE TABLE webhook_events (
  id             INTEGER PRIMARY KEY,
  company_id     INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  event_type     TEXT NOT NULL,
  event_subtype  TEXT NOT NULL,
  payload        TEXT NOT NULL,
  created_at     TEXT NOT NULL
);
CREATE INDEX webhook_events_by_company ON webhook_events(company_id, id);

-- One event to one configuration. `attempt_count` counts the requests made (the envelope carries
-- the count of the request being made); `next_attempt_at` is when the worker sends next — while a
-- request is in flight it is a lease, so a worker that died mid-request is retried after it.
-- `rate_limited` counts the times the company's rate limit pushed the delivery back.
CREATE TABLE webhook_deliveries (
  id               INTEGER PRIMARY KEY,
  event_id         INTEGER NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  webhook_id       INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  company_id       INTEGER NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'canceled')),
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  rate_limited     INTEGER NOT NULL DEFAULT 0,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, id);

-- The request log (kept 30 days): every request sent — event deliveries, the test request made
-- before a configuration exists (webhook_id NULL when it failed), and "test payload" requests.
-- `body` is the exact text that was signed and sent. `next_attempt_at` is what this request's
-- outcome scheduled (NULL: nothing). `started_at` of event requests feeds the rate limit.
CREATE TABLE webhook_requests (
  id               INTEGER PRIMARY KEY,
  company_id       INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  webhook_id       INTEGER REFERENCES webhooks(id) ON DELETE CASCADE,
  delivery_id      INTEGER REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  event_id         INTEGER,
  kind             TEXT NOT NULL CHECK (kind IN ('event', 'test', 'test_payload')),
  attempt_count    INTEGER,
  url              TEXT NOT NULL,
  request_headers  TEXT NOT NULL,
  body             TEXT NOT NULL,
  response_status  INTEGER,
  response_body    TEXT,
  error            TEXT,
  duration_ms      INTEGER,
  started_at       TEXT NOT NULL,
  finished_at      TEXT,
  next_attempt_at  TEXT
);
CREATE INDEX webhook_requests_rate ON webhook_requests(company_id, started_at) WHERE kind = 'event';
CREATE INDEX webhook_requests_by_delivery ON webhook_requests(delivery_id);
CREATE INDEX webhook_requests_by_started ON webhook_requests(started_at);
