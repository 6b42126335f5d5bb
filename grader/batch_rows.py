"""The batch's rows: one per submission, read from its result, written as the gradebook
(`gradebook.csv`) and the summary (`summary.json`).

A row is made from the result as it was written (its visible text, `grader.visible`),
the same way for a fresh result and for one read back by `--resume` (`read_result`,
validated against the result schema), so the gradebook can't differ between the two.

`--resume` reuses a stored result only when it is this very submission's result for
these very inputs: its recorded `submission` (the source path) is this row's source,
and its `input_digest` equals the digest of the files, rubric, language, lab and grader
version now (`grader.digest`). A result of another submission, of an older rubric or
an older grader, or from before the digest existed, is graded again.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from grader.numbers import quantile
from grader.result import STATUSES, NotAResult, Result, read_result
from grader.visible import visible

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
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Row:
    """What the gradebook and the summary need of one result."""

    id: str
    gradable: bool
    score: float | None
    max_score: float | None
    error: str
    checks: tuple[tuple[str, str, float], ...] = ()  # (check id, status, points)
    grader_error: bool = False  # the grader failed here (a check crashed, a worker died)
    source: str = ""  # the submission's path as found (archive path/inner path)
    note: str = ""  # what the batch noticed (files left out of an archive, duplicates)


def row_of(task_id: str, result: Result) -> Row:
    """The row of a result (fresh, or read back by `read_back`)."""
    if not result.gradable:
        error = " ".join("; ".join(result.format_errors).split()) or "not gradable"
        return Row(task_id, False, None, None, error, (), result.grader_error, result.submission)
    checks = tuple((c.id, c.status, float(c.points)) for c in result.checks)
    # the grader's failure: each crashed check's message, in the result's language
    crashed = [f"{c.id}: {c.message or ''}".strip() for c in result.checks if c.status == "error"]
    return Row(
        task_id,
        True,
        float(result.score),
        float(result.max_score),
        " ".join("; ".join(crashed).split()),
        checks,
        result.grader_error,
        result.submission,
    )


def read_back(results: str, task_id: str, source: str, digest: str | None) -> Row | None:
    """The row of `results/<id>.json` if it is this submission's result for these inputs
    (a valid result whose source and input digest match), else None: the submission is
    graded again."""
    if digest is None:
        return None
    try:
        result = read_result(os.path.join(results, task_id + ".json"))
    except (OSError, NotAResult):
        return None
    if result.submission != visible(source) or result.input_digest != digest:
        return None
    return replace(row_of(task_id, result), source=source)


# --------------------------------------------------------------------------- gradebook


def _num(value: float | None) -> str:
    if value is None:
        return ""
    value = round(float(value), 6)
    return str(int(value)) if value.is_integer() else repr(value)


def _cell(text: str) -> str:
    """Text a spreadsheet shows as text: never a formula, every control visible."""
    text = visible(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


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
    checks: dict[str, Any] = {}
    for cid in check_ids:
        counts = dict.fromkeys(STATUSES, 0)
        failed: list[str] = []
        errored: list[str] = []
        for row in graded:
            status = next((s for c, s, _ in row.checks if c == cid), None)
            if status is None:
                continue
            counts[status] += 1
            if status == "failed":
                failed.append(row.id)
            elif status == "error":
                errored.append(row.id)
        ran = sum(counts.values())
        checks[cid] = {
            "pass_rate": _round(counts["passed"] / ran) if ran else None,
            **counts,
            "failed_ids": failed,
            "error_ids": errored,
        }
    return {
        "submissions": len(rows),
        "graded": len(graded),
        "errors": len(rows) - len(graded),
        "error_ids": [r.id for r in rows if not r.gradable],
        "grader_error_ids": [r.id for r in rows if r.grader_error],
        "max_score": _round(max(r.max_score or 0 for r in graded)) if graded else None,
        "score": score,
        "checks": checks,
        "archives": list(archives),
        "integrity": dict(integrity or {"flags": {}, "pairs": []}),
    }
