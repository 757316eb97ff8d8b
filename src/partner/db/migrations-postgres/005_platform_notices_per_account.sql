-- A platform's notices are bounded per account (src/partner/platforms/notices.ts): each new one is
-- counted against its account's rate, and the account's older ones past its newest 20 deleted.
-- Both read one account's notices by time.
CREATE INDEX platform_notices_of_account ON platform_notices(account_id, received_at);

-- A database flooded before the bound keeps each account's newest 20.
DELETE FROM platform_notices WHERE id IN (
  SELECT id FROM (
    SELECT id, row_number() OVER (PARTITION BY account_id ORDER BY received_at DESC, id DESC) AS nth FROM platform_notices
  ) AS ranked WHERE nth > 20
);
