"""``SIKPAN_LOG_FORMAT`` (bot.config) and the JSON log lines of bot.logs: one object a line, carrying the
update, job and delivery ids set at the boundaries, and nothing of a block once it ended."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from bot.config import ConfigError, load_settings
from bot.i18n import gettext
from bot.logs import JsonFormatter, formatter, ids


def capture() -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("tests.logs")
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger, stream


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_the_log_format_setting():
    assert load_settings({"SIKPAN_ENV_FILE": "/nonexistent"}).log_format == "text"
    assert (
        load_settings({"SIKPAN_ENV_FILE": "/nonexistent", "SIKPAN_LOG_FORMAT": "JSON"}).log_format == "json"
    )
    with pytest.raises(ConfigError) as err:
        load_settings({"SIKPAN_ENV_FILE": "/nonexistent", "SIKPAN_LOG_FORMAT": "xml"})
    assert err.value.code == "bot.error.config_choice"
    for lang in ("ko", "lzh"):
        text = gettext(lang, err.value.code, **err.value.params)
        assert "SIKPAN_LOG_FORMAT" in text and "text, json" in text and "xml" in text
    assert isinstance(formatter("json"), JsonFormatter)
    assert not isinstance(formatter("text"), JsonFormatter)


def test_a_line_carries_the_ids_of_its_block_and_none_after():
    logger, stream = capture()
    logger.info("before")
    with ids(update=41):
        with ids(job="sikpan:delivery:7", delivery=7):
            logger.warning("sending %s", "it")
        logger.info("after the job")
    logger.info("after")
    before, inside, after_job, after = lines(stream)
    assert set(before) == {"ts", "level", "logger", "message"}
    assert before["logger"] == "tests.logs" and str(before["ts"]).endswith("Z")
    assert inside == inside | {
        "level": "WARNING",
        "message": "sending it",
        "update_id": 41,
        "job_id": "sikpan:delivery:7",
        "delivery_id": 7,
    }
    assert after_job["update_id"] == 41 and "job_id" not in after_job and "delivery_id" not in after_job
    assert "update_id" not in after


async def test_concurrent_tasks_keep_their_own_ids():
    logger, stream = capture()

    async def job(n: int) -> None:
        with ids(delivery=n):
            await asyncio.sleep(0.01 * (3 - n))
            logger.info("delivery %d", n)

    await asyncio.gather(*(job(n) for n in range(3)))
    assert sorted((e["message"], e["delivery_id"]) for e in lines(stream)) == [
        (f"delivery {n}", n) for n in range(3)
    ]


def test_a_traceback_is_one_field_of_the_one_line():
    logger, stream = capture()
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("failed")
    (entry,) = lines(stream)
    assert entry["level"] == "ERROR" and "ValueError: boom" in str(entry["exc"])
    assert stream.getvalue().count("\n") == 1
