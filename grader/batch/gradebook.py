"""The batch's two tables over its rows: `gradebook.csv` and `summary.json`.

The gradebook: `id,source,score,max_score,gradable,grader_error,error,note,integrity`,
then the points of each check in the lab's order; a row that could not be graded has
empty score and points (never mistaken for a zero) and `gradable` false; a disabled
check is an empty cell; no cell starts a formula. The summary: counts, score quantiles
(linear interpolation) and mean over the graded submissions, and per check its pass rate
(passed / graded submissions where it ran), its counts by status and the ids that failed
it or errored; then the archives and the class's integrity findings. Fixed key order, no
timestamps: the same rows give the same bytes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from grader.batch.rows import Row
from grader.class_report.numbers import quantile
from grader.engine.result import STATUSES
from grader.export.spreadsheet import number_cell as _num
from grader.export.spreadsheet import text_cell as _cell

COLUMNS = (
    "id",
    "source",
    "score",
    "max_score",
    "gradable",
    "grader_error",
    "error",
    "note",
    "integrity",
)


def gradebook_csv(
    rows: Sequence[Row], check_ids: Sequence[str], integrity: Mapping[str, str] | None = None
) -> bytes:
    """`id,source,score,max_score,gradable,grader_error,error,note,integrity`, then each
    check's points; an ungradable row has empty score and points (never mistaken for a
    zero). `integrity`: per id, the class-wide integrity findings (flags, and the other
    student of a pair), as `integrity_summary` words them."""
    integrity = integrity or {}
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*COLUMNS, *check_ids])
    for row in rows:
        points = {cid: pts for cid, _, pts in row.checks}
        writer.writerow(
            [
                row.id,
                _cell(row.source),
                _num(row.score),
                _num(row.max_score),
                "true" if row.gradable else "false",
                "true" if row.grader_error else "false",
                _cell(row.error),
                _cell(row.note),
                _cell(integrity.get(row.id, "")),
                *(_num(points.get(cid)) for cid in check_ids),
            ]
        )
    return buffer.getvalue().encode("utf-8")


# --------------------------------------------------------------------------- summary


def _round(value: float) -> float | int:
    value = round(value, 6)
    return int(value) if value.is_integer() else value


def summary_dict(
    rows: Sequence[Row],
    check_ids: Sequence[str],
    archives: Sequence[dict[str, Any]],
    integrity: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Counts, score quantiles and mean, and per check its pass rate and who failed it."""
    graded = [r for r in rows if r.gradable]
    scores = sorted(r.score for r in graded if r.score is not None)
    score: dict[str, Any] = dict.fromkeys(("min", "p25", "median", "p75", "max", "mean"))
    if scores:
        score = {
            "min": _round(scores[0]),
            "p25": _round(quantile(scores, 0.25)),
            "median": _round(quantile(scores, 0.5)),
            "p75": _round(quantile(scores, 0.75)),
            "max": _round(scores[-1]),
            "mean": _round(sum(scores) / len(scores)),
        }
    # each row's statuses by check id, once (the first of an id, as a row is read): the
    # summary is linear in checks × rows, not checks² × rows
    statuses = [(row.id, dict(reversed([(c, s) for c, s, _ in row.checks]))) for row in graded]
    checks: dict[str, Any] = {}
    for cid in check_ids:
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        failed: list[str] = []
        errored: list[str] = []
        for row_id, of_row in statuses:
            status = of_row.get(cid)
            if status is None:
                continue
            counts[status] += 1
            if status == "failed":
                failed.append(row_id)
            elif status == "error":
                errored.append(row_id)
        ran = sum(counts.values())
        checks[cid] = {
            "pass_rate": _round(counts["passed"] / ran) if ran else None,
            **counts,
            "failed_ids": failed,
            "error_ids": errored,
        }
    return {
        "submissions": len(rows),
        "ids": [r.id for r in rows],
        "graded": len(graded),
        "errors": len(rows) - len(graded),
        "error_ids": [r.id for r in rows if not r.gradable],
        "grader_error_ids": [r.id for r in rows if r.grader_error],
        "max_score": _round(max(r.max_score or 0 for r in graded)) if graded else None,
        "score": score,
        "checks": checks,
        "archives": list(archives),
        "integrity": dict(integrity or {"flags": {}, "groups": []}),
    }
