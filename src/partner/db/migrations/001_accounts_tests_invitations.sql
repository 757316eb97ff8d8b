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

-- The demo provider's test catalog (a fork with its own product may not need it).
CREATE TABLE tests (
  id           INTEGER PRIMARY KEY,
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  created_at   TEXT NOT NULL
);
CREATE INDEX tests_by_account ON tests(account_id, id);

-- One invitation per platform report. The report_id is the platform's UUID and the idempotency key
-- of send_candidate. `started_at` is set once the provider has started the candidate's test; a
-- worker picks up invitations that are not started yet, so a crash after the answer loses nothing.
CREATE TABLE invitations (
  report_id       TEXT PRIMARY KEY,
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
  updated_at      TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX invitations_by_account ON invitations(account_id, created_at);
CREATE INDEX invitations_by_candidate ON invitations(account_id, candidate_id);
CREATE INDEX invitations_to_start ON invitations(next_start_at) WHERE started_at IS NULL AND status = 'sent';
