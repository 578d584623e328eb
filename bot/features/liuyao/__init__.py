"""六爻 (``/liuyao``): the command and its spec (:mod:`.command`), its view model (:mod:`.model`) and view
helpers (:mod:`.view`). Its templates: ``templates/<channel>/liuyao*.j2``, ``templates/chat/liuyao_*.j2``,
``templates/liuyao/``; its picture: ``bot/images/liuyao.py``.

The package itself imports nothing: ``bot.commands`` imports :mod:`.command` (the registry), ``bot.views``
only the view helpers.
"""
