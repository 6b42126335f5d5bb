"""The lab's regular expressions, compiled ahead of time (`grader.patterns` says why):
`compile` reads the lab's own table, `checks/patterns_compiled.py`, which
`scripts/write_patterns.py` writes."""

from __future__ import annotations

from grader.patterns import Precompiled

try:
    from checks.patterns_compiled import MADE_FOR, TABLE
except ImportError:  # pragma: no cover - until the script writes it, every pattern is re's
    MADE_FOR, TABLE = (), {}

LAB = Precompiled(MADE_FOR, TABLE)
"""The lab's patterns (`checks/patterns_compiled.py`)."""
compile = LAB.compile
