"""The expected verdict of a sample, as sample_submissions/EXPECTED.json writes it.

Shared by the tests and by the scripts that rebuild the samples (`scripts/make_derived.py`,
`scripts/make_hostile.py`).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_submissions"
SOURCE = SAMPLES / "correct"


def verdict(must: list[str], may: list[str]) -> dict[str, object]:
    """The EXPECTED.json entry: full marks when nothing must fail; else the checks that
    must fail, and those that may: the ones named, and every check skipped because a
    must-fail check did not pass."""
    from checks import LAB

    if not must:
        return {"full_marks": True}
    skipped = [c for c in LAB.downstream([*must, *may]) if c not in may]
    may = [*may, *skipped]
    return {"must_fail": must, "may_fail": may} if may else {"must_fail": must}


def write_expected(prefix: str, entries: dict[str, dict[str, object]]) -> None:
    """Replace the `prefix` entries of sample_submissions/EXPECTED.json with `entries`."""
    path = SAMPLES / "EXPECTED.json"
    expected = {
        k: v for k, v in json.loads(path.read_text("utf-8")).items() if not k.startswith(prefix)
    }
    expected.update(entries)
    path.write_text(json.dumps(dict(sorted(expected.items())), indent=2) + "\n", "utf-8")
