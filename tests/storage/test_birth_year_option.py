"""Issue 32 limit 2: the birth year saved alone is one of the user's options (the settings model), so it needs no
new column: it is kept and read back on both engines (SQLite and PostgreSQL), and an options reset drops it."""

from __future__ import annotations

from bot.features import options as engine_options
from bot.storage import Storage
from tests.storage.conftest import store, target  # noqa: F401  (the fixtures: one per engine)

USER = "telegram:4242"


async def test_the_saved_birth_year_round_trips_and_is_reset(store: Storage):  # noqa: F811
    await store.touch_user(USER, "telegram", "4242", None)
    option = engine_options.setting("生年")
    assert option is not None
    value = engine_options.normalize_setting(option, "1990년생")
    saved = await store.update_user(USER, options={"sex": "male", option.key: value})
    again = await store.get_user(USER)
    assert again == saved and engine_options.saved_birth_year(again.options) == 1990
    reset = await store.update_user(USER, options={})  # /settings reset
    assert engine_options.saved_birth_year(reset.options) is None
