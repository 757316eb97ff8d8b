-- The hiring pipeline behind candidate_moved (platform-contract.md §6.3, §6.4). One default pipeline for every
-- company [kit decision: the interface document shows stages only inside events]: a candidate's placement on an
-- offer sits in one stage and may be disqualified there with a reason. Ids are fixed so the API,
-- the sandbox and tests can name them.
CREATE TABLE pipeline_stages (
  id        INTEGER PRIMARY KEY,
  name      TEXT NOT NULL,
  category  TEXT NOT NULL CHECK (category IN ('none', 'apply', 'phone_screen', 'interview', 'evaluation', 'offer', 'hire')),
  position  INTEGER NOT NULL UNIQUE
);
INSERT INTO pipeline_stages (id, name, category, position) VALUES
  (1, 'Applied', 'apply', 1),
  (2, 'Phone screen', 'phone_screen', 2),
  (3, 'Interview', 'interview', 3),
  (4, 'Assessment', 'evaluation', 4),
  (5, 'Offer', 'offer', 5),
  (6, 'Hired', 'hire', 6),
  (7, 'On hold', 'none', 7);

CREATE TABLE disqualify_reasons (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL
);
INSERT INTO disqualify_reasons (id, name) VALUES
  (1, 'Not a fit'),
  (2, 'Withdrew'),
  (3, 'Position filled'),
  (4, 'Did not show up');

-- Every placement starts in "Applied". SQLite cannot add a NOT NULL column with a foreign key, so
-- the stage and reason ids are checked by the code that sets them.
ALTER TABLE placements ADD COLUMN stage_id INTEGER NOT NULL DEFAULT 1;
ALTER TABLE placements ADD COLUMN disqualify_reason_id INTEGER;
ALTER TABLE placements ADD COLUMN disqualified_at TEXT;
