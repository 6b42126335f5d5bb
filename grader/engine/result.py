"""The grader's result: plain dataclasses, the source of `grader/schemas/result.schema.json`.

Every renderer (text, JSON, Gradescope, JUnit, ...) reads this object and nothing else.
It is built from language-neutral outcomes plus a message catalog, so the same
submission gives the same bytes for the same language. A result read back from its
JSON (`Result.from_dict`, `Result.from_json`, `read_result`: batch --resume and rows,
the class report, the fuzzer) is validated against the result schema first: those are
the only readers of result JSON.

Why dataclasses and not pydantic models: grading must start fast (a student runs it
dozens of times) and importing pydantic costs more than the whole grading. The JSON
Schema is still generated from these classes, by pydantic reading the dataclasses, at
development time (`scripts/write_result_schema.py`, which reads the attribute
docstrings below); a test keeps the file equal to what the classes say. `SCHEMA_VERSION`
changes with the classes; `docs/result-schema-changelog.md` records each change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

# Names the fields' annotations use, defined at run time: pydantic resolves them there.
Status = Literal["passed", "failed", "skipped", "error"]
"""How a check ended; `STATUSES` lists them in the order reports count them."""
Evidence = Literal["corroborated", "consistent", "unconfirmed", "contradicted"]
"""What backs a file's numbers (`grader.engine.runner.evidence_of`)."""

SCHEMA_VERSION = "1.5.0"
SCHEMA_ID = "urn:grader:schema:result"  # the engine's, whatever the lab

STATUSES: tuple[Status, ...] = ("passed", "failed", "skipped", "error")
Value = str | int | float | None
RESULT_MAX_BYTES = 64 * 1024 * 1024
"""The largest result file a reader of results (batch --resume, the class report) reads."""
_CONFIG = {"use_attribute_docstrings": True, "extra": "forbid"}


@dataclass(frozen=True)
class ResultLocation:
    """Where a finding is: file, 1-based line and column, JSON pointer."""

    __pydantic_config__ = _CONFIG

    file: str
    """File name inside the submission."""
    line: int | None = None
    """1-based line."""
    column: int | None = None
    """1-based column."""
    pointer: str | None = None
    """RFC 6901 JSON pointer inside the file."""


@dataclass(frozen=True)
class CheckResult:
    """One check: stable id, outcome, points and the feedback a student acts on."""

    __pydantic_config__ = _CONFIG

    id: str
    """Stable check id, e.g. `step.check` (`<artifact>.schema` for a file's own check)."""
    title: str
    """What the check proves, in the chosen language."""
    status: Status
    """Outcome; `skipped` when an input did not load, `error` when the check itself broke."""
    points: float
    max_points: float
    message: str | None = None
    """What was found, in the chosen language."""
    hint: str | None = None
    """What to do about a failure."""
    explanation: str | None = None
    """The lab's common mistake behind this failure, if it is one."""
    artifact: str | None = None
    """Short name of the artifact the check is about."""
    location: ResultLocation | None = None
    expected: Value = None
    """What the check expected (language-neutral)."""
    found: Value = None
    """What the check found (language-neutral)."""
    message_id: str | None = None
    """Catalog id of `message`, stable across languages."""
    data: dict[str, Any] = field(default_factory=dict)
    """Measurements the check read, by name (JSON values), for reports over many results."""
    cause: str | None = None
    """For a skipped check, the id of the check whose failure it waits for (the first of
    the chain; `<artifact>.schema` when a file did not load)."""


@dataclass(frozen=True)
class ProblemResult:
    """One problem with an artifact's file (parse or schema)."""

    __pydantic_config__ = _CONFIG

    message: str
    message_id: str
    location: ResultLocation | None = None


@dataclass(frozen=True)
class ArtifactResult:
    """One file of the submission as loaded."""

    __pydantic_config__ = _CONFIG

    name: str
    file: str
    status: Literal["valid", "invalid", "missing", "refused"]
    sha256: str | None = None
    bytes: int | None = None
    problems: list[ProblemResult] = field(default_factory=list)
    evidence: Evidence | None = None
    """For a file of measurements the student saved: "corroborated" (the checks that
    compare them with an independent record of the run, the server's own, all passed),
    "contradicted" (one failed), "unconfirmed" (the record is missing or lacks this
    step), "consistent" (nothing independent can back them; they agree with the other
    files at best). Null for a file that is no claim or did not load. Corroboration
    shows the files tell one run's story; no file-only grader can prove the run
    happened."""


