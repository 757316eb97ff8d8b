-- The partner speaks several recruiting platforms (docs/platforms.md). Each invitation records the
-- platform that sent it, which is the one its updates go to, and what that platform's routes
-- stored with it (Greenhouse: where to PATCH, and the key to do it with, encrypted). Invitations
-- from before were all sent by the hiring platform of docs/platform-contract.md.
ALTER TABLE invitations ADD COLUMN platform TEXT NOT NULL DEFAULT 'hiring-platform';
ALTER TABLE invitations ADD COLUMN platform_data TEXT NOT NULL DEFAULT '{}';

-- What a platform reports to the partner about the partner's own answers (Greenhouse's
-- response_error: "your test_status answer was malformed"), for the dashboard.
CREATE TABLE platform_notices (
  id           INTEGER PRIMARY KEY,
  platform     TEXT NOT NULL,
  account_id   INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  report_id    TEXT,
  summary      TEXT NOT NULL,
  detail       TEXT NOT NULL DEFAULT '{}',
  received_at  TEXT NOT NULL
);
CREATE INDEX platform_notices_recent ON platform_notices(received_at);
