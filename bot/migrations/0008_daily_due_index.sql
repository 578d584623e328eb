-- The due look-ups of the schedulers by (platform, next_due_at) (issue 18). Every query of theirs names the
-- platforms it sends to (`platform IN (…) AND next_due_at <= ?` to claim, `platform = ? … ORDER BY next_due_at
-- LIMIT 1` for the next wake-up): one range of this index each, however many subscriptions there are.
-- `subscriptions_active` (active) goes: no query needs it, and without statistics SQLite's planner chose it
-- for `active = 1 AND …`, reading every active subscription at every claim (measured: 110 ms per claim at
-- 100,000 subscriptions, against 0.1 ms through this index for a minute's rows).
-- `subscriptions_next_due` (next_due_at) becomes `subscriptions_undue`, the rows without a due only
-- (`next_due_at IS NULL`, DailyStore.fill_next_due): empty in the usual case, so the claims' updates of
-- next_due_at write one index fewer (on PostgreSQL every index of a row gets an entry per update).

DROP INDEX IF EXISTS subscriptions_active;
DROP INDEX IF EXISTS subscriptions_next_due;
CREATE INDEX subscriptions_due ON subscriptions (platform, next_due_at) WHERE active = 1;
CREATE INDEX subscriptions_undue ON subscriptions (id) WHERE active = 1 AND next_due_at IS NULL;
