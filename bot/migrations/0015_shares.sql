-- Shared readings (issue #34 item 2): a cast its owner chose to share, named by an unguessable token (the
-- deep link t.me/<bot>?start=<token>, Discord's /start token:). Whoever has the token sees what a group may
-- see of that one cast (bot.privacy), read again from the history row: never the owner's history, birth data
-- or notes. Revoking stamps revoked_at (the token then opens nothing); /forget deletes the rows with the rest
-- (the user_key convention of 0001), and a pruned or forgotten cast opens nothing either.

CREATE TABLE shares (
    token       TEXT PRIMARY KEY,              -- secrets.token_urlsafe(16): 22 characters of [A-Za-z0-9_-]
    user_key    TEXT NOT NULL,                 -- the owner
    seq         BIGINT NOT NULL,               -- the cast's number in the owner's history
    created_at  TEXT NOT NULL,
    revoked_at  TEXT                           -- NULL: the link opens the cast
);

CREATE INDEX shares_owner ON shares (user_key, seq);
