-- The topic a daily subscriber chose (issue 32 item 4: `/daily 07:30 재물`): the 大六壬 topic of seed 003 the
-- word names (engine.lexicon → engine.liuren.topics, stored by its 文言 name: 求財, 婚姻 …), read first in
-- each day's reading. NULL: no topic (the day's reading alone). One statement for both dialects.

ALTER TABLE subscriptions ADD COLUMN topic TEXT;
