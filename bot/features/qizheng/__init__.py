"""七政四餘 (``/qizheng``): the command and its spec (:mod:`.command`) and its view model (:mod:`.model`).
Its templates: ``templates/<channel>/qizheng*.j2``, ``templates/qizheng/``; its picture: ``bot/images/qizheng.py``.

The package itself imports nothing: ``bot.commands`` imports :mod:`.command` (the registry), ``bot.views``
only the view helpers.
"""
