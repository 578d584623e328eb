"""The settings of the operator's subcommands (``run``, ``migrate``, ``backup``, ``export``, ``import``),
read the same way by each: a setting that cannot work ends the command with one line and exit status 2
(:class:`UsageError`); the
secrets are registered for redaction before anything can print them (:func:`bot.config.install_redaction`);
each ``SIKPAN_*``, ``TELEGRAM_*`` or ``DISCORD_*`` variable that is none of ours is named on stderr with the
nearest known name (a typo'd variable is otherwise silently ignored)."""

from __future__ import annotations

import sys

from bot.cli.common import UsageError
from bot.config import (
    ConfigError,
    Settings,
    install_redaction,
    load_settings,
    setting_names,
    unknown_variables,
)
from bot.i18n import N_, default_lang, gettext


def warn_unknown(env_file: str | None, lang: str) -> list[str]:
    """Print (stderr) and return one line per unknown variable of ours in the environment and ``.env``."""
    lines = []
    for name, near in unknown_variables(setting_names(env_file=env_file)):
        if near is not None:
            lines.append(gettext(lang, N_("bot.warning.config_unknown_near"), name=name, near=near))
        else:
            lines.append(gettext(lang, N_("bot.warning.config_unknown"), name=name))
    for line in lines:
        print(line, file=sys.stderr)
    return lines


def operator_settings(env_file: str | None) -> Settings:
    """The settings (environment over ``env_file``/``.env``), their secrets registered for redaction, after
    a warning for each unknown variable; :class:`UsageError` for a setting that cannot be used."""
    try:
        warn_unknown(env_file, default_lang())
        settings = load_settings(env_file=env_file)
    except ConfigError as err:
        raise UsageError(err.code, **err.params) from None
    except OSError as err:  # the .env file cannot be read
        raise UsageError(
            N_("bot.error.config_file"), name="SIKPAN_ENV_FILE", path=str(env_file), detail=err.strerror or ""
        ) from None
    install_redaction(settings)
    return settings


__all__ = ["operator_settings", "warn_unknown"]
