-- sikpan bot: the name of the user's place and, only with the user's consent, their birth data (bot QA).
-- place_name: JSON {"name", "ko", "zh"} of the city chosen with /place <city> (NULL for bare coordinates).
-- birth: JSON {"at", "zone", "lon", "lat", "place"} saved by /qizheng … save; NULL unless the user consented.
-- Both live on the users row, so /forget removes them with it.

ALTER TABLE users ADD COLUMN place_name TEXT;

ALTER TABLE users ADD COLUMN birth TEXT;
