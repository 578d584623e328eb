-- One index on history's (user_key, seq), not two (issue 18). `UNIQUE (user_key, seq)` of 0001 is an index
-- already (SQLite's `sqlite_autoindex_history_1`, PostgreSQL's `history_user_key_seq_key`), on the same
-- columns in the same order as `history_user`: every query of the history (a user's entry N, the newest
-- first, the count, the pruning) reads the unique one just as well, and each recorded cast wrote both
-- (measured on SQLite: 7.8 → 6.7 pages written to the WAL per cast). The uniqueness that keeps history numbers
-- from repeating stays; no row changes.

DROP INDEX IF EXISTS history_user;
