"""Specification of `ServerLog`'s derived views: each finds what the plain look-up finds.

`ServerLog` computes some answers once per log, for every event at a time (the run of each
event, the launch of each timing block), because a near-cap log asks for them tens of
thousands of times. Each must equal the per-line look-up it stands for, on every log the
repository holds (real captures, every era, every sample) and on logs shuffled together
from their lines (several runs, tasks restarting, lines out of place).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks.formats.llama_log import ServerLog, scan_log

ROOT = Path(__file__).resolve().parent.parent.parent
LOGS = sorted(
    [*(ROOT / "tests" / "data").rglob("*.log"), *(ROOT / "sample_submissions").rglob("*.log")]
)
TEXTS = {str(p.relative_to(ROOT)): p.read_text("utf-8", errors="replace") for p in LOGS}
LINES = sorted({line for text in TEXTS.values() for line in text.splitlines()})


def assert_views_match_look_ups(log: ServerLog) -> None:
    for events, runs in (
        (log.timings, log.timing_runs),
        (log.launches, log.launch_runs),
        (log.cancels, log.cancel_runs),
        (log.releases, log.release_runs),
        (log.events(), log.event_runs),
    ):
        assert runs == tuple(log.run_of(e.line) for e in events)
    assert log.timing_launches == tuple(
        log.launch_of(t.task, near_line=t.line) if t.task is not None else None for t in log.timings
    )


def test_logs_appended_to_each_other_are_several_runs() -> None:
    """What the views are for: a log a server restarted into (or a student appended to)
    holds one run per start, its task ids starting again in each."""
    text = TEXTS["tests/data/real/correct/server.log"]
    log = scan_log("\n".join([text] * 3))
    assert len(log.starts) == 3
    assert set(log.timing_runs) == {1, 2, 3}
    assert_views_match_look_ups(log)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_logs_views_match_the_look_ups(name: str) -> None:
    assert_views_match_look_ups(scan_log(TEXTS[name]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=80))
def test_views_of_logs_made_of_real_lines_match_the_look_ups(lines: list[str]) -> None:
    assert_views_match_look_ups(scan_log("\n".join(lines)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(sorted(TEXTS)), min_size=1, max_size=4))
def test_views_of_logs_appended_to_each_other_match_the_look_ups(names: list[str]) -> None:
    """A log a server restarted into (or a student appended to): several runs, task ids
    starting again in each."""
    assert_views_match_look_ups(scan_log("\n".join(TEXTS[n] for n in names)))
