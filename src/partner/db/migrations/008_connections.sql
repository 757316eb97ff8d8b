-- A customer account's connection to each platform it is sold through (docs/platforms.md): the
-- platform's company id, as text, and the customer's credential for that platform when the partner
-- must call it with one (Ashby's API key, Bob's OAuth tokens), sealed under CANDIDATE_LINK_SECRET
-- (lib/sealer.ts). One company is one customer: a company id belongs to one account per platform.
CREATE TABLE connections (
  account_id         INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  platform           TEXT NOT NULL,
  company_id         TEXT,
  credential         TEXT,
  credential_hint    TEXT,
  credential_set_at  TEXT,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  PRIMARY KEY (account_id, platform)
);
CREATE UNIQUE INDEX connections_by_company ON connections(platform, company_id) WHERE company_id IS NOT NULL;
