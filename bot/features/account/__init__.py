"""The user's own account: settings (:mod:`.settings`: /lang /tz /place /settings) and casts (:mod:`.history`:
/history /show /forget) and its data as files (:mod:`.export`: /export). Templates:
``templates/<channel>/{lang,tz,place,settings,history,forget,export}.*.j2``,
``templates/chat/history_*.txt.j2`` are the families' /history lines."""
