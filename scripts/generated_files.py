"""What each `write_*.py` script does with the files it generates: writes the ones whose
text changed, or, with `--check`, names the stale ones and writes nothing.

The tests run every such script with `--check` (a generated file is never edited by
hand, and a stale one fails its test), so the contract is one function here, not a copy
per script.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def write_or_check(expected: Iterable[tuple[Path, str]], argv: Sequence[str], root: Path) -> int:
    """Write each `(path, text)` whose file is missing or differs, or with `--check` in
    `argv` only print `stale: PATH` for it; 1 when `--check` found a stale file."""
    check = "--check" in argv
    stale = False
    for path, text in expected:
        if path.is_file() and path.read_text("utf-8") == text:
            continue
        shown = path.relative_to(root)
        if check:
            stale = True
            print(f"stale: {shown}")
        else:
            path.write_text(text, "utf-8")
            print(f"wrote {shown}")
    return 1 if stale else 0
