"""神煞 (``/shensha``): the command and its spec (:mod:`.command`), its view model (:mod:`.model`) and view
helpers (:mod:`.view`). Its templates: ``templates/<channel>/shensha*.j2``, ``templates/shensha/``.

The package itself imports nothing: ``bot.commands`` imports :mod:`.command` (the registry), ``bot.views``
only the view helpers.
"""
