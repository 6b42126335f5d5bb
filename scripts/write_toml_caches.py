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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.tomlfile import CACHE_SUFFIX, cache_text  # noqa: E402

SHIPPED = ("grader/messages/*.toml", "checks/messages/*.toml", "checks/*.toml")
"""The TOML files the wheel ships (pyproject's package-data), as globs from the root."""


def shipped_toml() -> list[Path]:
    return sorted(p for pattern in SHIPPED for p in ROOT.glob(pattern))


def main(argv: list[str]) -> int:
    from generated_files import write_or_check

    copies = (
        (path.with_name(path.name + CACHE_SUFFIX), cache_text(path.read_text("utf-8")))
        for path in shipped_toml()
    )
    return write_or_check(copies, argv, ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
