-- Personal API tokens of company members: what a partner's developer puts in `Authorization: Bearer`
-- to register the partner record (§3.1). Only the SHA-256 digest is stored; `hint` (the last four
-- characters) lets the sandbox tell tokens apart without showing them.
CREATE TABLE api_tokens (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id     INTEGER REFERENCES users(id) ON DELETE CASCADE,
  label       TEXT NOT NULL,
  digest      BLOB NOT NULL UNIQUE,
  hint        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  revoked_at  TEXT
);
CREATE INDEX api_tokens_by_company ON api_tokens(company_id);

-- Registered partners (§3.1). `codename` is unique across the platform; `company_id` is the
-- vendor's own company, the only one that may change the record. `urls` and `inputs` are JSON;
-- NULL inputs means the platform default (first_name, last_name, email). The secret is kept in
-- clear because the platform shows it back on GET and must compare it on every report update.
CREATE TABLE partners (
  codename     TEXT PRIMARY KEY,
  company_id   INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('assessment', 'background_check', 'reference_check')),
  name         TEXT NOT NULL,
  description  TEXT,
  urls         TEXT NOT NULL,
  inputs       TEXT,
  secret       TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX partners_by_company ON partners(company_id);

-- A company's integration with a partner: created when validate_token answered 2xx. The customer
-- token is kept in clear because the platform presents it on every callback to the partner.
CREATE TABLE integrations (
  company_id  INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  codename    TEXT NOT NULL REFERENCES partners(codename) ON DELETE CASCADE,
  token       TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (company_id, codename)
) WITHOUT ROWID;
CREATE INDEX integrations_by_partner ON integrations(codename);

-- Reports (§3.2, §5): one per test sent. `delivery` tracks the send_candidate call that created it:
-- `pending` while the call is in flight (the partner may already PATCH it), `delivered` after a
-- 2xx, `failed` when the send failed — a failed report is hidden from the candidate and from the
-- reports API, as if it had never been created, and kept only for the sandbox's call history.
-- `cancel_requested_at` records a cancel call the partner accepted; the status changes only when
-- the partner PATCHes `canceled` (§4.4).
CREATE TABLE reports (
  id                   TEXT PRIMARY KEY,
  codename             TEXT NOT NULL REFERENCES partners(codename) ON DELETE CASCADE,
  company_id           INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  candidate_id         INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  test_id              TEXT,
  test_name            TEXT,
  status               TEXT NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'completed', 'failed', 'canceled')),
  score                TEXT,
  completed_at         TEXT,
  subtitle             TEXT,
  properties           TEXT NOT NULL DEFAULT '[]',
  urls                 TEXT NOT NULL DEFAULT '{}',
  sent_by_user_id      INTEGER REFERENCES users(id) ON DELETE SET NULL,
  delivery             TEXT NOT NULL DEFAULT 'pending' CHECK (delivery IN ('pending', 'delivered', 'failed')),
  delivery_error       TEXT,
  cancel_requested_at  TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX reports_by_candidate ON reports(company_id, candidate_id, created_at);
CREATE INDEX reports_by_partner ON reports(codename);

-- Every call the platform makes to a partner (outbound) and every call a partner makes to the
-- partners and reports APIs (inbound), with what was answered. Credentials are redacted before a
-- row is written. No foreign keys: the history outlives the partners and reports it mentions.
CREATE TABLE calls (
  id               INTEGER PRIMARY KEY,
  direction        TEXT NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  endpoint         TEXT NOT NULL,
  method           TEXT NOT NULL,
  url              TEXT NOT NULL,
  codename         TEXT,
  company_id       INTEGER,
  report_id        TEXT,
  request_headers  TEXT NOT NULL DEFAULT '{}',
  request_body     TEXT,
  response_status  INTEGER,
  response_body    TEXT,
  error            TEXT,
  outcome          TEXT,
  fault            TEXT,
  duration_ms      INTEGER NOT NULL,
  created_at       TEXT NOT NULL
);
CREATE INDEX calls_by_partner ON calls(codename, id);
CREATE INDEX calls_by_report ON calls(report_id);
