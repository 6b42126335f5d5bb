"""The PrairieLearn renderer, against PrairieLearn's external-grading results format.

The JSON Schema below is written from PrairieLearn's "External Grading" guide, section
"Grading results" (docs/externalGrading.md): `score` a number in [0.0, 1.0] (needed when
gradable), `gradable` a boolean, `format_errors` a string or an array of strings,
`message` and `output` strings, `images`, and `tests` as `<pl-external-grader-results>`
renders them (`name`, `description`, `points`, `max_points`, `message`, `output`,
`images`). The guide allows extra keys; this grader adds none, so the schema forbids
them to catch typos.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.engine.result import Result
from grader.render import RenderOptions
from grader.render.prairielearn import render
from tests.conftest import EXPECTED, graded

IMAGES = {
    "type": "array",
    "items": {
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "required": ["url"],
                "properties": {"url": {"type": "string"}, "label": {"type": "string"}},
            },
        ]
    },
}
PL_RESULTS = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "gradable": {"type": "boolean"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "message": {"type": "string"},
        "output": {"type": "string"},
        "format_errors": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
        },
        "images": IMAGES,
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "description", "points", "max_points", "message", "output"],
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "points": {"type": "number"},
                    "max_points": {"type": "number"},
                    "message": {"type": "string"},
                    "output": {"type": "string"},
                    "images": IMAGES,
                },
            },
        },
    },
    # "If the submission is gradable, the result only has one mandatory field: score".
    "if": {"not": {"properties": {"gradable": {"const": False}}, "required": ["gradable"]}},
    "then": {"required": ["score"]},
}
OPTIONS = RenderOptions(catalog_for(LAB, "en"))


def results_of(result: Result) -> dict:
    return json.loads(render(result, OPTIONS))


def entry(doc: dict, check_id: str) -> dict:
    return next(t for t in doc["tests"] if t["name"] == check_id)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_sample_gives_results_valid_against_prairielearns_format(name: str) -> None:
    doc = results_of(graded(name))
    jsonschema.validate(doc, PL_RESULTS)
    assert doc["gradable"] is True


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_score_is_the_fraction_of_the_maximum(name: str) -> None:
    result = graded(name)
    assert results_of(result)["score"] == pytest.approx(result.score / result.max_score)


def test_full_marks_score_1() -> None:
    assert results_of(graded("correct"))["score"] == 1.0


def test_a_failed_check_lowers_the_score_by_its_points() -> None:
    result = graded("no_close_on_cancel")
    assert results_of(result)["score"] == pytest.approx(result.score / result.max_score)
    assert result.score < result.max_score


def test_tests_are_the_checks_with_points_and_max_points() -> None:
    result = graded("role_chunk_counted")
    doc = results_of(result)
    assert [(t["name"], t["points"], t["max_points"]) for t in doc["tests"]] == [
        (c.id, c.points, c.max_points) for c in result.checks
    ]
    assert [t["description"] for t in doc["tests"]] == [c.title for c in result.checks]


def test_failed_test_has_message_and_output_with_where_expected_found_and_hint() -> None:
    test = entry(results_of(graded("cache_on_in_prefill")), "prefill.cache_off")
    assert test["message"].startswith("For 0 docs prompt_n is 13")
    assert test["output"].splitlines()[:2] == [
        "at: prefill.json:4 (/0/prompt_n)",
        "expected: 34   found: 13",
    ]
    assert test["output"].splitlines()[2].startswith("what to do: ")


def test_message_gives_the_score_and_output_the_common_mistakes() -> None:
    doc = results_of(graded("role_chunk_counted"))
    result = graded("role_chunk_counted")
    passed = result.summary.passed
    score = f"{result.score:g}/{result.max_score:g}"
    assert doc["message"] == f"Score: {score} — {passed} passed, 1 failed, 0 skipped, 0 errors"
    assert doc["output"].startswith("Common mistakes found\n\nCommon mistake 1:")


def test_no_output_key_without_common_mistakes() -> None:
    assert "output" not in results_of(graded("correct"))


def test_not_gradable_has_gradable_false_and_format_errors(capsys, tmp_path: Path) -> None:
    code = main(["check", str(tmp_path / "nope"), "--format", "prairielearn"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, PL_RESULTS)
    assert code == 2
    assert doc["gradable"] is False and doc["tests"] == [] and doc["score"] == 0
    assert len(doc["format_errors"]) == 1 and "There is no folder" in doc["format_errors"][0]
    assert doc["format_errors"][0] in doc["message"]


def test_rubric_of_zero_points_scores_1_when_everything_passed() -> None:
    result = graded("correct")
    free = [dataclasses.replace(c, points=0.0, max_points=0.0) for c in result.checks]
    doc = results_of(dataclasses.replace(result, checks=free, score=0.0, max_score=0.0))
    assert doc["score"] == 1.0
    jsonschema.validate(doc, PL_RESULTS)


def test_rubric_of_zero_points_scores_0_when_a_check_failed() -> None:
    result = graded("role_chunk_counted")
    free = [dataclasses.replace(c, points=0.0, max_points=0.0) for c in result.checks]
    doc = results_of(dataclasses.replace(result, checks=free, score=0.0, max_score=0.0))
    assert doc["score"] == 0.0


def test_output_is_deterministic() -> None:
    result = graded("no_cache_ram_flag")
    assert render(result, OPTIONS) == render(result, OPTIONS)
