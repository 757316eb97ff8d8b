-- A cancel reaches the vendor's product: the provider's `cancelInvitation` is called after the
-- cancel has committed, by a background loop that works through these columns (the invitation row
-- is the queue, as for the start). product_cancel says what the product has heard of the cancel:
--   NULL        nothing to tell (not canceled; canceled before the product started anything; or a
--               provider without the hook)
--   pending     to be told, at product_cancel_next_at (retried with backoff, and claimed through it)
--   told        the hook returned, at product_told_at
--   dead        given up: the hook kept failing for as long as a report update is retried
--   by_product  the product canceled it itself (its own `canceled` result): nothing to tell it
ALTER TABLE invitations ADD COLUMN product_cancel TEXT CHECK (product_cancel IN ('pending', 'told', 'dead', 'by_product'));
ALTER TABLE invitations ADD COLUMN product_cancel_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE invitations ADD COLUMN product_cancel_next_at TEXT;
ALTER TABLE invitations ADD COLUMN product_cancel_error TEXT;
ALTER TABLE invitations ADD COLUMN product_told_at TEXT;
CREATE INDEX invitations_to_tell_product ON invitations(product_cancel_next_at) WHERE product_cancel = 'pending';
