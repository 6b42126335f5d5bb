"""Reading a batch's `results/<id>.json` into what the page shows of each student.

One grader result per submission (the id is the file stem), read by `read_result` (the
result model's reader: strict JSON, valid against the result schema). `gradebook.csv` and
`summary.json` are not read: everything is computed from the results. A file there that
is not a readable result becomes an `Unreadable` with the reason, left out of everything
else. Hidden files and anything but regular `.json` files are ignored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.i18n import LANGUAGES
from grader.result import (
    ArtifactResult,
    CheckResult,
    NotAResult,
    Result,
    ResultLocation,
    read_result,
)


@dataclass(frozen=True)
class CheckRow:
    """One check of one student's result, as the page needs it."""

    id: str
    title: str
    status: str
    points: float
    max_points: float
    message: str | None = None
    hint: str | None = None
    explanation: str | None = None
    where: str = ""
    expected: str | None = None
    found: str | None = None
    message_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict, hash=False)
    """The measurements the check recorded (`checks[].data`)."""


@dataclass(frozen=True)
class Student:
    """One result file: the submission's id (the file stem) and its grade."""

    id: str
    gradable: bool
    score: float | None
    max_score: float | None
    checks: tuple[CheckRow, ...] = ()
    format_errors: tuple[str, ...] = ()
    file_problems: tuple[str, ...] = ()
    language: str = "en"
    submission: str = ""
    lab: str = ""
    grader_version: str = ""
    rubric_version: str = ""
    digests: dict[str, str] = field(default_factory=dict, hash=False)
    """Artifact name -> sha256 of the file's bytes, for every file that was read."""
    evidence: dict[str, str] = field(default_factory=dict, hash=False)
    """Artifact name -> what backs its numbers (`artifacts[].evidence`), where it says."""

    def check(self, check_id: str) -> CheckRow | None:
        return next((c for c in self.checks if c.id == check_id), None)

    def status(self, check_id: str) -> str | None:
        row = self.check(check_id)
        return row.status if row else None

    @property
    def not_passed(self) -> tuple[CheckRow, ...]:
        return tuple(c for c in self.checks if c.status != "passed")


@dataclass(frozen=True)
class Unreadable:
    """A file in results/ that is not a usable result, and why."""

    name: str
    reason: str


def _value_text(value: Any) -> str | None:
    """`expected` / `found` as shown: numbers without float noise, strings as they are."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        from grader.i18n import format_value

        return format_value(value)
    return str(value)


def _where(location: ResultLocation | None) -> str:
    """`file:line (pointer)`, as the text report writes it."""
    if location is None:
        return ""
    out = location.file
    if location.line is not None:
        out += f":{location.line}"
    if location.pointer:
        out += f" ({location.pointer})"
    return out


def _check_row(check: CheckResult) -> CheckRow:
    return CheckRow(
        id=check.id,
        title=check.title or check.id,
        status=check.status,
        points=float(check.points),
        max_points=float(check.max_points),
        message=check.message,
        hint=check.hint,
        explanation=check.explanation,
        where=_where(check.location),
        expected=_value_text(check.expected),
        found=_value_text(check.found),
        message_id=check.message_id,
        data=dict(check.data),
    )


def _file_problems(artifacts: list[ArtifactResult]) -> tuple[str, ...]:
    """`file:line: message` of every problem of every artifact that did not load."""
    return tuple(
        f"{_where(problem.location) or artifact.file}: {problem.message}"
        for artifact in artifacts
        if artifact.status != "valid"
        for problem in artifact.problems
    )


def student_from(result_id: str, result: Result) -> Student:
    """What the page shows of one result."""
    return Student(
        id=result_id,
        gradable=result.gradable,
        score=float(result.score) if result.gradable else None,
        max_score=float(result.max_score) if result.gradable else None,
        checks=tuple(_check_row(c) for c in result.checks),
        format_errors=tuple(result.format_errors),
        file_problems=_file_problems(result.artifacts),
        language=result.language if result.language in LANGUAGES else "en",
        submission=result.submission,
        lab=result.lab,
        grader_version=result.grader_version,
        rubric_version=result.rubric_version,
        digests={a.name: a.sha256 for a in result.artifacts if a.sha256},
        evidence={a.name: a.evidence for a in result.artifacts if a.evidence},
    )


def student_of(result_id: str, data: Any) -> Student:
    """A `Student` from a parsed result (`Result.from_dict`); raises `NotAResult`, a
    ValueError, when it is not a result."""
    return student_from(result_id, Result.from_dict(data))


def result_files(out_dir: Path | str) -> list[tuple[str, Result | None, str]]:
    """Every `results/<id>.json` of a batch folder, sorted by name: (id, its result, "")
    or (file name, None, why it is not a result). Hidden files and anything but regular
    `.json` files are skipped; no results/ folder is no results. The class report and
    the exports (`grader.export`) read a batch folder this way."""
    folder = Path(out_dir) / "results"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    found: list[tuple[str, Result | None, str]] = []
    for entry in entries:
        if entry.name.startswith(".") or not entry.name.endswith(".json"):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        try:
            found.append((entry.name[: -len(".json")], read_result(entry.path), ""))
        except (OSError, NotAResult) as exc:
            found.append((entry.name, None, str(exc) or type(exc).__name__))
    return found


def read_results(
    out_dir: Path | str, lab: str | None = None
) -> tuple[list[Student], list[Unreadable]]:
    """Every `results/<id>.json` of a batch folder, sorted by id, and the files that are
    not results (with `lab`, a result of another lab is one of those). Hidden files and
    anything but regular `.json` files are ignored."""
    students: list[Student] = []
    unreadable: list[Unreadable] = []
    for name, result, reason in result_files(out_dir):
        if result is None:
            unreadable.append(Unreadable(name, reason))
            continue
        student = student_from(name, result)
        if lab is not None and student.lab != lab:
            unreadable.append(Unreadable(name + ".json", f"a result of the lab {student.lab!r}"))
        else:
            students.append(student)
    return students, unreadable
