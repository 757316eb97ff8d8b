-- The dashboard as a place to work (docs/report-delivery.md#the-dashboard): what was done to each
-- account and by whom, the key its sign-in sessions are signed with, and the indexes its pages
-- read through, so that they stay fast with a million invitations
-- (docs/performance.md#the-dashboard-at-a-million-invitations).

-- Each change to an account, from the accounts CLI or the dashboard alike
-- (src/partner/accounts/admin.ts): created, a token issued or revoked, a platform credential set or
-- removed. Never a token or a credential: a token's key id, a credential's last four characters.
CREATE TABLE account_events (
  id          INTEGER PRIMARY KEY,
  account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  action      TEXT NOT NULL,
  detail      TEXT NOT NULL DEFAULT '{}',
  via         TEXT NOT NULL CHECK (via IN ('cli', 'dashboard')),
  who         TEXT,
  address     TEXT,
  at          TEXT NOT NULL
);
CREATE INDEX account_events_of_account ON account_events(account_id, id);

-- The key the dashboard's session cookies are signed with (src/partner/pages/admin-session.ts):
-- made at random by the first instance that needs it, shared by every instance of the database.
CREATE TABLE dashboard_keys (
  name        TEXT PRIMARY KEY,
  secret      BLOB NOT NULL,
  created_at  TEXT NOT NULL
);

-- Pages of invitations, newest first, each page starting after the last row of the one before
-- (keyset, not OFFSET): all of them, those of one status, those of one account. The same index
-- holds the platform and status of each invitation, so that the overview's invitations per day
-- over the last 30 days read the index alone. It replaces the index on created_at alone. An
-- account's entries hold the platform too: whether it has used a platform is read from them alone.
DROP INDEX invitations_by_created;
CREATE INDEX invitations_newest ON invitations(created_at, id, platform, status);
CREATE INDEX invitations_by_status ON invitations(status, created_at, id);
CREATE INDEX invitations_of_account ON invitations(account_id, created_at, id, platform);

-- Search: a candidate's e-mail and an account's name by their beginning, in any case.
CREATE INDEX invitations_by_email ON invitations(lower(email));
CREATE INDEX accounts_by_name ON accounts(lower(name));

-- The overview's deliveries per day by outcome, from the index alone (it replaces the one on the
-- start time alone), and how long the platform waited for each update delivered.
DROP INDEX report_update_attempts_by_time;
CREATE INDEX report_update_attempts_by_day ON report_update_attempts(started_at, outcome);
CREATE INDEX report_updates_delivered ON report_updates(delivered_at, created_at) WHERE status = 'delivered';
