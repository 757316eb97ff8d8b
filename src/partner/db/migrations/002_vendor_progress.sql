-- What the vendor's product told us about a candidate's progress before the result: the test
-- link was opened, the test was started, the answers are being reviewed. Recorded for the
-- dashboard only; the platform's report changes on sent, completed, failed and canceled alone.
-- One row per stage, the first time it is reported: reporting a stage again changes nothing.
CREATE TABLE invitation_events (
  id          INTEGER PRIMARY KEY,
  report_id   TEXT NOT NULL REFERENCES invitations(report_id) ON DELETE CASCADE,
  stage       TEXT NOT NULL CHECK (stage IN ('opened', 'started', 'in_review')),
  at          TEXT NOT NULL,
  UNIQUE (report_id, stage)
);

-- Details of a result pushed by the vendor's product (a JSON array of {label, value, ok?}), for
-- the recruiter's results page and the dashboard, when the provider keeps none of its own
-- (`Provider.resultDetails`). Never sent to the platform.
ALTER TABLE invitations ADD COLUMN details TEXT;
