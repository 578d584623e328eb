"""Feature packages: each command family in one place (issue #31; docs/adding-a-command.md).

- :mod:`bot.features.base` — what a command and its views share: what a transport hands in (``Incoming``),
  what a command answers (``Reply``), the command spec with all its metadata (``CommandSpec``, ``Stored``,
  ``Page``) and the registry built from the specs, which drives ``/help``, the Discord command sync, privacy,
  ``/history`` and the pages of a stored cast; ``Feature``/``install`` for a package that brings its own
  templates and catalogs;
- :mod:`bot.features.common`, :mod:`bot.features.options` — what several commands use (parsing, storing a
  cast, the settings model);
- one package per family: ``liuren`` (大六壬, ``/cast``), ``liuyao`` (六爻), ``shensha`` (神煞), ``qizheng``
  (七政四餘), ``daily`` (``/daily`` ``/today``), ``account`` (``/lang`` ``/tz`` ``/place`` ``/settings``,
  ``/history`` ``/show`` ``/forget``), ``help`` (``/start`` ``/help``): its command and spec, its view model
  (``model.py``) and view helpers (``view.py``) where it has them. Templates stay in ``templates/`` (named in
  each package's docstring); the chart pictures' layouts in ``bot/images/`` (the spec names the kind).

A package's ``__init__`` imports nothing: ``bot.commands`` imports the command modules (the registry),
``bot.views`` only the view helpers, so the views never import a command.
"""
