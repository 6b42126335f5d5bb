"""Reading a batch's `results/<id>.json` into what the page shows of each student.

One grader result per submission (the id is the file stem), read by `read_result` (the
result model's reader: strict JSON, valid against the result schema). `gradebook.csv` and
`summary.json` are not computed from: everything is computed from the results; the
summary only says which results the last batch wrote (`result_files`). A file there that
is not a readable result becomes an `Unreadable` with the reason, left out of everything
else. Hidden files and anything but regular `.json` files are ignored.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.engine.result import (
    ArtifactResult,
    CheckResult,
    NotAResult,
    Result,
    ResultLocation,
    read_regular,
    read_result,
)
from grader.words.i18n import LANGUAGES


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


def _value_text(value: object) -> str | None:
    """`expected` / `found` as shown: numbers without float noise, strings as they are."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        from grader.words.i18n import format_value

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


TEXT_CAP = 4096
"""Characters of any one string of a result that a class page or an export carries: a
grader's message is some hundred, a path some dozens. A result file edited to hold a
48 MB message made a 240 MB class page and a 2.3 GB export (issue 26)."""


SUMMARY_MAX_BYTES = 64 * 1024 * 1024
"""A summary names every id of a batch; anything larger is not one."""


def summary_ids(out_dir: Path | str) -> list[str] | None:
    """The ids the batch folder's `summary.json` names (the last finished batch's
    submissions), or None when there is no summary (results/ put together by hand, or a
    batch that did not finish: it removes the old summary when it starts) or it is an
    older grader's, which named none. Raises
    `NotAResult` when the summary is not a batch's (the reason says why)."""
    import json

    try:
        data = read_regular(os.path.join(out_dir, "summary.json"), SUMMARY_MAX_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NotAResult(f"summary.json can't be read: {exc.strerror or exc}") from None
    except NotAResult as exc:
        raise NotAResult(f"summary.json is {exc}") from None
    try:
        summary = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError, MemoryError):
        summary = None
    if isinstance(summary, dict) and "ids" not in summary:
        return None  # an older grader's summary, which named no ids: as without one
    ids = summary.get("ids") if isinstance(summary, dict) else None
    if not isinstance(ids, list) or not all(_safe_id(i) for i in ids):
        raise NotAResult("summary.json does not name its batch's results (ids)")
    return list(ids)


def _safe_id(value: object) -> bool:
    """An id a batch writes: a plain file stem, never a path or a hidden name."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= 300
        and not value.startswith(".")
        and "/" not in value
        and "\\" not in value
        and "\x00" not in value
    )


def result_files(out_dir: Path | str) -> list[tuple[str, Result | None, str]]:
    """Every result of a batch folder at once (`each_result_file`, as a list)."""
    return list(each_result_file(out_dir))


def each_result_file(out_dir: Path | str) -> Iterator[tuple[str, Result | None, str]]:
    """The results of a batch folder, sorted by name: (id, its result, "") or (file name,
    None, why it is not a result). When the folder has a `summary.json` (a batch
    finished there), only the `results/<id>.json` of the ids it names are read, so a
    result no batch vouches for (a student no longer in the class, an old id) never
    reaches a page or an export; a named file that is missing or not a believable result
    is one of the unreadable, with its reason. Every string of a result is cut to
    `TEXT_CAP` characters, so what a page or an export carries of one
    result is bounded whatever the file holds. Without a summary, every regular `.json`
    file of results/ is read (hidden files skipped). No results/ folder is no results.
    The class report and the exports (`grader.export`) read a batch folder this way."""
    folder = Path(out_dir) / "results"
    try:
        named = summary_ids(out_dir)
    except NotAResult as exc:
        yield ("summary.json", None, str(exc))
        return
    if named is None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        names = [
            e.name
            for e in entries
            if not e.name.startswith(".")
            and e.name.endswith(".json")
            and e.is_file(follow_symlinks=False)
        ]
    else:
        names = sorted(set(i + ".json" for i in named))
    for name in names:
        try:
            result = read_result(str(folder / name), text_cap=TEXT_CAP)
        except FileNotFoundError:
            yield (name, None, "missing: summary.json names it")
        except (OSError, NotAResult) as exc:
            yield (name, None, str(exc) or type(exc).__name__)
        else:
            yield (name[: -len(".json")], result, "")


def read_results(
    out_dir: Path | str, lab: str | None = None
) -> tuple[list[Student], list[Unreadable]]:
    """Every `results/<id>.json` of a batch folder, sorted by id, and the files that are
    not results (with `lab`, a result of another lab is one of those). Hidden files and
    anything but regular `.json` files are ignored."""
    students: list[Student] = []
    unreadable: list[Unreadable] = []
    for name, result, reason in each_result_file(out_dir):
        if result is None:
            unreadable.append(Unreadable(name, reason))
        else:  # one result at a time: only the students stay in memory, not the results
            students.append(student_from(name, result))
    return of_lab(students, unreadable, lab)


def of_lab(
    students: list[Student], unreadable: list[Unreadable], lab: str | None
) -> tuple[list[Student], list[Unreadable]]:
    """The students of `lab` (None: all), and the unreadable with every result of another
    lab among them (as `read_results` with `lab` gives them: results read once serve
    both)."""
    if lab is None:
        return students, unreadable
    others = [
        Unreadable(s.id + ".json", f"a result of the lab {s.lab!r}")
        for s in students
        if s.lab != lab
    ]
    bad = sorted([*unreadable, *others], key=lambda u: u.name)
    return [s for s in students if s.lab == lab], bad
