"""Regular expressions compiled ahead of time: `re.compile`'s result without running
`re`'s compiler at import.

`re.compile` parses a pattern and turns it into the regex engine's code in pure Python
(`re._parser`, `re._compiler`); only the last step, `_sre.compile`, is C. The 32
patterns of ours a cold `grader check` compiled at import cost ≈24 M instructions that
way (a tenth of the whole command), every run, for the same texts. So
`scripts/write_patterns.py` writes each package's patterns' code into a table of its
own, `patterns_compiled.py` beside its `patterns.py` (this one is the engine's), and a
module writes its pattern where it is used, as before, only through its package's
`compile`:

    NAME = patterns.compile(r"...")

`Precompiled.compile` hands the table's code to `_sre.compile` when the table has this
very (pattern, flags) and was made by this very interpreter (its version and `_sre`'s
code format), and otherwise calls `re.compile`. A stale or missing table therefore costs
time, never a wrong pattern; `tests/test_patterns.py` fails when a table is stale and
holds every entry to `re.compile`'s own object. The tables are made by, and speed up,
the interpreter the project is developed and tested on (`MADE_FOR`: CPython 3.11.7 now);
on any other every pattern is `re`'s, and the tests that need the tables skip, saying so.
"""

from __future__ import annotations

import _sre
import re
import sys

TYPE_CHECKING = False  # typing is for type checkers only: a check never imports it
if TYPE_CHECKING:
    from typing import Any

INTERPRETER = (sys.implementation.name, sys.hexversion, _sre.MAGIC, _sre.CODESIZE)
"""What a table's code is valid for: `re`'s compiler may change its output in any release
(a fix is a different program), and `_sre` reads only its own code format."""


class Precompiled:
    """One package's patterns: `compile` from the table `scripts/write_patterns.py` wrote
    for it, `re.compile` for anything the table lacks."""

    def __init__(self, made_for: tuple[Any, ...], table: dict[tuple[str, int], Any]) -> None:
        self.table = table if made_for == INTERPRETER else {}
        self.asked: list[tuple[str, int]] = []
        """Every (pattern, flags) asked for, in order: what the script writes a table of."""

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        """`re.compile(pattern, flags)`, from the table's code when it has it."""
        self.asked.append((pattern, flags))
        entry = self.table.get((pattern, flags))
        if entry is None:
            return re.compile(pattern, flags)
        final_flags, code, groups, groupindex = entry
        indexgroup = [None] * (groups + 1)
        for name, index in groupindex.items():
            indexgroup[index] = name
        return _sre.compile(pattern, final_flags, list(code), groups, groupindex, tuple(indexgroup))


def table_entry(pattern: str, flags: int) -> tuple[int, tuple[int, ...], int, dict[str, int]]:
    """What a table holds for (pattern, flags): the arguments `re._compiler.compile` gives
    `_sre.compile` (final flags, code, number of groups, group names), for the script."""
    try:
        from re import _compiler, _parser  # Python 3.11 and later
    except ImportError:  # pragma: no cover - exercised on 3.10 only
        import sre_compile as _compiler
        import sre_parse as _parser

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    final_flags = int(flags | parsed.state.flags)
    return final_flags, tuple(code), parsed.state.groups - 1, parsed.state.groupdict


try:
    from grader.patterns_compiled import MADE_FOR, TABLE
except ImportError:  # pragma: no cover - until the script writes it, every pattern is re's
    MADE_FOR, TABLE = (), {}

ENGINE = Precompiled(MADE_FOR, TABLE)
"""The engine's patterns (`grader/patterns_compiled.py`)."""
compile = ENGINE.compile
