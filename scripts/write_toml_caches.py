#!/usr/bin/env python3
"""Write the JSON copy of every TOML file the packages ship (`grader.tomlfile`): the
message catalogs of the engine and of the lab, and the lab's rubric.

Run after editing any of them (`tests/test_toml_caches.py` fails until then); the
grader reads a copy only when it was made from the TOML text beside it, so a stale copy
is slower, never wrong. Usage: python scripts/write_toml_caches.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.i18n import flatten  # noqa: E402
from grader.tomlfile import CACHE_SUFFIX, cache_text  # noqa: E402

SHIPPED = ("grader/messages/*.toml", "checks/messages/*.toml", "checks/*.toml")
"""The TOML files the wheel ships (pyproject's package-data), as globs from the root."""


def shipped_toml() -> list[Path]:
    return sorted(p for pattern in SHIPPED for p in ROOT.glob(pattern))


def shape_of(path: Path) -> Any:
    """The shape a file's reader makes of its data: a catalog's is `grader.i18n.flatten`
    (read by `catalog_file`), the rubric's its own tables."""
    return flatten if path.parent.name == "messages" else None


def main(argv: list[str]) -> int:
    from generated_files import write_or_check

    copies = (
        (
            path.with_name(path.name + CACHE_SUFFIX),
            cache_text(path.read_text("utf-8"), shape_of(path)),
        )
        for path in shipped_toml()
    )
    return write_or_check(copies, argv, ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
