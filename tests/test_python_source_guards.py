"""A student's Python source can make the grader report its own failure nowhere
(issue 26): deep nesting is the student's located failure at any stack depth, and what
CPython refuses before parsing (a NUL byte, an unknown encoding declaration) is said as
CPython says it, with the line."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from checks import LAB
from grader.engine.grade import grade
from grader.engine.rubric import load_lab_rubric
from grader.reading.limits import Limits
from grader.reading.parsers import python_source, python_tree
from tests.conftest import CORRECT

PARSE = python_source()


def nested(levels: int) -> str:
    """stream() whose default is `levels` unary minus signs deep (a valid expression)."""
    return f"def stream(messages, max_tokens={'-' * levels}64):\n    return max_tokens\n"


def at_depth(frames: int, call: Callable[[], Any]) -> Any:
    """`call()` made `frames` Python frames deeper than here."""
    if frames:
        return at_depth(frames - 1, call)
    return call()


@pytest.mark.parametrize("depth", [0, 200, 600])
def test_deep_nesting_is_the_same_located_failure_at_any_stack_depth(depth: int) -> None:
    parsed = at_depth(depth, lambda: PARSE(nested(2950), "sse.py", Limits()))
    assert parsed.value is None
    (problem,) = parsed.problems
    assert problem.message_id == "python.too_deep"
    assert problem.location is not None and problem.location.line == 1


@pytest.mark.parametrize("depth", [0, 300, 700])
def test_a_source_the_parser_accepts_always_makes_a_tree(depth: int) -> None:
    text = nested(2000)
    assert at_depth(depth, lambda: PARSE(text, "sse.py", Limits())).value == text
    assert at_depth(depth, lambda: python_tree(text)).body[0].name == "stream"


def test_a_stream_default_nested_2950_deep_is_the_students_failure(tmp_path: Path) -> None:
    folder = tmp_path / "deep"
    shutil.copytree(CORRECT, folder)
    sse = folder / "sse.py"
    text = sse.read_text("utf-8")
    head = "def stream(messages, max_tokens=64,"
    assert head in text
    sse.write_text(text.replace(head, head.replace("=64", f"={'-' * 2950}64")), "utf-8")
    result = grade(LAB, str(folder), load_lab_rubric(LAB))
    assert not result.grader_error
    schema = next(c for c in result.checks if c.id == "sse_py.schema")
    assert schema.status == "failed" and schema.location is not None
    assert schema.location.line == 1 + text[: text.index(head)].count("\n")
    assert all(c.status != "error" for c in result.checks)


def test_a_nul_byte_is_reported_on_its_line_and_column() -> None:
    parsed = PARSE("import json\nx = 1\0\n", "sse.py", Limits())
    (problem,) = parsed.problems
    assert problem.message_id == "python.null_byte"
    assert problem.location is not None
    assert (problem.location.line, problem.location.column) == (2, 6)


@pytest.mark.parametrize(
    "head",
    ["# -*- coding: klingon -*-\n", "#!/usr/bin/env python3\n# vim: set fileencoding=nope :\n"],
)
def test_an_unknown_encoding_declaration_is_refused_as_cpython_does(head: str) -> None:
    parsed = PARSE(head + "x = 1\n", "sse.py", Limits())
    (problem,) = parsed.problems
    assert problem.message_id == "python.unknown_encoding"
    assert problem.location is not None and problem.location.line == head.count("\n")


@pytest.mark.parametrize(
    "head",
    [
        "# -*- coding: utf-8 -*-\n",
        "# coding=latin-1\n",
        "x = 1\n# coding: klingon\n",  # not a declaration after code: a comment
    ],
)
def test_a_known_or_misplaced_encoding_declaration_is_no_problem(head: str) -> None:
    text = head + "y = 2\n"
    assert PARSE(text, "sse.py", Limits()).value == text


def test_a_line_over_the_cap_is_refused_at_its_line_in_linear_time() -> None:
    """A 250 KB one-line sse.py cost 5-12 s in the tokenizer (each token copies its
    line); past `python_line_chars` the file is refused before any parse."""
    import time

    text = "import json\nX = [" + ",".join(["1"] * 125_000) + "]\n"
    started = time.perf_counter()
    parsed = PARSE(text, "sse.py", Limits())
    assert time.perf_counter() - started < 0.5
    (problem,) = parsed.problems
    assert problem.message_id == "python.line_too_long"
    assert problem.location is not None and problem.location.line == 2
    assert problem.params["cap"] == Limits().python_line_chars == 10_000


def test_the_line_cap_is_set_in_the_rubric_limits() -> None:
    text = "x = 1\n" + "y = '" + "a" * 300 + "'\n"
    assert PARSE(text, "sse.py", Limits()).value == text
    (problem,) = PARSE(text, "sse.py", Limits(python_line_chars=100)).problems
    assert problem.message_id == "python.line_too_long" and problem.params["chars"] == 306
