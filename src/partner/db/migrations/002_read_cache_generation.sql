-- A counter that every write to accounts, tokens and tests bumps, from any connection or process.
-- The in-memory read caches (db/read-cache.ts) compare it on each use and empty themselves when it
-- moved, so a token revoked by the CLI stops working at once and a new test shows up at once.
CREATE TABLE read_cache_generation (n INTEGER NOT NULL);
INSERT INTO read_cache_generation (n) VALUES (0);

CREATE TRIGGER accounts_insert_bumps AFTER INSERT ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER accounts_update_bumps AFTER UPDATE ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER accounts_delete_bumps AFTER DELETE ON accounts BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_insert_bumps AFTER INSERT ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_update_bumps AFTER UPDATE ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tokens_delete_bumps AFTER DELETE ON account_tokens BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_insert_bumps AFTER INSERT ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_update_bumps AFTER UPDATE ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;
CREATE TRIGGER tests_delete_bumps AFTER DELETE ON tests BEGIN UPDATE read_cache_generation SET n = n + 1; END;
