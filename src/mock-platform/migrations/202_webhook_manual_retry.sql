-- "Retry now" on a delivery that has no automatic retries left — given up ('failed') or canceled —
-- makes exactly one attempt: `manual_from` remembers the status it returns to if that attempt
-- fails too (NULL: the delivery follows the automatic schedule).
ALTER TABLE webhook_deliveries ADD COLUMN manual_from TEXT CHECK (manual_from IN ('failed', 'canceled'));
