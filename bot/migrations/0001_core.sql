-- sikpan bot core schema (bot-core).
-- Convention for every later migration: a table holding a user's data has a `user_key` column
-- ("platform:user_id"); /forget deletes the user's rows from every such table.

CREATE TABLE users (
    user_key     TEXT PRIMARY KEY,              -- "telegram:123", "discord:456", "console:local"
    platform     TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    display_name TEXT,
    lang         TEXT,                          -- ko | lzh | NULL (platform hint, then SIKPAN_LANG)
    tz           TEXT,                          -- IANA zone | NULL (SIKPAN_TZ)
    longitude    REAL,                          -- east positive, for true solar time / 七政四餘
    latitude     REAL,
    options      TEXT NOT NULL DEFAULT '{}',    -- JSON: school options
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_key    TEXT NOT NULL,
    seq         INTEGER NOT NULL,               -- the user's number N for /show N (1, 2, …)
    kind        TEXT NOT NULL,                  -- cast | shensha | liuyao | qizheng
    command     TEXT NOT NULL,                  -- the command line as typed
    inputs      TEXT NOT NULL,                  -- JSON: resolved inputs (instant, zone, day, 局 …)
    options     TEXT NOT NULL,                  -- JSON: options in force
    view        TEXT NOT NULL,                  -- template name
    context     TEXT NOT NULL,                  -- JSON: the view model, re-rendered by /show N
    created_at  TEXT NOT NULL,
    UNIQUE (user_key, seq)
);

CREATE INDEX history_user ON history (user_key, seq);
