-- Daily readings found by the database (issue #17): every active subscription carries the next (local date,
-- UTC instant) it is due that has not been handled yet. It is computed when the row is written
-- (bot.schedule_time.pending_due) and advanced by the transaction that claims (or skips) that day, so any
-- scheduler of any process finds what is due with one indexed query (`next_due_at <= now`) — no in-process
-- notify, no polling of `updated_at`.
-- Back-fill: the wall-time rules need the IANA zone data, which SQL does not have. Rows left NULL here (the
-- existing ones, and rows an older binary writes during a rolling upgrade) are filled in Python by
-- DailyStore.fill_next_due, run by `Storage.migrate` right after this migration and by every scheduler at
-- start and at each look at the database.

ALTER TABLE subscriptions ADD COLUMN next_due_at TEXT;      -- UTC ISO instant ("2026-11-29T22:00:00+00:00")
ALTER TABLE subscriptions ADD COLUMN next_local_date TEXT;  -- the subscriber's local date of that instant

CREATE INDEX subscriptions_next_due ON subscriptions (next_due_at) WHERE active = 1;
