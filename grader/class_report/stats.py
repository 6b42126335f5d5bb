"""The data behind the class report's generic charts, computed from the students'
results: the score histogram and each check's pass rate. Pure functions; the page draws
what they return (a lab's own sections compute their own data)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from grader.class_report.results import CheckRow, Student
from grader.numbers import quantile


def failed_rows(student: Student, check_ids: Sequence[str]) -> list[CheckRow]:
    """The student's checks among `check_ids` that failed, in the result's order."""
    return [c for c in student.checks if c.id in check_ids and c.status == "failed"]


@dataclass(frozen=True)
class ScoreBin:
    lo: float
    hi: float
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Histogram:
    width: float
    max_score: float
    bins: tuple[ScoreBin, ...]
    median: float | None


def score_histogram(students: Sequence[Student], max_bins: int = 25) -> Histogram:
    """Bins of equal width (1, 2, 5, 10, 20, ... points) from 0, the last one holding the
    maximum score, over the graded students; at most `max_bins` bins."""
    graded = [s for s in students if s.gradable and s.score is not None]
    top = max((s.max_score or 0.0 for s in graded), default=0.0)
    top = max(top, max((s.score or 0.0 for s in graded), default=0.0))
    widths = (float(f * 10**e) for e in range(16) for f in (1, 2, 5))
    width = next((w for w in widths if math.floor(top / w) + 1 <= max_bins), None)
    if width is None:  # an absurd score in a tampered result: still max_bins bins
        width = top / (max_bins - 1)
    count = min(math.floor(top / width) + 1, max_bins)
    members: list[list[str]] = [[] for _ in range(count)]
    for s in graded:
        index = min(max(math.floor((s.score or 0.0) / width), 0), count - 1)
        members[index].append(s.id)
    scores = sorted(s.score for s in graded if s.score is not None)
    return Histogram(
        width,
        top,
        tuple(ScoreBin(i * width, (i + 1) * width, tuple(m)) for i, m in enumerate(members)),
        quantile(scores, 0.5) if scores else None,
    )


@dataclass(frozen=True)
class CheckRate:
    """How the graded class did on one check, with who failed, skipped or broke it."""

    id: str
    title: str
    order: int
    failed_ids: tuple[str, ...] = ()
    skipped_ids: tuple[str, ...] = ()
    error_ids: tuple[str, ...] = ()
    passed: int = 0
    messages: dict[str, str] = field(default_factory=dict)

    @property
    def ran(self) -> int:
        return self.passed + len(self.failed_ids) + len(self.skipped_ids) + len(self.error_ids)

    @property
    def rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None


def pass_rates(students: Sequence[Student]) -> list[CheckRate]:
    """Every check that appears in a graded result, worst pass rate first (ties: more
    failures first, then the lab's order); a check that never ran comes last. The rate is
    passed / graded results that have the check, as summary.json computes it."""
    order: dict[str, int] = {}
    titles: dict[str, str] = {}
    data: dict[str, dict[str, Any]] = {}
    for s in students:
        if not s.gradable:
            continue
        for c in s.checks:
            if c.id not in order:
                order[c.id] = len(order)
                titles[c.id] = c.title
                data[c.id] = {"passed": 0, "failed": [], "skipped": [], "error": [], "messages": {}}
            entry = data[c.id]
            if c.status == "passed":
                entry["passed"] += 1
            else:
                entry[c.status].append(s.id)
                entry["messages"][s.id] = c.message or ""
    rates = [
        CheckRate(
            id=cid,
            title=titles[cid],
            order=order[cid],
            failed_ids=tuple(data[cid]["failed"]),
            skipped_ids=tuple(data[cid]["skipped"]),
            error_ids=tuple(data[cid]["error"]),
            passed=data[cid]["passed"],
            messages=data[cid]["messages"],
        )
        for cid in order
    ]
    return sorted(
        rates, key=lambda r: (r.rate if r.rate is not None else 2.0, -len(r.failed_ids), r.order)
    )
