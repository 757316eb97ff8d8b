-- Companies: the platform's customers. `subdomain` names the careers site (/careers/{subdomain}/api);
-- `plan` decides the webhook rate limit (trial 5/min, standard 100/min).
CREATE TABLE companies (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  subdomain   TEXT NOT NULL UNIQUE,
  plan        TEXT NOT NULL DEFAULT 'standard' CHECK (plan IN ('trial', 'standard')),
  created_at  TEXT NOT NULL
);

-- Company members. `can_manage_webhooks` models the hiring role's "Manage webhooks" ability.
CREATE TABLE users (
  id                   INTEGER PRIMARY KEY,
  company_id           INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name                 TEXT NOT NULL,
  email                TEXT NOT NULL,
  can_manage_webhooks  INTEGER NOT NULL DEFAULT 0,
  created_at           TEXT NOT NULL
);
CREATE INDEX users_by_company ON users(company_id);

-- Every e-mail the platform would send (application confirmations, webhook failure notices).
-- The mock sends none; tests and the sandbox UI read them here.
CREATE TABLE mail_log (
  id          INTEGER PRIMARY KEY,
  company_id  INTEGER REFERENCES companies(id) ON DELETE CASCADE,
  to_address  TEXT NOT NULL,
  subject     TEXT NOT NULL,
  body        TEXT NOT NULL,
  kind        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);

-- Candidates of a company. Created by the seed, by careers-site applications (source career_site)
-- and by the sandbox. `deleted_at` marks a deletion (the candidate_deleted event) without losing
-- the row the event payload is built from.
CREATE TABLE candidates (
  id               INTEGER PRIMARY KEY,
  company_id       INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name             TEXT NOT NULL,
  email            TEXT NOT NULL,
  phone            TEXT,
  source           TEXT NOT NULL DEFAULT 'manual' CHECK (source IN ('career_site', 'email', 'manual', 'import', 'referral')),
  photo_thumb_url  TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  deleted_at       TEXT
);
CREATE INDEX candidates_by_company ON candidates(company_id);
