"""The grade columns of an export: the total, one per lab step, or one per check.

The instructor chooses (`--columns`): `total` is one column, the score; `step` one per
step of the lab (the part of a check id before its first dot, as the text report groups
its marks: `cache.first_is_miss`, `cache.in_log` and `cache.schema` are step `cache`),
the points of its checks added up; `check` one per check id. Columns come in the order
the results list their checks. A column's points possible is what its checks are worth
(the most any result says, should two rubrics have been mixed). A submission that could
not be graded has no points in any column: an empty cell, never a zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grader.engine.result import CheckResult, Result
from grader.render.common import step_of

MODES = ("total", "step", "check")


@dataclass(frozen=True)
class Column:
    """One grade column: its key ("" for the total, a step or a check id), the checks it
    adds up and the points they are worth."""

    key: str
    check_ids: tuple[str, ...]
    points_possible: float


def _key(check_id: str, mode: str) -> str:
    return "" if mode == "total" else step_of(check_id) if mode == "step" else check_id


def columns(results: Sequence[Result], mode: str) -> list[Column]:
    """The columns of `mode` over the graded `results`."""
    if mode not in MODES:
        raise ValueError(f"columns: {mode!r} is none of {MODES}")
    graded = [r for r in results if r.gradable]
    members: dict[str, list[str]] = {}
    for result in graded:
        for check in result.checks:
            ids = members.setdefault(_key(check.id, mode), [])
            if check.id not in ids:
                ids.append(check.id)
    if mode == "total" and not members:
        members[""] = []
    out = []
    for key, ids in members.items():
        possible = max(
            (sum(c.max_points for c in r.checks if c.id in ids) for r in graded), default=0.0
        )
        out.append(Column(key, tuple(ids), float(possible)))
    return out


def checks_in(result: Result, column: Column) -> list[CheckResult]:
    """The result's checks that count in `column` (all of them for the total)."""
    if not column.key:
        return list(result.checks)
    return [c for c in result.checks if c.id in column.check_ids]


def points(result: Result, column: Column) -> float | None:
    """The points `result` earns in `column`; None when it was not graded or has none of
    the column's checks (a check the rubric disabled)."""
    if not result.gradable:
        return None
    if not column.key:
        return float(result.score)
    found = checks_in(result, column)
    return float(sum(c.points for c in found)) if found else None
