"""Keep the working directory off `sys.path`, before anything else is imported.

`python -m grader` puts the working directory first on `sys.path`; an instructor who
grades from inside a submission folder (`cd alice && python -m grader check .`) would
then import any module the student left there (`jsonschema.pyc`, `argparse.py`, a
`checks/` folder) in place of the real one. The entry points (`grader/__main__.py`,
`grader.cli.main.main`) call `drop_working_directory()` first, so every later import comes
from the installation. The one working directory kept is the folder the grader itself
runs from (a checkout without installation, where `checks/` and `schemas/` live).

What no code of ours can prevent: modules Python imports *before* the grader starts
(`runpy` for `-m`, and the `grader` package itself) come from the working directory
when it holds them. Hence the README's advice: run the `grader` command, or
`python -P -m grader` (Python 3.11+), not `python -m grader` inside a submission.

This module imports only `os` and `sys`, which the interpreter has loaded already.
"""

from __future__ import annotations

import os
import sys


def _real(path: str) -> str:
    try:
        return os.path.realpath(path or os.curdir)
    except (OSError, ValueError):
        return os.path.abspath(path or os.curdir)


def grader_root() -> str:
    """The real path of the folder holding the `grader` package that is running."""
    here = os.path.dirname(os.path.abspath(__file__))  # grader/system
    return os.path.dirname(os.path.dirname(_real(here)))


def drop_working_directory() -> list[str]:
    """Remove `''`, `.` and every entry that is the working directory from `sys.path`
    (unless it is `grader_root()`); returns what was removed."""
    cwd = _real(os.curdir)
    if cwd == grader_root():
        return []
    removed = [p for p in sys.path if isinstance(p, str) and _real(p) == cwd]
    sys.path[:] = [p for p in sys.path if not (isinstance(p, str) and _real(p) == cwd)]
    return removed
