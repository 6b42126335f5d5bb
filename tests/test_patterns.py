"""Precompiled patterns (`grader.patterns`): the tables are current, every pattern in them
is the very pattern `re.compile` makes, and anything a table cannot answer for is
compiled by `re`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import zip_longest

import pytest

from checks.patterns import LAB
from grader.patterns import ENGINE, INTERPRETER, Precompiled, table_entry
from tests.conftest import ROOT, assert_generated_current, tables_made_here

TABLES = {"engine": ENGINE, "lab": LAB}
ENTRIES = [(name, key) for name, table in TABLES.items() for key in sorted(table.table)]
SAMPLE_TEXTS = sorted(
    path
    for folder in (ROOT / "tests" / "data" / "real", ROOT / "sample_submissions")
    for path in folder.glob("*/*")
    if path.suffix in (".log", ".txt", ".py", ".json", ".jsonl")
)
"""The real captures' and the published samples' files: the texts the patterns read."""


def _entry_id(entry: tuple[str, tuple[str, int]]) -> str:
    name, (pattern, flags) = entry
    return f"{name}:{pattern[:30]}:{flags}"


def _matches(pattern: re.Pattern[str], text: str) -> Iterator[tuple[object, ...]]:
    for match in pattern.finditer(text):
        yield match.span(), match.groups(), match.groupdict(), match.lastindex


@tables_made_here
def test_the_tables_of_precompiled_patterns_are_current() -> None:
    assert_generated_current("write_patterns.py")


@tables_made_here
def test_the_tables_hold_the_patterns_of_the_log_scanner_and_the_event_stream() -> None:
    from checks.formats import llama_log_lines
    from grader.formats import sse

    assert (llama_log_lines.TASK_LINE.pattern, re.MULTILINE) in LAB.table
    assert (sse._LINE.pattern, 0) in ENGINE.table


@tables_made_here
@pytest.mark.parametrize("entry", ENTRIES, ids=_entry_id)
def test_a_precompiled_pattern_is_the_pattern_re_compiles(
    entry: tuple[str, tuple[str, int]],
) -> None:
    name, (pattern, flags) = entry
    ours, theirs = TABLES[name].compile(pattern, flags), re.compile(pattern, flags)
    assert ours is not theirs
    assert (ours.pattern, ours.flags, ours.groups, dict(ours.groupindex)) == (
        theirs.pattern,
        theirs.flags,
        theirs.groups,
        dict(theirs.groupindex),
    )
    assert ours == theirs  # a Pattern compares its code too


@tables_made_here
@pytest.mark.parametrize("entry", ENTRIES, ids=_entry_id)
def test_a_precompiled_pattern_matches_the_samples_as_re_compiles_it(
    entry: tuple[str, tuple[str, int]],
) -> None:
    name, (pattern, flags) = entry
    ours, theirs = TABLES[name].compile(pattern, flags), re.compile(pattern, flags)
    for path in SAMPLE_TEXTS:
        text = path.read_text("utf-8", "surrogateescape")
        for mine, its in zip_longest(_matches(ours, text), _matches(theirs, text)):
            assert mine == its, path.relative_to(ROOT)


def test_the_samples_hold_matches_of_the_log_scanners_task_lines() -> None:
    from checks.formats.llama_log_lines import TASK_LINE

    logs = [path.read_text("utf-8") for path in SAMPLE_TEXTS if path.name == "server.log"]
    assert sum(len(TASK_LINE.findall(text)) for text in logs) > 100


def test_a_pattern_missing_from_the_table_is_compiled_by_re() -> None:
    table = Precompiled(INTERPRETER, {})
    assert table.compile(r"not (in) any table", re.IGNORECASE) is re.compile(
        r"not (in) any table", re.IGNORECASE
    )


def test_a_pattern_asked_for_with_other_flags_is_compiled_by_re() -> None:
    table = Precompiled(INTERPRETER, {("a+", 0): table_entry("a+", 0)})
    assert table.compile("a+", re.IGNORECASE) is re.compile("a+", re.IGNORECASE)
    assert table.compile("a+") is not re.compile("a+")


def test_a_table_made_by_another_interpreter_is_not_used() -> None:
    other = ("cpython", 0, INTERPRETER[2], INTERPRETER[3])
    table = Precompiled(other, {("a+", 0): (0, (1,), 0, {})})  # not code this _sre runs
    assert table.compile("a+") is re.compile("a+")


def test_every_pattern_asked_for_is_recorded_for_the_script() -> None:
    table = Precompiled(INTERPRETER, {("a+", 0): table_entry("a+", 0)})
    table.compile("a+")
    table.compile("b+", re.MULTILINE)
    assert table.asked == [("a+", 0), ("b+", re.MULTILINE)]


def test_a_table_entry_is_what_re_gives_its_engine() -> None:
    final_flags, code, groups, groupindex = table_entry(r"(?P<x>a)(b)", re.MULTILINE)
    compiled = re.compile(r"(?P<x>a)(b)", re.MULTILINE)
    assert (final_flags, groups, groupindex) == (compiled.flags, compiled.groups, {"x": 1})
    assert all(isinstance(number, int) for number in code)


def test_the_lab_compiles_its_patterns_through_its_own_table() -> None:
    """The engine's table holds the engine's patterns only (it knows no lab)."""
    lab_modules = [path for path in (ROOT / "checks").rglob("*.py") if "patterns" not in path.name]
    engine_uses = [
        path.relative_to(ROOT)
        for path in lab_modules
        if "from grader import patterns" in path.read_text("utf-8")
    ]
    assert engine_uses == []
