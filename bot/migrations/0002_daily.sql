-- Daily readings (daily engineer): one subscription per chat, one delivery row per (subscription, local date).
-- Both tables carry `user_key` (the member who set the subscription), so /forget removes them.

CREATE TABLE subscriptions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    platform        TEXT NOT NULL,                 -- telegram | discord | console
    chat_id         TEXT NOT NULL,                 -- where the reading goes (private chat, group, channel)
    chat_kind       TEXT NOT NULL DEFAULT 'private',  -- private | group | channel
    user_key        TEXT NOT NULL,                 -- who set it ("platform:user_id")
    at_time         TEXT NOT NULL,                 -- local wall time "HH:MM"
    tz              TEXT NOT NULL,                 -- IANA zone of that wall time
    lang            TEXT NOT NULL,                 -- ko | lzh
    kind            TEXT NOT NULL DEFAULT 'liuren',   -- liuren | liuyao
    options         TEXT NOT NULL DEFAULT '{}',    -- JSON: day_starts, liuren.* options of the subscriber
    active          INTEGER NOT NULL DEFAULT 1,
    since           TEXT NOT NULL,                 -- UTC ISO: due instants before this are not "missed"
    disabled_reason TEXT,                          -- why it stopped: "off", "forbidden: …"
    disabled_at     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (platform, chat_id)
);

CREATE INDEX subscriptions_active ON subscriptions (active);
CREATE INDEX subscriptions_user ON subscriptions (user_key);

CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    user_key        TEXT NOT NULL,                 -- copied from the subscription (/forget convention)
    local_date      TEXT NOT NULL,                 -- the subscriber's local date "YYYY-MM-DD"
    due_at          TEXT NOT NULL,                 -- UTC ISO instant the reading was cast for
    status          TEXT NOT NULL,                 -- claimed | sending | sent | skipped | blocked | failed | uncertain
    attempts        INTEGER NOT NULL DEFAULT 0,
    claimed_at      TEXT NOT NULL,
    finished_at     TEXT,
    error           TEXT,
    claim_token     TEXT,                          -- the claiming transaction's token (which rows it won)
    UNIQUE (subscription_id, local_date)
);

CREATE INDEX deliveries_status ON deliveries (status);
CREATE INDEX deliveries_user ON deliveries (user_key);
