-- The journal of outcomes (issue #34 item 5): what happened after a cast, and whether its reading held.
-- One row per cast the user wrote about (user_key, seq = the history number N of /show N); private to the
-- user, deleted by /forget with the rest (the user_key convention of 0001).

CREATE TABLE notes (
    user_key    TEXT NOT NULL,
    seq         BIGINT NOT NULL,               -- the cast's number in the user's history
    outcome     TEXT,                          -- held | missed | partly | NULL (not judged yet)
    text        TEXT NOT NULL DEFAULT '',      -- what happened, in the user's words (≤ 500 characters)
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (user_key, seq)
);
