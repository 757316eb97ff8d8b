-- The mock plays Greenhouse too (docs/greenhouse.md): a world of its own, apart from the other
-- platform's companies, for a company whose ATS is Greenhouse and the partner it has configured.
--
-- The plugin's first migration, tracked as greenhouse/001_greenhouse.sql. Until the mock took its
-- platforms as plugins this was the mock's own migration 300: a kept sandbox database
-- (./data/partner.mock.db) has these tables already, so each is created only if it is missing.

-- Companies using Greenhouse. `sent_by` is the recruiter who clicks "Send Test" (send_test's `sent_by`).
CREATE TABLE IF NOT EXISTS greenhouse_companies (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  sent_by     TEXT NOT NULL,
  created_at  TEXT NOT NULL
);

-- The assessment partner as Greenhouse's partnerships team configures it for a company: its name,
-- the API key the customer entered (kept in clear: Greenhouse presents it on every call, and the
-- partner presents it back on the PATCH) and the four endpoint URLs.
CREATE TABLE IF NOT EXISTS greenhouse_partners (
  company_id          INTEGER PRIMARY KEY REFERENCES greenhouse_companies(id) ON DELETE CASCADE,
  name                TEXT NOT NULL,
  api_key             TEXT NOT NULL,
  list_tests_url      TEXT NOT NULL,
  send_test_url       TEXT NOT NULL,
  test_status_url     TEXT NOT NULL,
  response_error_url  TEXT NOT NULL,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);

-- Jobs and their interview stages. A stage given a partner test (from list_tests) is where the
-- recruiter sends that test to the job's candidates.
CREATE TABLE IF NOT EXISTS greenhouse_jobs (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER NOT NULL REFERENCES greenhouse_companies(id) ON DELETE CASCADE,
  name        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS greenhouse_jobs_by_company ON greenhouse_jobs(company_id);

CREATE TABLE IF NOT EXISTS greenhouse_stages (
  id                 INTEGER PRIMARY KEY,
  job_id             INTEGER NOT NULL REFERENCES greenhouse_jobs(id) ON DELETE CASCADE,
  position           INTEGER NOT NULL,
  name               TEXT NOT NULL,
  partner_test_id    TEXT,
  partner_test_name  TEXT
);
CREATE INDEX IF NOT EXISTS greenhouse_stages_by_job ON greenhouse_stages(job_id, position);

-- Candidates, each with an application to one job: what send_test's `candidate` is made of.
CREATE TABLE IF NOT EXISTS greenhouse_candidates (
  id              INTEGER PRIMARY KEY,
  company_id      INTEGER NOT NULL REFERENCES greenhouse_companies(id) ON DELETE CASCADE,
  job_id          INTEGER NOT NULL REFERENCES greenhouse_jobs(id) ON DELETE CASCADE,
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  preferred_name  TEXT,
  email           TEXT NOT NULL,
  phone_number    TEXT,
  created_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS greenhouse_candidates_by_company ON greenhouse_candidates(company_id);

-- A test sent to a candidate. `id` is the one in the PATCH url (/integrations/testing_partners/
-- take_home_tests/{id}). `delivery` tracks send_test: `pending` while it is in flight, `delivered`
-- once the partner answered a valid `partner_interview_id`, `failed` otherwise (shown with
-- `delivery_error`; a PATCH for it is a 404). The partner's last valid test_status answer is kept
-- in the partner_* columns and `metadata` (JSON); `problem` is what went wrong with the last
-- status check (an error answer, or the errors of a malformed answer), NULL when it went well.
CREATE TABLE IF NOT EXISTS greenhouse_take_home_tests (
  id                    INTEGER PRIMARY KEY,
  company_id            INTEGER NOT NULL REFERENCES greenhouse_companies(id) ON DELETE CASCADE,
  candidate_id          INTEGER NOT NULL REFERENCES greenhouse_candidates(id) ON DELETE CASCADE,
  stage_id              INTEGER REFERENCES greenhouse_stages(id) ON DELETE SET NULL,
  partner_test_id       TEXT NOT NULL,
  partner_test_name     TEXT NOT NULL,
  partner_interview_id  TEXT,
  delivery              TEXT NOT NULL DEFAULT 'pending' CHECK (delivery IN ('pending', 'delivered', 'failed')),
  delivery_error        TEXT,
  partner_status        TEXT,
  partner_score         REAL,
  partner_profile_url   TEXT,
  metadata              TEXT,
  problem               TEXT,
  patched_at            TEXT,
  checked_at            TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS greenhouse_tests_by_candidate ON greenhouse_take_home_tests(company_id, candidate_id, id);
