-- Secrets of the server itself, generated once by the first process that needs one and shared by every
-- process on this database (issue 36): `buttons` keys the seals of the buttons' data (bot.seal), unless the
-- operator sets SIKPAN_BUTTON_SECRET. Written with INSERT … ON CONFLICT DO NOTHING and read back, so
-- processes starting together agree on one value. Nobody's personal data: /forget leaves it.

CREATE TABLE server_secrets (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL                       -- base64url of random bytes
);
