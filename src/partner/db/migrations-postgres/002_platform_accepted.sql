-- The invitation e-mail waits until the platform has accepted one of the report's updates
-- (docs/report-delivery.md, "The platform first"): platform_accepted_at is when it first did. A
-- report whose first update the platform answers 404 was never known to it, and its invitation is
-- canceled with the reason in cancel_reason.
ALTER TABLE invitations ADD COLUMN platform_accepted_at TEXT;
ALTER TABLE invitations ADD COLUMN cancel_reason TEXT;

-- Reports the platform already accepted an update of.
UPDATE invitations SET platform_accepted_at = (
    SELECT min(u.delivered_at) FROM report_updates u WHERE u.invitation_id = invitations.id AND u.status = 'delivered')
 WHERE EXISTS (SELECT 1 FROM report_updates u WHERE u.invitation_id = invitations.id AND u.status = 'delivered');
-- Candidates already e-mailed (their delivered updates may be pruned by now): as they were treated.
UPDATE invitations SET platform_accepted_at = updated_at
 WHERE platform_accepted_at IS NULL
   AND EXISTS (SELECT 1 FROM mail_outbox m WHERE m.invitation_id = invitations.id AND m.status = 'sent');
-- An e-mail still waiting, for a report the platform has not accepted yet: it is queued again
-- when the platform does, and never if it does not know the report.
DELETE FROM mail_outbox
 WHERE status = 'pending'
   AND invitation_id IN (SELECT id FROM invitations WHERE platform_accepted_at IS NULL);
