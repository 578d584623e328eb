-- History keeps inputs, not renderings (issue 31 item 6). A cast's row holds its inputs and options (as
-- before), the engine version that cast it (`engine`) and /history's line of it (`summary`, a JSON object of a
-- few characters); its command casts the inputs again to show it (/show, the page buttons: text, every page
-- and the picture from one cast), so the row no longer holds the view model (`context` is '{}').
-- Rows stored before this migration keep their view model in `context` (`engine` NULL) and are shown as they
-- were answered. Their members that 0011 stored apart in `kept` were put back into each row's `context` by
-- the Python step that runs before this SQL in the same transaction (`bot.storage.inline_kept`); `kept` goes.

ALTER TABLE history ADD COLUMN engine TEXT;    -- the engine version that cast it; NULL: stored before 0012
ALTER TABLE history ADD COLUMN summary TEXT;   -- JSON: what /history says of it; NULL: stored before 0012

DROP TABLE kept;
ALTER TABLE history DROP COLUMN kept;
