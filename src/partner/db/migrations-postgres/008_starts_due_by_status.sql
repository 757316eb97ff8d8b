-- The invitations to start, indexed by status first as on SQLite (010_starts_due_by_status.sql),
-- whose planner without statistics needs it there to choose this index over the dashboard's index
-- on status. PostgreSQL chose this one already, from its statistics; the definition is kept the
-- same in both dialects.
DROP INDEX invitations_to_start;
CREATE INDEX invitations_to_start ON invitations(status, next_start_at) WHERE started_at IS NULL AND status = 'sent';
