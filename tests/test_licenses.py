"""The default install (``pip install sikpan``, no extras) is permissively licensed: no GPL of any kind (AGPL,
LGPL, GPL) in the closure of the base dependencies, and file-level copyleft (MPL-2.0) only where the field's
own library brings it (certifi, the CA bundle skyfield downloads kernels with). Read from the installed
distributions' metadata (License-Expression, License, the License classifiers)."""

from __future__ import annotations

import importlib.metadata as md
import re

from packaging.requirements import Requirement

# MPL-2.0 accepted here only: certifi (skyfield's dependency; MPL-2.0 is file-level and it is used unmodified)
MPL_ALLOWED = frozenset({"certifi"})


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def base_closure() -> dict[str, md.Distribution]:
    """Every distribution the base install of sikpan pulls in (markers evaluated, no extras)."""
    seen: dict[str, md.Distribution] = {}
    todo = [
        Requirement(r)
        for r in md.distribution("sikpan").requires or []
        if "extra ==" not in str(Requirement(r).marker)
    ]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = _key(req.name)
        if key in seen:
            continue
        dist = md.distribution(req.name)
        seen[key] = dist
        todo.extend(Requirement(r) for r in dist.requires or [])
    return seen


def licence_text(dist: md.Distribution) -> str:
    meta = dist.metadata
    classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
    return " | ".join([meta.get("License-Expression") or "", (meta.get("License") or "")[:200], *classifiers])


def test_the_base_closure_is_found():
    closure = base_closure()
    for name in ("jinja2", "pillow", "skyfield", "numpy"):  # declared in pyproject.toml
        assert name in closure, sorted(closure)


def test_no_gpl_and_mpl_only_where_allowed():
    offending = {}
    for key, dist in base_closure().items():
        text = licence_text(dist)
        if re.search(r"\bA?L?GPL|General Public License", text):
            offending[key] = text
        elif re.search(r"MPL|Mozilla Public", text) and key not in MPL_ALLOWED:
            offending[key] = text
    assert not offending, offending
