#!/usr/bin/env python3
"""Build the hostile sample submissions: what a careless or malicious student could save.

Each is the real `correct` run with one file replaced by something hostile. The grader
must give each a valid result with a clear message on the artifact concerned, grade the
rest, and never crash or hang. Cases that can't live in git (FIFOs, symbolic links,
files of many megabytes) are built at test time by `RUNTIME_CASES`, from the same table.

Run from the repository root: `python scripts/make_hostile.py`. It rewrites
`sample_submissions/hostile/` and the hostile entries of `sample_submissions/EXPECTED.json`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.hostile_cases import CASES, HOSTILE, RUNTIME_CASES, build
from tests.verdicts import verdict, write_expected


def main() -> None:
    shutil.rmtree(HOSTILE, ignore_errors=True)
    entries: dict[str, dict[str, object]] = {}
    for name, (_, mutation, must, may) in CASES.items():
        build(HOSTILE / name, mutation)
        entries[f"hostile/{name}"] = verdict(must, may) if must else {"full_marks": True}
    write_expected("hostile/", entries)
    rows = [
        "# Hostile samples",
        "",
        "Each is the real `correct` run with one file made hostile. Expected verdicts are in",
        "`../EXPECTED.json`; the cases marked *runtime* are built by the tests (FIFOs, links and",
        "huge files can't live in git) from `scripts/make_hostile.py`.",
        "",
        "| case | what it is | verdict |",
        "|---|---|---|",
    ]
    for table, kind in ((CASES, ""), (RUNTIME_CASES, " *(runtime)*")):
        for name, (what, _, must, _may) in table.items():
            shown = ", ".join(f"`{m}` fails" for m in must) if must else "full marks"
            rows.append(f"| `{name}`{kind} | {what} | {shown} |")
    (HOSTILE / "README.md").write_text("\n".join(rows) + "\n", "utf-8")


if __name__ == "__main__":
    main()
