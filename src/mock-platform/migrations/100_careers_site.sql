-- Careers site (platform-contract.md §7.1, §7.4, §7.5, §7.6). Offers with their departments, tags, locations and
-- screening questions; applications become candidates (table from 001, source 'career_site') with a
-- placement on the offer, the answers to its questions and the files they uploaded.

CREATE TABLE departments (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  UNIQUE (company_id, name)
);

CREATE TABLE tags (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  UNIQUE (company_id, name)
);

CREATE TABLE locations (
  id            INTEGER PRIMARY KEY,
  company_id    INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  street        TEXT,
  city          TEXT,
  postal_code   TEXT,
  state         TEXT,
  state_code    TEXT,
  country       TEXT,
  country_code  TEXT,
  note          TEXT
);
CREATE INDEX locations_by_company ON locations(company_id);

-- One row per offer. Every §7.1 field is optional in a response, so most columns are nullable and a
-- NULL means "the offer does not have it" (the field is left out of the JSON). `status` 'draft' is an
-- unpublished offer. `translations` is JSON: {"<lang>": {"title": …, "description": …, …}}.
CREATE TABLE offers (
  id                           INTEGER PRIMARY KEY,
  company_id                   INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  guid                         TEXT NOT NULL UNIQUE,
  slug                         TEXT NOT NULL,
  kind                         TEXT NOT NULL DEFAULT 'job' CHECK (kind IN ('job', 'talent_pool')),
  status                       TEXT NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
  title                        TEXT NOT NULL,
  department_id                INTEGER REFERENCES departments(id) ON DELETE SET NULL,
  mailbox_email                TEXT,
  description                  TEXT,
  requirements                 TEXT,
  highlight                    TEXT,
  remote                       INTEGER,
  on_site                      INTEGER,
  hybrid                       INTEGER,
  locations_question_required  INTEGER,
  locations_question           TEXT,
  locations_question_type      TEXT,
  location_question_visible    INTEGER,
  employment_type_code         TEXT,
  category_code                TEXT,
  experience_code              TEXT,
  education_code               TEXT,
  min_hours                    INTEGER,
  max_hours                    INTEGER,
  min_hours_per_week           TEXT,
  max_hours_per_week           TEXT,
  salary_min                   TEXT,
  salary_max                   TEXT,
  salary_period                TEXT,
  salary_currency              TEXT,
  options_cover_letter         TEXT NOT NULL DEFAULT 'optional' CHECK (options_cover_letter IN ('required', 'optional', 'off')),
  options_photo                TEXT NOT NULL DEFAULT 'off' CHECK (options_photo IN ('required', 'optional', 'off')),
  options_cv                   TEXT NOT NULL DEFAULT 'optional' CHECK (options_cv IN ('required', 'optional', 'off')),
  options_phone                TEXT NOT NULL DEFAULT 'optional' CHECK (options_phone IN ('required', 'optional', 'off')),
  sharing_title                TEXT,
  sharing_description          TEXT,
  sharing_image                TEXT,
  cover_image_url              TEXT,
  translations                 TEXT NOT NULL DEFAULT '{}',
  created_at                   TEXT NOT NULL,
  updated_at                   TEXT NOT NULL,
  published_at                 TEXT,
  close_at                     TEXT,
  UNIQUE (company_id, slug)
);

CREATE TABLE offer_tags (
  offer_id  INTEGER NOT NULL REFERENCES offers(id) ON DELETE CASCADE,
  tag_id    INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (offer_id, tag_id)
);

CREATE TABLE offer_locations (
  offer_id     INTEGER NOT NULL REFERENCES offers(id) ON DELETE CASCADE,
  location_id  INTEGER NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
  position     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (offer_id, location_id)
);

-- Screening questions (§7.3). `options` is the kind-specific JSON object (salary: currency, video:
-- length); `translations` is JSON {"<lang>": {"body": …}}.
CREATE TABLE open_questions (
  id            INTEGER PRIMARY KEY,
  offer_id      INTEGER NOT NULL REFERENCES offers(id) ON DELETE CASCADE,
  position      INTEGER NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('string', 'text', 'boolean', 'single_choice', 'multi_choice', 'date',
                                               'number', 'salary', 'video', 'file', 'infobox', 'legal')),
  required      INTEGER NOT NULL DEFAULT 0,
  body          TEXT NOT NULL,
  options       TEXT NOT NULL DEFAULT '{}',
  translations  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX open_questions_by_offer ON open_questions(offer_id, position);

CREATE TABLE open_question_options (
  id                INTEGER PRIMARY KEY,
  open_question_id  INTEGER NOT NULL REFERENCES open_questions(id) ON DELETE CASCADE,
  position          INTEGER NOT NULL,
  body              TEXT NOT NULL,
  translations      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX open_question_options_by_question ON open_question_options(open_question_id, position);

-- A candidate's assignment to an offer (job or talent pool): what candidate_assigned reports.
-- `cover_letter` belongs to the application, so it lives here rather than on the candidate.
CREATE TABLE placements (
  id            INTEGER PRIMARY KEY,
  candidate_id  INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  offer_id      INTEGER NOT NULL REFERENCES offers(id) ON DELETE CASCADE,
  cover_letter  TEXT,
  created_at    TEXT NOT NULL,
  UNIQUE (candidate_id, offer_id)
);
CREATE INDEX placements_by_offer ON placements(offer_id);

-- The offer locations an assignment is attached to (the webhooks' placement_locations).
CREATE TABLE placement_locations (
  placement_id  INTEGER NOT NULL REFERENCES placements(id) ON DELETE CASCADE,
  location_id   INTEGER NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
  PRIMARY KEY (placement_id, location_id)
);

-- Files a candidate uploaded: the CV, the photo, answers to file and video questions. `path` is
-- relative to the uploads directory and NULL while status is 'processing' (an application without
-- ?async=true is answered before its files are attached).
CREATE TABLE uploaded_files (
  id             INTEGER PRIMARY KEY,
  candidate_id   INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  purpose        TEXT NOT NULL CHECK (purpose IN ('cv', 'photo', 'answer')),
  original_name  TEXT NOT NULL,
  content_type   TEXT NOT NULL,
  size           INTEGER NOT NULL,
  path           TEXT,
  status         TEXT NOT NULL CHECK (status IN ('processing', 'stored', 'failed')),
  created_at     TEXT NOT NULL
);
CREATE INDEX uploaded_files_by_candidate ON uploaded_files(candidate_id);

-- One answer per (placement, question). Which value column is set depends on the question's kind:
-- content (string, text, date, number, salary, single_choice: the chosen option's body),
-- option_ids (JSON array: single_choice and multi_choice), flag (boolean, legal), file_id (file, video).
CREATE TABLE open_question_answers (
  id                INTEGER PRIMARY KEY,
  placement_id      INTEGER NOT NULL REFERENCES placements(id) ON DELETE CASCADE,
  open_question_id  INTEGER NOT NULL REFERENCES open_questions(id) ON DELETE CASCADE,
  content           TEXT,
  option_ids        TEXT,
  flag              INTEGER,
  file_id           INTEGER REFERENCES uploaded_files(id) ON DELETE SET NULL,
  created_at        TEXT NOT NULL,
  UNIQUE (placement_id, open_question_id)
);
