"""What the bulk readings (a plain event stream's chunks, a JSON Lines file's records)
are held to: for any text, what reading every value one by one gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from checks import LAB

LIMITS = LAB.default_limits()
ROOT = Path(__file__).resolve().parent


def saved_files(name: str) -> list[str]:
    """The distinct texts of `name` among the real captures and the samples."""
    paths = [*ROOT.glob(f"data/real/*/{name}"), *ROOT.parent.glob(f"sample_submissions/*/{name}")]
    return sorted({path.read_text("utf-8") for path in paths})


def read_both(
    parse: Any,
    text: str,
    file: str,
    key: str,
    monkeypatch: pytest.MonkeyPatch,
    one_by_one: tuple[Any, str, Any],
) -> tuple[tuple, tuple]:
    """What `parse` makes of `text` (its value, problems, and the lines it gives the
    pointers to each value's `key`, to a malformed index and to the whole), as it reads
    it, then with `one_by_one` (object, attribute, replacement) patched in to turn the
    bulk reading off."""

    def outcome() -> tuple:
        parsed = parse(text, file, LIMITS)
        lines = [parsed.line_of(f"/{i}/{key}") for i in range(-1, 80)]
        return parsed.value, parsed.problems, lines, parsed.line_of("/01"), parsed.line_of("")

    quick = outcome()
    with monkeypatch.context() as patch:
        patch.setattr(*one_by_one)
        each = outcome()
    return quick, each
