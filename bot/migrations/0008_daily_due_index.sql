-- The due look-ups of the schedulers by (platform, next_due_at) (issue 18). Every query of theirs names the
-- platforms it sends to (`platform IN (…) AND next_due_at <= ?` to claim, `platform = ? … ORDER BY next_due_at
-- LIMIT 1` for the next wake-up): one range of this index each, however many subscriptions there are.
-- `subscriptions_active` (active) goes: no query needs it, and without statistics SQLite's planner chose it
-- for `active = 1 AND …`, reading every active subscription at every claim (measured: 110 ms per claim at
-- 100,000 subscriptions, against 0.1 ms through this index for a minute's rows).
-- `subscriptions_next_due` (next_due_at) stays: it finds the rows without a due (`next_due_at IS NULL`,
-- DailyStore.fill_next_due).

DROP INDEX IF EXISTS subscriptions_active;
CREATE INDEX subscriptions_due ON subscriptions (platform, next_due_at) WHERE active = 1;