@dataclass(frozen=True)
class Summary:
    """How many checks ended in each status."""

    __pydantic_config__ = _CONFIG

    passed: int
    failed: int
    skipped: int
    error: int


@dataclass(frozen=True)
class Result:
    """The grade of one submission."""

    __pydantic_config__ = _CONFIG

    grader_version: str
    lab: str
    rubric_version: str
    language: str
    submission: str
    """The submission folder as given on the command line."""
    gradable: bool
    """False when the grader could not grade at all; not the same as a low score."""
    score: float
    max_score: float
    summary: Summary
    checks: list[CheckResult]
    artifacts: list[ArtifactResult]
    format_errors: list[str] = field(default_factory=list)
    """Why the submission is not gradable."""
    grader_error: bool = False
    """True when the grader itself failed (a check crashed, or grading stopped on an
    internal error): the score is not the student's; the grader's failure is to report."""
    input_digest: str | None = None
    """sha256 (hex) over everything the result depends on: the grader version, the lab,
    the rubric file's bytes, the language and every artifact's bytes (or why it was not
    read). Equal digests give equal results, whatever the submission's path."""
    files_in: str | None = None
    """Where below `submission` the graded files were found (`llm`, `voice/llm`), when
    the folder given holds none itself (see grader.reading.locate); null when it holds them."""
    schema_version: str = SCHEMA_VERSION
    """Version of result.schema.json this result follows."""

    @classmethod
    def ungradable(
        cls,
        *,
        grader_version: str,
        lab: str,
        rubric_version: str,
        language: str,
        submission: str,
        errors: list[str],
        grader_error: bool = False,
        input_digest: str | None = None,
    ) -> Result:
        """The result of a submission that could not be graded at all (PrairieLearn's
        sense: the student loses nothing), with the reasons; `grader_error` when the
        reason is the grader's own failure, not the submission."""
        return cls(
            grader_version=grader_version,
            lab=lab,
            rubric_version=rubric_version,
            language=language,
            submission=submission,
            gradable=False,
            score=0,
            max_score=0,
            summary=Summary(passed=0, failed=0, skipped=0, error=0),
            checks=[],
            artifacts=[],
            format_errors=errors,
            grader_error=grader_error,
            input_digest=input_digest,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data, keys in declaration order (schema_version first)."""
        return schema_version_first(_plain(self))

    def to_json(self) -> str:
        """The JSON document: stable key order, no timestamps, newline at the end."""
        return json_text(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> Result:
        """The result a parsed JSON document holds, once it is valid against the result
        schema (this grader's: a field it does not know is refused); raises `NotAResult`
        saying the first thing wrong. Valid documents take the schema's fast path."""
        from grader.reading.schema import RESULT_SCHEMAS

        problems = RESULT_SCHEMAS.validate("result", data)
        if problems:
            from grader.words.i18n import Catalog

            first = problems[0]
            raise NotAResult(Catalog("en", ("grader",)).text(first.message_id, first.params))
        _believable(data)
        return cls._of(data)

    @classmethod
    def from_own_json(cls, text: str) -> Result:
        """The result of a JSON text `to_json` just gave (valid by construction, so not
        validated again): the values exactly as a reader of the file gets them."""
        return cls._of(json.loads(text))

    @classmethod
    def from_own_data(cls, data: dict[str, Any]) -> Result:
        """The result of plain data that is exactly what reading its `json_text` back
        would give (`grader.words.visible.visible_plain` says when): the read back, without
        writing and parsing the text a second time."""
        return cls._of(data)

    @classmethod
    def _of(cls, data: dict[str, Any]) -> Result:
        return cls(
            **{
                **data,
                "summary": Summary(**data["summary"]),
                "checks": [_check_of(c) for c in data["checks"]],
                "artifacts": [_artifact_of(a) for a in data["artifacts"]],
            }
        )

    @classmethod
    def from_json(cls, text: str, text_cap: int | None = None) -> Result:
        """The result of a JSON text: strict JSON (no NaN, no duplicate key), then
        `from_dict`; raises `NotAResult`. With `text_cap`, every string longer than that
        is cut to it (ending in `…`) before anything else reads it."""
        from grader.reading.jsonload import JsonError, StrictDecoder

        try:
            data = StrictDecoder(max_digits=100, max_depth=64).decode(text.lstrip("\ufeff"), "")
        except JsonError as exc:
            raise NotAResult(f"not strict JSON ({exc.problem.message_id})") from None
        except (RecursionError, MemoryError) as exc:
            raise NotAResult(f"not strict JSON ({type(exc).__name__})") from None
        if text_cap is not None:
            from grader.reading.jsontext import capped

            data = capped(data, text_cap)
        return cls.from_dict(data)


def schema_version_first(data: dict[str, Any]) -> dict[str, Any]:
    """A result's plain data (fields in declaration order) as its JSON document orders
    them: `schema_version` first, so a reader sees the version before anything else."""
    return {"schema_version": data.pop("schema_version"), **data}


def json_text(data: dict[str, Any]) -> str:
    """The JSON document of a result's plain data: stable key order, two-space indent,
    newline at the end."""
    from grader.reading.jsontext import dumps_indented

    return dumps_indented(data, allow_nan=False) + "\n"


_LEAVES = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Each record met, with its fields in declaration order, as `asdict` walks them."""


def _plain(value: Any) -> Any:
    """What `dataclasses.asdict` gives, without its cost: asdict deep-copies every leaf
    (`copy.deepcopy` of each string and number), most of a result's rendering time; the
    leaves of a result are JSON values, immutable, so only the containers are copied."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return kind(_plain(item) for item in value)
    names = _FIELD_NAMES.get(kind)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return kind(_plain(item) for item in value)
    return value


class NotAResult(ValueError):
    """A document that is not a result; the message says the first thing wrong."""


def _location_of(data: dict[str, Any] | None) -> ResultLocation | None:
    return None if data is None else ResultLocation(**data)


def _check_of(data: dict[str, Any]) -> CheckResult:
    return CheckResult(**{**data, "location": _location_of(data.get("location"))})


def _artifact_of(data: dict[str, Any]) -> ArtifactResult:
    problems = [
        ProblemResult(**{**p, "location": _location_of(p.get("location"))})
        for p in data.get("problems", [])
    ]
    return ArtifactResult(**{**data, "problems": problems})


def _believable(data: dict[str, Any]) -> None:
    """Refuse a result whose points no grading could give (an edited file): a score or a
    check's points outside 0..its maximum. Raises `NotAResult` saying which."""
    from grader.words.i18n import format_value

    def outside(value: float, top: float) -> bool:
        return not 0 <= value <= top + 1e-9 * max(1.0, top)  # a sum's rounding is no lie

    if data["max_score"] < 0 or outside(data["score"], data["max_score"]):
        raise NotAResult(
            f"its score {format_value(data['score'])} is outside "
            f"0..{format_value(data['max_score'])}"
        )
    for check in data["checks"]:
        if check["max_points"] < 0 or outside(check["points"], check["max_points"]):
            raise NotAResult(
                f"the points of {check['id']} ({format_value(check['points'])}) are outside "
                f"0..{format_value(check['max_points'])}"
            )


def read_regular(path: str, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`; OSError when it can't be opened,
    `NotAResult` when it is no regular file or is larger than `max_bytes`."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAResult("not a regular file")
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise NotAResult(f"larger than {max_bytes} bytes")
    return data


def read_result(
    path: str, max_bytes: int = RESULT_MAX_BYTES, text_cap: int | None = None
) -> Result:
    """The result in the file at `path` (UTF-8, at most `max_bytes`); raises OSError when
    it can't be read, `NotAResult` when it is not a result (`text_cap`: see
    `Result.from_json`). It is opened without blocking or following a link
    (`read_regular`): a FIFO named `<id>.json` is refused at once, never waited on."""
    data = read_regular(path, max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotAResult("not UTF-8") from None
    return Result.from_json(text, text_cap)


def result_schema() -> dict[str, Any]:
    """The JSON Schema of `Result` (needs pydantic: a development-time tool here)."""
    from pydantic import TypeAdapter

    schema = TypeAdapter(Result).json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
