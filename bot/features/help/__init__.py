"""/start and /help (:mod:`.command`): built from the registry of :mod:`bot.features.base`. Templates:
``templates/<channel>/{start,help,help_command}.*.j2``, ``templates/chat/{start_examples,help_choices}.txt.j2``."""
