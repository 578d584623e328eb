"""Chinese numerals for Classical Chinese text: 7 → 七, 11 → 十一, 20 → 二十, 105 → 一百零五, 720 → 七百二十.

The common literary forms (《說文》 一…十、百、千、萬; 零 for a gap inside a number, as in 一百零五; 十 alone
for 10–19 at the head of a number: 十一, not 一十一). Line ordinals of a hexagram read from the bottom:
初爻 二爻 三爻 四爻 五爻 上爻 (《周易》 爻題: 初九、九二 … 上九).
"""

from __future__ import annotations

DIGITS = "零一二三四五六七八九"
UNITS = ((1000, "千"), (100, "百"), (10, "十"))
LINE_ORDINALS = ("初", "二", "三", "四", "五", "上")


def _below_10000(n: int) -> str:
    out = []
    zero = False
    for value, unit in UNITS:
        d, n = divmod(n, value)
        if d:
            if zero:
                out.append("零")
                zero = False
            out.append(DIGITS[d] + unit)
        elif out:
            zero = True
    if n:
        if zero:
            out.append("零")
        out.append(DIGITS[n])
    return "".join(out)


def chinese(n: int) -> str:
    """``n`` (0 ≤ n < 10⁸) in Chinese numerals."""
    if not 0 <= n < 100_000_000:
        raise ValueError(f"no Chinese numeral for {n}")
    if n == 0:
        return DIGITS[0]
    high, low = divmod(n, 10000)
    text = (_below_10000(high) + "萬" if high else "") + (
        ("零" if high and low < 1000 and low else "") + _below_10000(low) if low else ""
    )
    return text[1:] if text.startswith("一十") else text


def line_ordinal(line: int) -> str:
    """The name of hexagram line ``line`` (1 = bottom … 6 = top) without 爻: 初, 二 … 上."""
    if not 1 <= line <= 6:
        raise ValueError(f"a hexagram has lines 1…6, not {line}")
    return LINE_ORDINALS[line - 1]
