-- History numbers from a per-user counter (issue #17): `add_history` increments `last_seq` atomically
-- (INSERT … ON CONFLICT DO UPDATE … RETURNING) instead of reading MAX(seq) + 1, which two writers could
-- read alike. The counter outlives pruning (numbers are never reused) and carries `user_key`, so /forget
-- removes it with the rest of the user's rows. Seeded from the history that exists.

CREATE TABLE history_counters (
    user_key  TEXT PRIMARY KEY,
    last_seq  BIGINT NOT NULL
);

INSERT INTO history_counters (user_key, last_seq) SELECT user_key, MAX(seq) FROM history GROUP BY user_key;
