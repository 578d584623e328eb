-- What a command's cache shares, stored once (issue 18). The members of a cast's context that are the same for
-- every cast of that 課 and category (the 大六壬 view: board, lessons, readings, verdict …, ≈ 30 kB of its 32 kB)
-- or of that hour (the 神煞 stars, ≈ 14 kB) were written into every history row: one durable commit of a
-- /cast wrote 13 WAL pages. They are now one row of `kept`, keyed by the SHA-256 of its text (a JSON object of
-- those members), written once (INSERT … ON CONFLICT DO NOTHING; a process that has stored a digest does not
-- write it again) and named by `history.kept`; the row's own `context` keeps their places (as null) and
-- the rest. Reads (`Storage.get_history`, `list_history`) put the kept members back in their places: the same
-- context as before, key order included.
-- Rows written before this migration keep their whole context inline (`kept` NULL): nothing is rewritten.
-- `kept` has no `user_key`: a 課's view or an hour's stars is nobody's data, and /forget leaves it (the user's
-- history rows, which alone say who cast what, go). Kept rows are never deleted, so a digest a process has
-- stored stays stored. No foreign key: on PostgreSQL its check locks the referenced row (a shared row every
-- cast of that 課 would write a lock to).

CREATE TABLE kept (
    digest TEXT PRIMARY KEY,                   -- hex SHA-256 of `text` (its UTF-8)
    text   TEXT NOT NULL                       -- JSON object: member name → value, in the context's order
);

ALTER TABLE history ADD COLUMN kept TEXT;      -- kept.digest of the context's shared members, or NULL
