-- The invitation starter's claim (`dueStarts`, invitations/store.ts) reads the invitations to start
-- through their own index. SQLite's planner, which has no statistics, preferred the dashboard's
-- index on status (009_dashboard.sql) for its `status = 'sent'`: an equality on one column against
-- a range on this index's one column. It then read every invitation still `sent`, the ones whose
-- candidate never finished included, sorted them, and kept twenty: some 5 ms with 2,000 open, half a
-- second with 200,000 (a vendor a few years in), on every run of the starter, with the event loop
-- held. The index now starts with the status, so its equality and its range both match here, the
-- planner takes it, and it gives the rows in order: the claim reads the twenty it takes
-- (docs/performance.md#the-background-work-at-a-million-invitations).
DROP INDEX invitations_to_start;
CREATE INDEX invitations_to_start ON invitations(status, next_start_at) WHERE started_at IS NULL AND status = 'sent';
