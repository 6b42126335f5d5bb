"""The batch's rows: one per submission, read from its result, written as the gradebook
(`gradebook.csv`) and the summary (`summary.json`).

A row is made from the result JSON as it was written, the same way for a fresh result
and for one read back by `--resume`, so the gradebook can't differ between the two.

`--resume` reuses a stored result only when it is this very submission's result for
these very inputs: its recorded `submission` (the source path) is this row's source,
and its `input_digest` equals the digest of the files, rubric, language, lab and grader
version now (`grader.digest`). A result of another submission, of an older rubric or
an older grader, or from before the digest existed, is graded again.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from grader.numbers import quantile
from grader.result import RESULT_MAX_BYTES, STATUSES
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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def row_of(task_id: str, data: Any) -> Row | None:
    """The row of a result as JSON data (fresh or read back), None if it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("gradable"), bool):
        return None
    grader_error = data.get("grader_error", False)
    source = data.get("submission", "")
    if not isinstance(grader_error, bool) or not isinstance(source, str):
        return None
    if not data["gradable"]:
        errors = data.get("format_errors")
        if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
            return None
        error = " ".join("; ".join(errors).split()) or "not gradable"
        return Row(task_id, False, None, None, error, (), grader_error, source)
    score, max_score, found = data.get("score"), data.get("max_score"), data.get("checks")
    if not (_number(score) and _number(max_score) and isinstance(found, list)):
        return None
    checks = []
    crashed = []
    for check in found:
        if not isinstance(check, dict):
            return None
        cid, status, points = check.get("id"), check.get("status"), check.get("points")
        if not (isinstance(cid, str) and status in STATUSES and _number(points)):
            return None
        checks.append((cid, status, float(points)))
        if status == "error":  # the grader's failure: its message, in the result's language
            crashed.append(f"{cid}: {check.get('message') or ''}".strip())
    error = " ".join("; ".join(crashed).split())
    return Row(
        task_id, True, float(score), float(max_score), error, tuple(checks), grader_error, source
    )


def _read(path: str) -> Any:
    try:
        with open(path, "rb") as stream:
            data = stream.read(RESULT_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > RESULT_MAX_BYTES:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def read_back(results: str, task_id: str, source: str, digest: str | None) -> Row | None:
    """The row of `results/<id>.json` if it is this submission's result for these inputs
    (its source and input digest match), else None: the submission is graded again."""
    if digest is None:
        return None
    data = _read(os.path.join(results, task_id + ".json"))
    if not isinstance(data, dict):
        return None
    if data.get("submission") != visible(source) or data.get("input_digest") != digest:
        return None
    row = row_of(task_id, data)
    return None if row is None else replace(row, source=source)


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
