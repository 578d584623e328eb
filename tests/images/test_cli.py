"""``--png PATH`` on ``sikpan cast``, ``liuyao`` and ``qizheng``: the file is the renderer's PNG; a path that
cannot be written is a localized message and exit 2."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.images import render_liuren, render_liuyao, render_qizheng
from tests.images.cases import QIZHENG_AT, liuren_case, liuyao_case, qizheng_case
from tests.images.same import assert_same_picture


def test_cast_png(tmp_path, capsys):
    out = tmp_path / "out.png"
    assert main(["cast", "--day", "庚辰", "--ju", "8", "--png", str(out), "--lang", "ko"]) == 0
    assert_same_picture(out.read_bytes(), render_liuren(liuren_case(), "ko"))
    assert "庚辰" in capsys.readouterr().out  # the text reply is still printed


def test_qizheng_png(tmp_path):
    out = tmp_path / "wheel.png"
    assert main(["qizheng", "--at", QIZHENG_AT, "--place", "서울", "--png", str(out), "--lang", "ko"]) == 0
    chart, place = qizheng_case()
    assert_same_picture(out.read_bytes(), render_qizheng(chart, "ko", place))


def test_png_with_json_output(tmp_path, capsys):
    out = tmp_path / "j.png"
    assert main(["cast", "--day", "庚辰", "--ju", "8", "--json", "--png", str(out)]) == 0
    assert out.stat().st_size > 0 and capsys.readouterr().out.startswith("{")


LIUYAO = ["liuyao", "--coins", "797979", "--month", "寅", "--day", "戊戌"]


@pytest.mark.parametrize(
    ("lang", "where", "code"),
    [("lzh", "gua.png", 0), ("ko", "missing/out.png", 2), ("lzh", "missing/out.png", 2)],
)
def test_liuyao_png_written_or_exit_2(tmp_path, capsys, lang, where, code):
    """The file is the renderer's PNG; a path that cannot be written is a localized message and exit 2."""
    target = tmp_path / where
    assert main([*LIUYAO, "--png", str(target), "--lang", lang]) == code
    if code == 0:
        assert_same_picture(target.read_bytes(), render_liuyao(liuyao_case(), lang))
        return
    expected = {"ko": "PNG 파일을 쓸 수 없습니다", "lzh": "圖不能寫入"}[lang]
    err = capsys.readouterr().err
    assert expected in err and str(target) in err and "Traceback" not in err
    assert main(["cast", "--day", "庚辰", "--ju", "8", "--png", str(tmp_path), "--lang", lang]) == 2
