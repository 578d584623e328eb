"""Helpers: casts named like the seed (「乾之既濟」) and pure hexagrams; ``chart`` gives the whole Reading."""

from engine.core.cycle import Branch, GanZhi
from engine.liuyao import Cast, Options, Reading, build, cast_manual, hexagram_by_name


def zhi(main: str, changed: str | None = None) -> Cast:
    """The cast whose 本卦 is ``main`` and whose 之卦 is ``changed`` (moving lines = the differing ones)."""
    m = hexagram_by_name(main).bits
    c = hexagram_by_name(changed).bits if changed else m
    return cast_manual(
        "".join(
            ("9" if a == "1" else "6") if a != b else ("7" if a == "1" else "8")
            for a, b in zip(m, c, strict=True)
        )
    )


def chart(
    main: str,
    changed: str | None,
    month: str,
    day: str,
    use: str | None = None,
    options: Options | None = None,
) -> Reading:
    opts = options or Options()
    return build(zhi(main, changed), Branch.from_char(month), GanZhi.parse(day), use=use, options=opts)
