-- The report delivery's hourly prune (`pruneSettled`, updates/outbox.ts) reads the settled updates
-- older than the 30 days it keeps through their own index. SQLite's planner, which has no
-- statistics, preferred the index on (status, id) for the prune's `status IN (…)`, and then read
-- every settled update of the month it keeps to find the few past it: 113 ms and 16 MB of page
-- cache with 27,000 kept (a million invitations over three years), growing with the traffic, at
-- every start and every hour, with the event loop held. The index now starts with the status, so
-- the planner takes it for both conditions and reads only what it deletes
-- (docs/performance.md#the-background-work-at-a-million-invitations).
DROP INDEX report_updates_settled;
CREATE INDEX report_updates_settled ON report_updates(status, updated_at) WHERE status IN ('delivered', 'superseded', 'canceled');
