-- The demo provider's own tables. A database created before the demo brought its own migrations
-- has them already (they were part of the kit's 001_initial.sql): IF NOT EXISTS adopts them.

-- The demo provider's questions, per test. `choices` is a JSON array of strings; `answer` is the
-- index of the right one.
CREATE TABLE IF NOT EXISTS demo_questions (
  id          INTEGER PRIMARY KEY,
  test_id     INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  prompt      TEXT NOT NULL,
  choices     TEXT NOT NULL,
  answer      INTEGER NOT NULL,
  UNIQUE (test_id, position)
);

-- What a candidate answered in a demo test: JSON {question id: choice index}.
CREATE TABLE IF NOT EXISTS demo_answers (
  report_id   TEXT PRIMARY KEY REFERENCES invitations(report_id) ON DELETE CASCADE,
  answers     TEXT NOT NULL,
  correct     INTEGER NOT NULL,
  total       INTEGER NOT NULL,
  created_at  TEXT NOT NULL
) WITHOUT ROWID;
