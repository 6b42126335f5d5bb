"""A toy lab for the engine's own tests: one artifact with its own schema, two checks,
a rubric, an English catalog and one section of the class report.

A student answers one question in `answer.json`: `{"question": ..., "answer": 42,
"seconds": 3.5}`. `answer.correct` wants the rubric's answer; `answer.quick` (after
it) wants it within the rubric's time. Nothing here is the first-token lab's, and the
engine grades it the same way: the toy is how the tests show that a second lab is a
second package, with no change to `grader/`.

It is importable as `tests.toylab` (the in-process tests) and, copied beside a
`.dist-info` that registers it in the `grader.labs` entry points, as `toylab` (the test
that installs it and grades it from the command line): `package=__name__` is right in
both.
"""

from __future__ import annotations

from grader.engine.api import collect
from grader.engine.lab import Lab
from grader.reading.loading import ArtifactSpec
from grader.reading.parsers import json_document
from grader.reading.schema import SchemaSet

from . import answers

SCHEMAS = SchemaSet.of_package(__name__, "schemas")


def _measure(value: dict) -> dict:
    return {"seconds": value["seconds"]}


LAB = Lab(
    name="toy",
    title="a toy lab (one answer.json)",
    artifacts=(
        ArtifactSpec(
            "answer",
            "answer.json",
            json_document(SCHEMAS["answer"]),
            max_bytes="answer_bytes",
            measure=_measure,
        ),
    ),
    checks=collect(answers),
    package=__name__,
    schemas=SCHEMAS,
    limits={"answer_bytes": 4096},
    class_report=f"{__name__}.report:CLASS_REPORT",
)
