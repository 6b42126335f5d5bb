"""Reading a batch's `results/<id>.json` strictly, into what the page shows of each student.

One grader result per submission (the id is the file stem). `gradebook.csv` and
`summary.json` are not read: everything is computed from the results. A file there that
is not a readable result becomes an `Unreadable` with the reason, left out of everything
else. Hidden files and anything but regular `.json` files are ignored.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.i18n import LANGUAGES
from grader.result import RESULT_MAX_BYTES, STATUSES


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


class BadShape(ValueError):
    """A file that should be a result has the wrong shape."""


def text_of(value: Any, what: str, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise BadShape(f"{what} is not a string")
    return value


def number_of(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadShape(f"{what} is not a number")
    if not math.isfinite(value):
        raise BadShape(f"{what} is not finite")
    return float(value)


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


def _where(location: Any) -> str:
    """`file:line (pointer)`, as the text report writes it."""
    if not isinstance(location, dict) or not isinstance(location.get("file"), str):
        return ""
    out = location["file"]
    line = location.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        out += f":{line}"
    if isinstance(location.get("pointer"), str) and location["pointer"]:
        out += f" ({location['pointer']})"
    return out


def _check_row(data: Any, index: int) -> CheckRow:
    if not isinstance(data, dict):
        raise BadShape(f"checks[{index}] is not an object")
    check_id = text_of(data.get("id"), f"checks[{index}].id", optional=False)
    status = data.get("status")
    if status not in STATUSES:
        raise BadShape(f"checks[{index}].status is not one of {', '.join(STATUSES)}")
    for key in ("expected", "found"):
        if isinstance(data.get(key), (dict, list)):
            raise BadShape(f"checks[{index}].{key} is not a plain value")
    measurements = data.get("data", {})
    if not isinstance(measurements, dict):
        raise BadShape(f"checks[{index}].data is not an object")
    return CheckRow(
        id=check_id or "",
        title=text_of(data.get("title"), f"checks[{index}].title") or check_id or "",
        status=status,
        points=number_of(data.get("points"), f"checks[{index}].points"),
        max_points=number_of(data.get("max_points"), f"checks[{index}].max_points"),
        message=text_of(data.get("message"), f"checks[{index}].message"),
        hint=text_of(data.get("hint"), f"checks[{index}].hint"),
        explanation=text_of(data.get("explanation"), f"checks[{index}].explanation"),
        where=_where(data.get("location")),
        expected=_value_text(data.get("expected")),
        found=_value_text(data.get("found")),
        message_id=text_of(data.get("message_id"), f"checks[{index}].message_id"),
        data=measurements,
    )


def _digests(artifacts: Any) -> dict[str, str]:
    """Artifact name -> sha256 of every artifact whose file was read."""
    out: dict[str, str] = {}
    for artifact in artifacts if isinstance(artifacts, list) else []:
        if isinstance(artifact, dict):
            name, sha = artifact.get("name"), artifact.get("sha256")
            if isinstance(name, str) and isinstance(sha, str):
                out[name] = sha
    return out


def _file_problems(artifacts: Any) -> tuple[str, ...]:
    """`file:line: message` of every problem of every artifact that did not load."""
    out: list[str] = []
    for artifact in artifacts if isinstance(artifacts, list) else []:
        if not isinstance(artifact, dict) or artifact.get("status") == "valid":
            continue
        for problem in artifact.get("problems") or []:
            if isinstance(problem, dict) and isinstance(problem.get("message"), str):
                where = _where(problem.get("location")) or str(artifact.get("file", ""))
                out.append(f"{where}: {problem['message']}")
    return tuple(out)


def student_of(result_id: str, data: Any) -> Student:
    """A `Student` from a parsed result; raises ValueError when it is not a result."""
    if not isinstance(data, dict):
        raise BadShape("not a JSON object")
    gradable = data.get("gradable")
    if not isinstance(gradable, bool):
        raise BadShape("no boolean `gradable`")
    checks = data.get("checks", [])
    if not isinstance(checks, list):
        raise BadShape("`checks` is not a list")
    errors = data.get("format_errors") or []
    if not isinstance(errors, list):
        raise BadShape("`format_errors` is not a list")
    rows = tuple(_check_row(c, i) for i, c in enumerate(checks))
    score = number_of(data.get("score"), "score") if gradable else None
    max_score = number_of(data.get("max_score"), "max_score") if gradable else None
    language = data.get("language")
    return Student(
        id=result_id,
        gradable=gradable,
        score=score,
        max_score=max_score,
        checks=rows,
        format_errors=tuple(str(e) for e in errors),
        file_problems=_file_problems(data.get("artifacts")),
        language=language if language in LANGUAGES else "en",
        submission=str(data.get("submission") or ""),
        lab=str(data.get("lab") or ""),
        grader_version=str(data.get("grader_version") or ""),
        rubric_version=str(data.get("rubric_version") or ""),
        digests=_digests(data.get("artifacts")),
    )


def read_json(path: Path, max_bytes: int) -> Any:
    """A strict JSON document (no NaN, no duplicate keys) of at most `max_bytes`."""
    from grader.jsonload import JsonError, StrictDecoder

    with open(path, "rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BadShape(f"larger than {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadShape("not UTF-8") from exc
    try:
        return StrictDecoder(max_digits=100, max_depth=64).decode(text.lstrip("\ufeff"), path.name)
    except JsonError as exc:
        raise BadShape(f"not strict JSON ({exc.problem.message_id})") from exc


def read_results(
    out_dir: Path | str, lab: str | None = None
) -> tuple[list[Student], list[Unreadable]]:
    """Every `results/<id>.json` of a batch folder, sorted by id, and the files that are
    not results (with `lab`, a result of another lab is one of those). Hidden files and
    anything but regular `.json` files are ignored."""
    folder = Path(out_dir) / "results"
    students: list[Student] = []
    unreadable: list[Unreadable] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return students, unreadable
    for entry in entries:
        if entry.name.startswith(".") or not entry.name.endswith(".json"):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        result_id = entry.name[: -len(".json")]
        try:
            student = student_of(result_id, read_json(Path(entry.path), RESULT_MAX_BYTES))
        except (OSError, ValueError, RecursionError) as exc:
            unreadable.append(Unreadable(entry.name, str(exc) or type(exc).__name__))
            continue
        if lab is not None and student.lab != lab:
            unreadable.append(Unreadable(entry.name, f"a result of the lab {student.lab!r}"))
        else:
            students.append(student)
    return students, unreadable
