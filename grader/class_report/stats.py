"""The data behind the class report's generic charts, computed from the students'
results: the score histogram and each check's pass rate. Pure functions; the page draws
what they return (a lab's own sections compute their own data)."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from grader.class_report.numbers import quantile
from grader.class_report.results import CheckRow, Student


def failed_rows(student: Student, check_ids: Sequence[str]) -> list[CheckRow]:
    """The student's checks among `check_ids` that failed, in the result's order."""
    return [c for c in student.checks if c.id in check_ids and c.status == "failed"]


@dataclass(frozen=True)
class ScoreBin:
    """Scores in [lo, hi); the full-marks bin holds the maximum alone (lo == hi); a gap
    stands for a long run of empty bins, drawn as a break in the axis."""

    lo: float
    hi: float
    ids: tuple[str, ...]
    gap: bool = False

    @property
    def full_marks(self) -> bool:
        return self.lo == self.hi


@dataclass(frozen=True)
class Histogram:
    width: float
    max_score: float
    bins: tuple[ScoreBin, ...]
    median: float | None

    @property
    def start(self) -> float:
        return self.bins[0].lo if self.bins else 0.0


_WIDTHS = tuple(float(f * 10**e) for e in range(16) for f in (1, 2, 5))


def score_histogram(students: Sequence[Student], max_bins: int = 60) -> Histogram:
    """Bins over the range the graded scores take (from the lowest, rounded down to the
    bin width, to the maximum score), so that a class scoring 64-71 of 71 is not drawn
    on 0-71; one point wide when the bars that are drawn fit in `max_bins` (one bar per
    score, for whole points; a long empty run is one break of the axis), else 2, 5, 10,
    ... points; the last bin holds full marks alone, so they can be told from nearly
    full marks whatever the width."""
    graded = [s for s in students if s.gradable and s.score is not None]
    top = max((s.max_score or 0.0 for s in graded), default=0.0)
    top = max(top, max((s.score or 0.0 for s in graded), default=0.0))
    scores = sorted(s.score for s in graded if s.score is not None)
    low = max(min(scores), 0.0) if scores else 0.0
    median = quantile(scores, 0.5) if scores else None
    for width in _WIDTHS:
        if math.ceil((top - math.floor(low / width) * width) / width) + 1 > 4 * max_bins:
            continue  # far too many bins even before the empty runs are broken
        bins = _broken(_bins(graded, width, low, top))
        if len(bins) <= max_bins:
            return Histogram(width, top, bins, median)
    width = max(top - low, 1.0) / (max_bins - 1)  # an absurd score in a tampered result
    return Histogram(width, top, _broken(_bins(graded, width, low, top)), median)


def _bins(graded: Sequence[Student], width: float, low: float, top: float) -> tuple[ScoreBin, ...]:
    """Bins `width` wide from `low` (rounded down to `width`) to `top`, full marks alone."""
    start = math.floor(low / width) * width
    edges = [start + i * width for i in range(max(math.ceil((top - start) / width), 0) + 1)]
    edges = [e for e in edges if e < top] + [top]  # the last edge: full marks
    members: list[list[str]] = [[] for _ in edges]
    for s in graded:
        value = min(max(s.score or 0.0, start), top)
        index = len(edges) - 1 if value >= top else max(bisect_right(edges, value) - 1, 0)
        members[index].append(s.id)
    return tuple(
        ScoreBin(lo, edges[i + 1] if i + 1 < len(edges) else top, tuple(members[i]))
        for i, lo in enumerate(edges)
    )


GAP_BINS = 6
"""Empty bins in a row beyond which the axis is broken (one far-off score must not leave
the class's bars a sliver at one end)."""


def _broken(bins: tuple[ScoreBin, ...]) -> tuple[ScoreBin, ...]:
    """`bins` with every run of more than `GAP_BINS` empty bins (a quarter of them at
    least) between two filled ones replaced by one gap bin."""
    out: list[ScoreBin] = []
    run: list[ScoreBin] = []
    least = max(GAP_BINS, len(bins) // 4)
    for b in bins:
        if not b.ids and not b.full_marks:
            run.append(b)
            continue
        if len(run) > least and out:
            out.append(ScoreBin(run[0].lo, run[-1].hi, (), gap=True))
        else:
            out.extend(run)
        run = []
        out.append(b)
    return tuple(out + run)


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
    lost: float = 0.0
    """Points the class did not earn on this check (failed, skipped or broken)."""
    max_points: float = 0.0
    """What the check is worth (the most any result says)."""

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
                data[c.id] = {
                    "passed": 0, "failed": [], "skipped": [], "error": [], "messages": {},
                    "lost": 0.0, "max": 0.0,
                }  # fmt: skip
            entry = data[c.id]
            entry["lost"] += max(c.max_points - c.points, 0.0)
            entry["max"] = max(entry["max"], c.max_points)
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
            lost=round(data[cid]["lost"], 6),
            max_points=data[cid]["max"],
        )
        for cid in order
    ]
    return sorted(
        rates, key=lambda r: (r.rate if r.rate is not None else 2.0, -len(r.failed_ids), r.order)
    )
