"""The daily reading: /daily and /today (:mod:`.command`); the reading itself is rendered by ``bot.daily``
and delivered by ``bot.scheduler``. Templates: ``templates/<channel>/daily*.j2``."""
