-- A cast is recorded by one statement (issue 18): `add_history` inserts the history row with the number that
-- follows the user's counter (`SqliteBackend.insert_history`: a subquery on history_counters), and this trigger
-- moves the counter on inside that statement — one statement, committed on its own, instead of BEGIN
-- IMMEDIATE, the counter's upsert, the insert and COMMIT. SQLite takes the write lock when a writing
-- statement starts, before its subquery reads the counter, so concurrent writers (other connections, other
-- processes) still get distinct, consecutive numbers. MAX keeps the counter from going back should a row with
-- a lower number ever be inserted directly: numbers are never reused. No row or counter changes here.
-- (PostgreSQL needs no trigger: its `insert_history` is one statement with a data-modifying CTE.)

CREATE TRIGGER history_counter AFTER INSERT ON history
BEGIN
    INSERT INTO history_counters (user_key, last_seq) VALUES (NEW.user_key, NEW.seq)
        ON CONFLICT(user_key) DO UPDATE SET last_seq = MAX(history_counters.last_seq, excluded.last_seq);
END;
