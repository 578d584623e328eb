-- Telegram webhook updates seen by any replica (issue #17): an update is handled once however often
-- Telegram delivers it (a POST that failed or was cut is redelivered, maybe to another replica).
-- A replica inserts the row before it handles the update (`state` 'handling', its `owner` token, a lease in
-- `expires_at` that it renews while it works) and marks it 'done' (kept until `expires_at`, a day: Telegram
-- gives up on an update after 24 hours) when the reply is sent. A redelivery finds 'done' → answered 200
-- without handling; 'handling' under a live lease → 503, Telegram tries again later; 'handling' with an
-- expired lease (its replica died) → taken over by one conditional upsert.

CREATE TABLE webhook_updates (
    bot         TEXT NOT NULL,                 -- 'telegram:<bot id>': bots may share one database
    update_id   BIGINT NOT NULL,
    state       TEXT NOT NULL,                 -- 'handling' | 'done'
    owner       TEXT NOT NULL,                 -- random token of the replica that handles (handled) it
    expires_at  TEXT NOT NULL,                 -- UTC ISO: end of the lease, or when the row may go
    PRIMARY KEY (bot, update_id)
);

CREATE INDEX webhook_updates_expiry ON webhook_updates (expires_at);
CREATE INDEX webhook_updates_owner ON webhook_updates (owner, state);
