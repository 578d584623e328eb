"""The daily reading: /daily and /today (:mod:`.command`) and what a reading says (:mod:`.reading`: the view
model of a moment and its picture); ``bot.daily`` renders readings for many subscribers at once and
``bot.scheduler`` delivers them. Templates: ``templates/<channel>/daily*.j2``."""
