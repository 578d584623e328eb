"""大六壬 (``/cast``): the command and its spec (:mod:`.command`), its view model (:mod:`.model`) and view
helpers (:mod:`.view`). Its templates: ``templates/<channel>/cast*.j2``, ``templates/liuren/``; its picture:
``bot/images/liuren.py``.

The package itself imports nothing: ``bot.commands`` imports :mod:`.command` (the registry), ``bot.views``
only the view helpers.
"""
