"""JSON Schema validation against the files in `schemas/`, with errors a student can read.

The schemas are the published contract, so artifacts are validated against those very
files (Draft 2020-12), with every schema registered under its `$id` so they can `$ref`
each other. A validator is built once per schema per process. Each validation error
becomes a `Problem` whose id names the kind of rule that failed (`schema.type`,
`schema.required`, ...) and whose parameters are the facts of that rule, so the message
catalogs can say it in words ("`runs[2].tokens` should be a whole number, found 64.5").
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from functools import cache
from typing import Any

from grader.package_data import package_dir, read_text
from grader.problems import Location, Problem, Term, json_pointer, readable_path
from grader.sandbox import prepared


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (bool before int: bool is an int in Python)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def schema_names() -> list[str]:
    """Names of every schema shipped in the `schemas` package (file stem before .schema)."""
    files = os.scandir(package_dir("schemas"))
    return sorted(
        f.name.removesuffix(".schema.json") for f in files if f.name.endswith(".schema.json")
    )


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file `schemas/<name>.schema.json`."""
    text = read_text("schemas", f"{name}.schema.json")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _import_jsonschema() -> tuple[Any, Any, Any]:
    """jsonschema's validator and referencing's registry, imported (see `_validator`)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    return Draft202012Validator, Registry, Resource


@cache
def _validator(name: str) -> Any:
    # Only a rejected file needs jsonschema, and grading is confined by then: `prepared`
    # has the import done outside the confinement, under the import guard (sandbox).
    Draft202012Validator, Registry, Resource = prepared(_import_jsonschema)
    registry = Registry().with_resources(
        (load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in schema_names()
    )
    return Draft202012Validator(load_schema(name), registry=registry)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _problem(error: Any, prefix: tuple[str | int, ...]) -> Problem:
    path = (*prefix, *error.absolute_path)
    kind = error.validator
    params: dict[str, Any] = {"path": readable_path(path), "found": _short(error.instance)}
    if kind == "type":
        expected = error.validator_value
        expected = expected if isinstance(expected, list) else [expected]
        params["expected"] = Term("|".join(expected))
        params["found_type"] = Term(json_type(error.instance))
    elif kind == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        params["key"] = missing[0] if missing else ""
    elif kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        params["key"] = extra[0] if extra else ""
    elif kind in (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "const",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "multipleOf",
    ):
        params["limit"] = _short(error.validator_value)
        if kind in ("minItems", "maxItems", "minLength", "maxLength"):
            params["count"] = len(error.instance)
    elif kind == "enum":
        params["allowed"] = ", ".join(_short(v) for v in error.validator_value)
    else:
        kind = "other"
        params["detail"] = error.message[:200]
    return Problem(f"schema.{kind}", params, Location("", pointer=json_pointer(path)))


MAX_PROBLEMS = 20
"""Errors reported per validated value; a file full of errors is explained by its first
ones, and listing 100,000 of them would cost seconds and megabytes of result."""

_TYPE_TESTS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}
FAST_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "title",
        "description",
        "type",
        "properties",
        "required",
        "items",
        "minimum",
        "minItems",
        "const",
        "$ref",
    }
)
"""The keywords `conforms` understands; a test keeps every artifact schema within them."""


def _schema_by_id() -> dict[str, dict[str, Any]]:
    return {load_schema(n)["$id"]: load_schema(n) for n in schema_names()}


Test = Callable[[Any], bool]


def compile_schema(schema: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> Test:
    """A fast yes/no validator for `schema`: closures built once, no import at all.

    It understands the few keywords the artifact schemas use, with JSON Schema's meaning
    (bool is not a number, 64.0 is an integer). The answer True means "certainly valid";
    a schema with any other keyword always answers False, sending the value to
    jsonschema, which also explains every failure.
    """
    if not FAST_KEYWORDS.issuperset(schema):
        return lambda instance: False
    tests: list[Test] = []
    if "$ref" in schema:
        target = by_id.get(schema["$ref"])
        if target is None:
            return lambda instance: False
        tests.append(compile_schema(target, by_id))
    kind = schema.get("type")
    if kind is not None:
        kinds = [_TYPE_TESTS[k] for k in (kind if isinstance(kind, list) else [kind])]
        tests.append(kinds[0] if len(kinds) == 1 else lambda v: any(t(v) for t in kinds))
    if "const" in schema:
        const = schema["const"]
        tests.append(lambda v: v == const and type(v) is type(const))
    if "minimum" in schema:
        low, is_number = schema["minimum"], _TYPE_TESTS["number"]
        tests.append(lambda v: not is_number(v) or v >= low)
    required = tuple(schema.get("required", ()))
    properties = [
        (k, compile_schema(sub, by_id)) for k, sub in schema.get("properties", {}).items()
    ]
    if required or properties:

        def object_test(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            return all(k in v for k in required) and all(
                test(v[k]) for k, test in properties if k in v
            )

        tests.append(object_test)
    min_items = schema.get("minItems", 0)
    items = compile_schema(schema["items"], by_id) if "items" in schema else None
    if min_items or items:

        def array_test(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            return len(v) >= min_items and (items is None or all(items(x) for x in v))

        tests.append(array_test)
    if len(tests) == 1:
        return tests[0]
    return lambda instance: all(test(instance) for test in tests)


def conforms(schema: dict[str, Any], instance: Any, by_id: dict[str, dict[str, Any]]) -> bool:
    """True when `instance` is certainly valid against `schema` (see `compile_schema`)."""
    return compile_schema(schema, by_id)(instance)


@cache
def _fast(name: str) -> Test:
    return compile_schema(load_schema(name), _ids())


@cache
def _ids() -> dict[str, dict[str, Any]]:
    return _schema_by_id()


def validate(name: str, instance: Any, prefix: tuple[str | int, ...] = ()) -> list[Problem]:
    """Every way `instance` breaks schema `name`, the most useful first.

    Valid input takes the fast path (`conforms`); only invalid input pays for importing
    jsonschema, whose errors are ordered shallow before deep and then in document order,
    which puts "a key is missing" before the details inside its siblings, as
    `jsonschema.best_match` would.
    """
    if _fast(name)(instance):
        return []
    errors = list(itertools.islice(_validator(name).iter_errors(instance), MAX_PROBLEMS))
    errors.sort(key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
    return [_problem(e, prefix) for e in errors]
