-- Daily readings across processes (issue #17). Each running scheduler has a row in `schedulers` and
-- refreshes `heartbeat_at`; every delivery row names the scheduler that claimed it (`claimed_by`).
-- A scheduler takes over only rows of schedulers whose heartbeat is older than the stale age (or that left),
-- never "everything claimed is mine at start-up"; and only the scheduler named in `claimed_by` may move a
-- row from `claimed` to `sending` (one conditional UPDATE): a reading is sent at most once.
-- `subscriptions.updated_at` is polled so that a subscription written by another process is planned.

ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;

CREATE TABLE schedulers (
    token        TEXT PRIMARY KEY,              -- random per scheduler run
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL                  -- UTC ISO, refreshed while it runs
);

CREATE INDEX deliveries_claimed_by ON deliveries (claimed_by);
CREATE INDEX subscriptions_updated ON subscriptions (updated_at);
