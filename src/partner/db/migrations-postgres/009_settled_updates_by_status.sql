-- The settled report updates indexed by status first as on SQLite (012_settled_updates_by_status.sql),
-- whose planner without statistics needs it there to choose this index for the hourly prune.
-- PostgreSQL plans by its statistics; the definition is kept the same in both dialects.
DROP INDEX report_updates_settled;
CREATE INDEX report_updates_settled ON report_updates(status, updated_at) WHERE status IN ('delivered', 'superseded', 'canceled');
