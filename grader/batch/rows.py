"""The batch's rows: one per submission, what the gradebook and the summary are made of
(`grader.batch.gradebook` writes them).

A row is made from the result as it was written (its visible text, `grader.words.visible`),
the same way for a fresh result and for one read back by `--resume` (`read_result`,
validated against the result schema), so the gradebook can't differ between the two.

`--resume` reuses a stored result only when it is this very submission's result for
these very inputs: its recorded `submission` (the source path) is this row's source,
and its `input_digest` equals the digest of the files, rubric, language, lab and grader
version now (`grader.engine.digest`). A result of another submission, of an older rubric or
an older grader, or from before the digest existed, is graded again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grader.engine.result import NotAResult, Result, read_result
from grader.words.visible import visible

if TYPE_CHECKING:
    from grader.class_report.integrity import Evidence
    from grader.class_report.spec import ClassReportSpec


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
    evidence: Evidence | None = field(default=None, compare=False, repr=False)
    """What the class's integrity findings need of the result as the class report reads
    it back (`grader.class_report.integrity.Evidence`), made where the result is written,
    so the batch's integrity findings need no second reading of every result file."""


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


def read_back(
    results: str, task_id: str, source: str, digest: str | None, spec: ClassReportSpec | None
) -> Row | None:
    """The row of `results/<id>.json` if it is this submission's result for these inputs
    (a valid result whose source and input digest match), else None: the submission is
    graded again. `spec`: the lab's `ClassReportSpec` (or None), for the row's evidence."""
    if digest is None:
        return None
    try:
        result = read_result(os.path.join(results, task_id + ".json"))
    except (OSError, NotAResult):
        return None
    if result.submission != visible(source) or result.input_digest != digest:
        return None
    evidence = result_evidence(task_id, result, spec)
    return replace(row_of(task_id, result), source=source, evidence=evidence)


def result_evidence(task_id: str, result: Result, spec: ClassReportSpec | None) -> Evidence:
    """The integrity evidence of a result as written (its visible form), as the class
    report's `Student` of it gives it, by the lab's `ClassReportSpec` `spec`."""
    from grader.class_report import integrity
    from grader.class_report.results import student_from

    return integrity.evidence_of(student_from(task_id, result), spec)
