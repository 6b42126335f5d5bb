"""The grader's result: one model, the source of `schemas/result.schema.json`.

Every renderer (text, JSON, later Gradescope, JUnit, ...) reads this object and nothing
else. It is built from language-neutral outcomes plus a message catalog, so the same
submission gives the same bytes for the same language. `SCHEMA_VERSION` changes with the
model; `docs/result-schema-changelog.md` records each change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0.0"

Value = str | int | float | None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResultLocation(_Model):
    """Where a check's finding is: file, 1-based line and column, JSON pointer."""

    file: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = Field(None, description="RFC 6901 JSON pointer inside the file")


class CheckResult(_Model):
    """One check: stable id, outcome, points and the feedback a student acts on."""

    id: str = Field(description="Stable check id, e.g. `ttft.before_total`")
    title: str
    status: Literal["passed", "failed", "skipped", "error"]
    points: float
    max_points: float
    message: str | None = Field(None, description="What was found, in the chosen language")
    hint: str | None = Field(None, description="What to do about a failure")
    explanation: str | None = Field(None, description="The lab's common mistake this is, if any")
    artifact: str | None = Field(None, description="Short name of the artifact the check is about")
    location: ResultLocation | None = None
    expected: Value = None
    found: Value = None
    message_id: str | None = Field(
        None, description="Catalog id of `message`, stable across languages"
    )


class ProblemResult(_Model):
    """One problem with an artifact's file (parse or schema)."""

    message: str
    message_id: str
    location: ResultLocation | None = None


class ArtifactResult(_Model):
    """One file of the submission as loaded."""

    name: str
    file: str
    status: Literal["valid", "invalid", "missing", "refused"]
    sha256: str | None = None
    bytes: int | None = None
    problems: list[ProblemResult] = Field(default_factory=list)


class Summary(_Model):
    passed: int
    failed: int
    skipped: int
    error: int


class Result(_Model):
    """The grade of one submission."""

    schema_version: str = SCHEMA_VERSION
    grader_version: str
    lab: str
    rubric_version: str
    language: str
    submission: str
    gradable: bool = Field(
        description="False when the grader could not grade at all; not a low score"
    )
    score: float
    max_score: float
    summary: Summary
    checks: list[CheckResult]
    artifacts: list[ArtifactResult]
    format_errors: list[str] = Field(
        default_factory=list, description="Why the submission is not gradable"
    )


def result_schema() -> dict[str, object]:
    """The JSON Schema of `Result` as published in `schemas/result.schema.json`."""
    schema = Result.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:first-token-lab:schema:result",
        **schema,
    }
