-- The mock plays Ashby too (docs/ashby.md): a world of its own, apart from the other platforms'
-- companies, for a company whose ATS is Ashby, the assessment partner it has connected, and the
-- assessments it starts. Tracked as ashby/001_ashby.sql.

-- Companies using Ashby. `api_key` is the Ashby API key the company issued for its assessment
-- partner (with the candidatesWrite permission): the partner presents it on assessment.update.
-- One a company; issuing a new one retires the old.
CREATE TABLE IF NOT EXISTS ashby_companies (
  id                 INTEGER PRIMARY KEY,
  name               TEXT NOT NULL,
  api_key            TEXT NOT NULL UNIQUE,
  api_key_issued_at  TEXT NOT NULL,
  created_at         TEXT NOT NULL
);

-- The assessment partner the company connected: its name, the base URL Ashby calls
-- (`{base_url}/assessment.list`, …) and the key the partner gave the customer, which Ashby presents
-- as the Basic user name on every call (kept in clear: it is presented on every call).
CREATE TABLE IF NOT EXISTS ashby_partners (
  company_id  INTEGER PRIMARY KEY REFERENCES ashby_companies(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  api_key     TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

-- Jobs, with Ashby's own ids (UUIDs, what assessment.start's `job.ashby_id` carries), the
-- customer's requisition id when it has one, and the hiring team (JSON, as assessment.start's
-- `hiringTeam`).
CREATE TABLE IF NOT EXISTS ashby_jobs (
  id           INTEGER PRIMARY KEY,
  company_id   INTEGER NOT NULL REFERENCES ashby_companies(id) ON DELETE CASCADE,
  ashby_id     TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  req_id       TEXT,
  hiring_team  TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS ashby_jobs_by_company ON ashby_jobs(company_id);

-- A job's interview stages. A stage given an assessment (from assessment.list) is where the
-- recruiter starts it for the job's applications.
CREATE TABLE IF NOT EXISTS ashby_stages (
  id                  INTEGER PRIMARY KEY,
  job_id              INTEGER NOT NULL REFERENCES ashby_jobs(id) ON DELETE CASCADE,
  position            INTEGER NOT NULL,
  name                TEXT NOT NULL,
  assessment_type_id  TEXT,
  assessment_name     TEXT
);
CREATE INDEX IF NOT EXISTS ashby_stages_by_job ON ashby_stages(job_id, position);

CREATE TABLE IF NOT EXISTS ashby_candidates (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER NOT NULL REFERENCES ashby_companies(id) ON DELETE CASCADE,
  ashby_id    TEXT NOT NULL UNIQUE,
  first_name  TEXT NOT NULL,
  last_name   TEXT NOT NULL,
  email       TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ashby_candidates_by_company ON ashby_candidates(company_id);

-- A candidate's application to a job: an assessment is started for an application
-- (assessment.start's `application`), and a candidate may have several.
CREATE TABLE IF NOT EXISTS ashby_applications (
  id            INTEGER PRIMARY KEY,
  candidate_id  INTEGER NOT NULL REFERENCES ashby_candidates(id) ON DELETE CASCADE,
  job_id        INTEGER NOT NULL REFERENCES ashby_jobs(id) ON DELETE CASCADE,
  ashby_id      TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ashby_applications_by_candidate ON ashby_applications(candidate_id, id);

-- An assessment started for an application. `delivery` tracks assessment.start: `pending` while
-- it is in flight, `started` once the partner answered an `assessment_id`, `failed` otherwise
-- (shown with `delivery_error`). What the partner's updates said: the last `assessment_status`
-- value (`status`), the result (`result`, the typed value as JSON), the profile link, the
-- metadata (JSON, by identifier), when the candidate started (`started_at`, the update's
-- timestamp in ms) and a cancel (`cancelled_*`: by Ashby, or by the partner with its reason).
-- `last_timestamp` is the newest update applied: an older one is kept in the history, not applied.
-- `problem` is what went wrong with the last thing Ashby heard about it, NULL when it went well.
CREATE TABLE IF NOT EXISTS ashby_assessments (
  id                  INTEGER PRIMARY KEY,
  company_id          INTEGER NOT NULL REFERENCES ashby_companies(id) ON DELETE CASCADE,
  application_id      INTEGER NOT NULL REFERENCES ashby_applications(id) ON DELETE CASCADE,
  stage_id            INTEGER REFERENCES ashby_stages(id) ON DELETE SET NULL,
  assessment_type_id  TEXT NOT NULL,
  assessment_name     TEXT NOT NULL,
  assessment_id       TEXT,
  delivery            TEXT NOT NULL DEFAULT 'pending' CHECK (delivery IN ('pending', 'started', 'failed')),
  delivery_error      TEXT,
  status              TEXT,
  result              TEXT,
  profile_url         TEXT,
  metadata            TEXT,
  started_at          INTEGER,
  completed_at        INTEGER,
  cancelled_by        TEXT CHECK (cancelled_by IN ('ashby', 'partner')),
  cancelled_reason    TEXT,
  cancelled_at        TEXT,
  last_timestamp      INTEGER,
  problem             TEXT,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ashby_assessments_by_application ON ashby_assessments(application_id, id);
-- Found by the partner's id for it (the kit's report id): an assessment.update names it, and a
-- script reads it (GET /_mock/platforms/ashby/reports/{id}).
CREATE INDEX IF NOT EXISTS ashby_assessments_by_assessment_id ON ashby_assessments(company_id, assessment_id);

-- Every update Ashby took about an assessment, in the order received: the `update_request` of the
-- start's answer (`source` start) and each assessment.update (`source` update), its timestamp, the
-- body, whether it was applied, and why not (`note`).
CREATE TABLE IF NOT EXISTS ashby_assessment_updates (
  id             INTEGER PRIMARY KEY,
  assessment     INTEGER NOT NULL REFERENCES ashby_assessments(id) ON DELETE CASCADE,
  source         TEXT NOT NULL CHECK (source IN ('start', 'update')),
  timestamp      INTEGER NOT NULL,
  body           TEXT NOT NULL,
  applied        INTEGER NOT NULL,
  note           TEXT,
  received_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ashby_updates_by_assessment ON ashby_assessment_updates(assessment, id);
