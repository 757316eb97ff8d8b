-- The mock plays HiBob's Bob too (docs/hibob.md): a world of its own, apart from the other
-- platforms' companies — companies whose HR system is Bob, with Bob Hiring's job openings and
-- candidates; the assessment vendor's marketplace app, its installs and the OAuth codes and tokens
-- they issue; each company's catalog of packages as the vendor registers it; the assessments
-- recruiters order, what the vendor's PATCHes said, and the webhooks that told the vendor.
-- Tracked as hibob/001_hibob.sql.

-- The vendor's app in Bob's Developer Portal: one app, the vendor's, as the sandbox plays one
-- vendor. Its redirect URI and webhook listener are the partner's (set when a partner connects);
-- its client id, client secret and webhook secret are the sandbox's own, fixed, which `npm run dev`
-- and the harness give the partner (HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET, HIBOB_WEBHOOK_SECRET).
CREATE TABLE IF NOT EXISTS hibob_app (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  name            TEXT,
  redirect_uri    TEXT,
  webhook_url     TEXT,
  client_id       TEXT NOT NULL,
  client_secret   TEXT NOT NULL,
  webhook_secret  TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);

-- Companies using Bob, by Bob's own company id (numeric text: what the install and every event
-- name). `installed_at`: when the company last installed the vendor's app (consented); NULL while it
-- has not. `catalog_registered_at`: when the vendor last registered its catalog for the company.
CREATE TABLE IF NOT EXISTS hibob_companies (
  id                     TEXT PRIMARY KEY,
  name                   TEXT NOT NULL,
  position               INTEGER NOT NULL,
  installed_at           TEXT,
  catalog_registered_at  TEXT,
  created_at             TEXT NOT NULL
);

-- The company's employees who order assessments (the recruiter: `requester`, `triggeredBy`).
CREATE TABLE IF NOT EXISTS hibob_employees (
  id            TEXT PRIMARY KEY,
  company_id    TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  first_name    TEXT NOT NULL,
  last_name     TEXT NOT NULL,
  email         TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS hibob_job_openings (
  id          TEXT PRIMARY KEY,
  company_id  TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  title       TEXT NOT NULL
);

-- Bob Hiring's candidates, each applying to a job opening. `id` is the sandbox's (its pages' paths);
-- `bob_id` Bob's (what the details answer carries).
CREATE TABLE IF NOT EXISTS hibob_candidates (
  id              INTEGER PRIMARY KEY,
  company_id      TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  bob_id          TEXT NOT NULL UNIQUE,
  job_opening_id  TEXT NOT NULL REFERENCES hibob_job_openings(id),
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  email           TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hibob_candidates_by_company ON hibob_candidates(company_id, id);

-- One-time authorization codes of installs, by their SHA-256 digest: the company, the redirect URI
-- the browser was sent to (the token request's must be the same, RFC 6749 §4.1.3), when it stops
-- working, and when it was exchanged (a code works once).
CREATE TABLE IF NOT EXISTS hibob_codes (
  digest        TEXT PRIMARY KEY,
  company_id    TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  redirect_uri  TEXT NOT NULL,
  expires_at    TEXT NOT NULL,
  used_at       TEXT,
  created_at    TEXT NOT NULL
);

-- Access and refresh tokens, by their SHA-256 digest, each of one company. An access token works
-- until `expires_at`; a refresh token until it is used once (`used_at`: rotated), or revoked.
CREATE TABLE IF NOT EXISTS hibob_tokens (
  digest       TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  company_id   TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  expires_at   TEXT,
  used_at      TEXT,
  created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hibob_tokens_by_company ON hibob_tokens(company_id, kind);

-- The company's catalog, as the vendor registered it: `active` packages can be ordered, `archived`
-- ones (left out of the last registration) cannot; deleted ones are gone.
CREATE TABLE IF NOT EXISTS hibob_packages (
  company_id     TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  id             TEXT NOT NULL,
  name           TEXT NOT NULL,
  description    TEXT,
  status         TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  position       INTEGER NOT NULL,
  registered_at  TEXT NOT NULL,
  PRIMARY KEY (company_id, id)
) WITHOUT ROWID;

-- An assessment a recruiter ordered: Bob's `assessmentRequestId` (numeric text, random so that a
-- fresh sandbox never reuses one a kept partner database has seen), the candidate, the job
-- opening, who ordered it, the package as ordered (kept when the catalog changes). What the
-- vendor's PATCHes said (`status`, `score`, `result_url`, `verdict`, `comments`,
-- `provider_assessment_id`, `section_summary` as JSON): an omitted field keeps its value. A cancel
-- (`cancelled_at`) stops updates. `details_read_at`/`details_reads`: the vendor's GETs of it.
CREATE TABLE IF NOT EXISTS hibob_assessments (
  id                      INTEGER PRIMARY KEY,
  request_id              TEXT NOT NULL UNIQUE,
  company_id              TEXT NOT NULL REFERENCES hibob_companies(id) ON DELETE CASCADE,
  candidate_id            INTEGER NOT NULL REFERENCES hibob_candidates(id) ON DELETE CASCADE,
  job_opening_id          TEXT NOT NULL,
  requester_id            TEXT NOT NULL,
  package_id              TEXT NOT NULL,
  package_name            TEXT NOT NULL,
  status                  TEXT,
  score                   REAL,
  result_url              TEXT,
  verdict                 TEXT,
  comments                TEXT,
  provider_assessment_id  TEXT,
  section_summary         TEXT,
  details_read_at         TEXT,
  details_reads           INTEGER NOT NULL DEFAULT 0,
  cancelled_at            TEXT,
  created_at              TEXT NOT NULL,
  updated_at              TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hibob_assessments_by_candidate ON hibob_assessments(candidate_id, id);

-- Every PATCH Bob took about an assessment, in the order received: the body, whether it was
-- applied, and why not (`note`).
CREATE TABLE IF NOT EXISTS hibob_assessment_updates (
  id           INTEGER PRIMARY KEY,
  assessment   INTEGER NOT NULL REFERENCES hibob_assessments(id) ON DELETE CASCADE,
  body         TEXT NOT NULL,
  applied      INTEGER NOT NULL,
  note         TEXT,
  received_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hibob_updates_by_assessment ON hibob_assessment_updates(assessment, id);

-- A webhook event and its delivery to the vendor's listener: the exact body signed (the same bytes
-- on every attempt), `status` `pending` (due at `next_attempt_at`), `sending` (an attempt in flight),
-- `delivered` (a 2xx) or `failed` (given up after the last retry). Retries are counted from
-- `first_failed_at` (Bob's schedule: +1, +10, +20, +40, +80, +160 minutes after the first failure).
CREATE TABLE IF NOT EXISTS hibob_deliveries (
  id               INTEGER PRIMARY KEY,
  assessment       INTEGER NOT NULL REFERENCES hibob_assessments(id) ON DELETE CASCADE,
  company_id       TEXT NOT NULL,
  event_type       TEXT NOT NULL CHECK (event_type IN ('assessment.triggered', 'assessment.cancelled')),
  body             TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  first_failed_at  TEXT,
  next_attempt_at  TEXT,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hibob_deliveries_due ON hibob_deliveries(status, next_attempt_at);
CREATE INDEX IF NOT EXISTS hibob_deliveries_by_assessment ON hibob_deliveries(assessment, id);
