"""`grader.reading.schema_explain`, the standard library's explanation of a value that fails
its schema (where jsonschema is not installed), held to jsonschema's: the same problems
(message and JSON pointer) for every invalid value of the samples and for values made
invalid by seeded mutations of the correct run's files."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest

from checks import LAB
from grader.reading.schema import _place, _problem
from grader.reading.schema_explain import Explainer
from tests.conftest import SAMPLES

SCHEMAS = LAB.schemas
FILES = {a.filename: a.name for a in LAB.artifacts}
ODD_VALUES = [None, True, 1, -5, 2.5, "x", "", [], {}, [1], {"a": 1}, 10**9, -0.5]


def problems_by_jsonschema(schema: str, value: Any) -> list[tuple[str, str | None]]:
    return [_key(_problem(e, ())) for e in SCHEMAS.errors(schema, value)]


def problems_by_stdlib(schema: str, value: Any) -> list[tuple[str, str | None]]:
    explainer = Explainer(SCHEMAS.load(schema), SCHEMAS.by_id())
    errors = itertools.islice(explainer.errors(value), 20)
    return [_key(_problem(e, ())) for e in sorted(errors, key=lambda e: _place(value, e))]


def _key(problem: Any) -> tuple[str, str | None]:
    return problem.message_id, problem.location.pointer


def _mutated(value: Any, rnd: random.Random) -> Any:
    value = copy.deepcopy(value)
    nodes: list[tuple[Any, Any]] = []

    def walk(node: Any, parent: Any, key: Any) -> None:
        nodes.append((parent, key))
        children = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for k, child in list(children):
            walk(child, node, k)

    walk(value, None, None)
    for _ in range(rnd.randint(1, 3)):
        parent, key = rnd.choice(nodes)
        if parent is None:
            continue
        roll = rnd.random()
        if roll < 0.5:
            parent[key] = rnd.choice(ODD_VALUES)
        elif roll < 0.7 and isinstance(parent, dict) and key in parent:
            del parent[key]
        elif isinstance(parent, dict):
            parent[f"extra{rnd.randint(0, 9)}"] = 1
        else:
            parent.append(rnd.choice(ODD_VALUES))
    return value


def _json_files() -> list[tuple[str, str]]:
    return [(f, FILES[f]) for f in sorted(FILES) if f.endswith(".json")]


@pytest.mark.parametrize(("file", "schema"), _json_files())
def test_mutated_files_get_the_problems_jsonschema_finds(file: str, schema: str) -> None:
    original = json.loads((SAMPLES / "correct" / file).read_text("utf-8"))
    rnd = random.Random(file)
    tried = 0
    for _ in range(150):
        value = _mutated(original, rnd)
        if SCHEMAS.conforms(schema, value):
            continue
        tried += 1
        stdlib = problems_by_stdlib(schema, value)
        assert set(stdlib) == set(problems_by_jsonschema(schema, value)), value
        assert stdlib[0] in problems_by_jsonschema(schema, value)
    assert tried > 0


def test_every_invalid_sample_value_gets_jsonschemas_first_problem() -> None:
    checked = 0
    for path in sorted(SAMPLES.rglob("*.json")):
        schema = FILES.get(path.name)
        try:
            value = json.loads(path.read_text("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):  # the grader refuses those first
            continue
        if schema is None or SCHEMAS.conforms(schema, value):
            continue
        checked += 1
        assert problems_by_stdlib(schema, value)[:1] == problems_by_jsonschema(schema, value)[:1]
    assert checked > 5


def test_an_integer_written_as_a_float_with_no_fraction_is_an_integer() -> None:
    explainer = Explainer({"type": "integer"}, {})
    assert list(explainer.errors(3.0)) == [] and list(explainer.errors(3.5))


def test_true_is_no_number_and_1_equals_1_0() -> None:
    assert list(Explainer({"type": "number"}, {}).errors(True))
    assert list(Explainer({"const": 1}, {}).errors(1.0)) == []
    assert list(Explainer({"const": 1}, {}).errors(True))
