-- The overview's days on SQLite (src/partner/pages/dashboard-reads.ts), read in the order of an
-- index on the day itself: counted as they are read, where grouping the last 30 days' invitations by
-- a day computed from each row sorted them all first (a temporary B-tree: some 27,000 rows at a
-- million invitations over three years, most of the overview's time). SQLite has no statistics to
-- choose these by: the statements name them (INDEXED BY). PostgreSQL groups by hashing, from
-- invitations_newest and report_update_attempts_by_day as they are (its 007_dashboard.sql).
CREATE INDEX invitations_by_day ON invitations(substr(created_at, 1, 10), platform, status);

-- invitations_newest now serves the pages of invitations only: the day index holds the platform
-- and status, so a change of status no longer rewrites this one's entry.
DROP INDEX invitations_newest;
CREATE INDEX invitations_newest ON invitations(created_at, id);

-- Delivery attempts per day and outcome, likewise; the index on the start time alone is back for
-- the log's pruning (updates/outbox.ts: `started_at < $1`).
DROP INDEX report_update_attempts_by_day;
CREATE INDEX report_update_attempts_by_time ON report_update_attempts(started_at);
CREATE INDEX report_update_attempts_by_day ON report_update_attempts(substr(started_at, 1, 10), outcome);
