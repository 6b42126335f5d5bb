"""The fast schema path agrees with jsonschema on the official JSON-Schema-Test-Suite.

`grader/reading/schema_fast.py` answers "certainly valid" without importing jsonschema. For
every keyword it accepts, the suite's draft 2020-12 cases (tests/data/json-schema-test-
suite, commit in its README) are compiled: a schema it refuses goes to jsonschema (exact
by definition); for every schema it accepts, its verdict on each instance must be
jsonschema's and the suite's. It must never say valid where jsonschema says invalid.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from checks import SCHEMAS
from grader.reading.schema import RESULT_SCHEMAS
from grader.reading.schema_fast import FAST_KEYWORDS, Unsupported, compile_schema, json_equal

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"
FILES = sorted(SUITE.glob("*.json"))
GROUPS = [
    pytest.param(group, id=f"{path.stem}: {group['description']}")
    for path in FILES
    for group in json.loads(path.read_text("utf-8"))
]


def _compiled(schema: object):
    by_id = {schema["$id"]: schema} if isinstance(schema, dict) and "$id" in schema else {}
    try:
        return compile_schema(schema, by_id)
    except Unsupported:
        return None


@pytest.mark.parametrize("group", GROUPS)
def test_the_fast_path_gives_jsonschemas_verdict(group: dict) -> None:
    fast = _compiled(group["schema"])
    if fast is None:
        pytest.skip("refused when compiled: jsonschema decides")
    validator = Draft202012Validator(group["schema"])
    for case in group["tests"]:
        truth = validator.is_valid(case["data"])
        assert truth == case["valid"], case["description"]  # the suite is jsonschema's too
        assert fast(case["data"]) == truth, case["description"]


def test_the_suite_covers_every_keyword_the_fast_path_accepts() -> None:
    """Each accepted keyword has its suite file, and most of the cases are compiled, not
    refused: the comparison above is not empty."""
    covered = {path.stem for path in FILES}
    structural = {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "title",
        "description",
    }
    assert {k.lstrip("$") for k in FAST_KEYWORDS - structural} <= covered
    compiled = [g for g in GROUPS if _compiled(g.values[0]["schema"]) is not None]
    cases = sum(len(g.values[0]["tests"]) for g in compiled)
    assert len(compiled) > 100 and cases > 350, (len(compiled), cases)


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"pattern": "^a"}, "pattern"),
        ({"oneOf": [{"type": "string"}]}, "oneOf"),
        ({"items": [{"type": "string"}]}, "items as an array"),
        ({"$ref": "#anchor"}, "anchor"),
        ({"$ref": "other.json"}, "no schema of the set"),
        (
            {"$defs": {"a": {"$id": "urn:x", "type": "string"}}, "$ref": "#/$defs/a"},
            "below a document",
        ),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, "draft 2020-12"),
        ({"type": "int"}, "type"),
        ({"minItems": -1}, "non-negative"),
        ({"properties": {"a": 3}}, "object or a boolean"),
        ({"$ref": "#/$defs/missing"}, "names nothing"),
    ],
)
def test_what_the_fast_path_does_not_know_is_refused_when_compiled(schema, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        compile_schema(schema, {})


def test_json_equality_tells_bools_from_numbers_at_any_depth() -> None:
    assert json_equal([1, {"a": 1.0}], [1.0, {"a": 1}])
    assert not json_equal([True], [1]) and not json_equal({"a": False}, {"a": 0})
    assert not json_equal(None, False) and not json_equal("1", 1)
    assert not json_equal([1], [1, 1]) and not json_equal({"a": 1}, {"b": 1})


@pytest.mark.parametrize(
    ("schemas", "name"),
    [(SCHEMAS, n) for n in SCHEMAS.names()] + [(RESULT_SCHEMAS, n) for n in RESULT_SCHEMAS.names()],
)
def test_every_schema_of_the_grader_takes_the_fast_path(schemas, name: str) -> None:
    """A good file, or a stored result, never imports jsonschema: every schema compiles."""
    assert schemas.refusal(name) is None
