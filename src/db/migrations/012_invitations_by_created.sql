-- invitations_by_account (account_id, created_at) served no query: the dashboard lists the newest
-- invitations of every account, and looking up an account's invitations (the cascade when an
-- account is deleted, erasing a candidate) is served by invitations_by_candidate, which starts with
-- account_id. It cost every send_candidate a write into a random page of a second index.
-- invitations_by_created serves the dashboard's "newest first" instead, and since created_at only
-- grows, every insert lands on the index's last page.
DROP INDEX invitations_by_account;
CREATE INDEX invitations_by_created ON invitations(created_at);
