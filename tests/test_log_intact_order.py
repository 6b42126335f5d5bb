"""Specification of log.intact's order test: task ids and time stamps only grow within a
server run.

The test compares each launch and each stamped event with the one just before it (runs
only grow with the line); it must find what the rule finds when each is compared with
the one before it in its own run, on every log the repository holds and on logs
shuffled together from their lines (tasks and times out of place, several runs).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks.formats.llama_log import ServerLog, scan_log
from checks.log_intact import _order_problem
from grader.engine.api import Fail

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted(
    [*(ROOT / "tests" / "data").rglob("*.log"), *(ROOT / "sample_submissions").rglob("*.log")]
)
TEXTS = {str(p.relative_to(ROOT)): p.read_text("utf-8", errors="replace") for p in LOGS}
LINES = sorted({line for text in TEXTS.values() for line in text.splitlines()})
REAL = TEXTS["tests/data/real/correct/server.log"]


def plain_order_problem(log: ServerLog) -> Fail | None:
    """The rule, walked event by event: each launch against the launch before it in the
    same run, each stamped event against the stamped event before it in the same run."""
    for before, launch in itertools.pairwise(log.launches):
        if log.run_of(before.line) == log.run_of(launch.line) and launch.task <= before.task:
            return Fail(
                "task_order",
                expected=f"> {before.task}",
                found=launch.task,
                line=launch.line,
                previous=before.task,
                previous_line=before.line,
            )
    stamped = [e for e in log.events() if e.time_ms is not None]
    for before, event in itertools.pairwise(stamped):
        if log.run_of(before.line) == log.run_of(event.line) and event.time_ms < before.time_ms:
            return Fail(
                "time_order",
                expected=f">= {before.time_ms}",
                found=event.time_ms,
                line=event.line,
                previous_line=before.line,
            )
    return None


def facts(problem: Fail | None) -> tuple[Any, ...] | None:
    if problem is None:
        return None
    return problem.key, problem.expected, problem.found, problem.params


def test_a_task_id_that_goes_back_within_a_run_is_out_of_order() -> None:
    lines = REAL.splitlines()
    launches = [i for i, line in enumerate(lines) if "processing task" in line]
    first, second = lines[launches[0]], lines[launches[1]]
    lines[launches[0]], lines[launches[1]] = second, first
    problem = _order_problem(scan_log("\n".join(lines)))
    assert problem is not None
    assert (problem.key, problem.params["line"]) == ("task_order", launches[1] + 1)


def test_task_ids_and_times_that_start_again_in_a_new_run_are_in_order() -> None:
    assert _order_problem(scan_log("\n".join([REAL] * 3))) is None


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_logs_order_is_judged_as_the_plain_walk_judges_it(name: str) -> None:
    log = scan_log(TEXTS[name])
    assert facts(_order_problem(log)) == facts(plain_order_problem(log))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=80))
def test_logs_made_of_real_lines_are_judged_as_the_plain_walk_judges_them(
    lines: list[str],
) -> None:
    log = scan_log("\n".join(lines))
    assert facts(_order_problem(log)) == facts(plain_order_problem(log))
