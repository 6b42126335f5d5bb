"""JSON Schema validation against the files in `schemas/`, with errors a student can read.

The schemas are the published contract, so artifacts are validated against those very
files (Draft 2020-12), with every schema registered under its `$id` so they can `$ref`
each other. A validator is built once per schema per process. Each validation error
becomes a `Problem` whose id names the kind of rule that failed (`schema.type`,
`schema.required`, ...) and whose parameters are the facts of that rule, so the message
catalogs can say it in words ("`runs[2].tokens` should be a whole number, found 64.5").
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from grader.problems import Location, Problem, json_pointer, readable_path

_TYPE_NAMES = {
    "integer": "integer",
    "number": "number",
    "string": "string",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
    "null": "null",
}


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
    files = resources.files("schemas").iterdir()
    return sorted(
        f.name.removesuffix(".schema.json") for f in files if f.name.endswith(".schema.json")
    )


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file `schemas/<name>.schema.json`."""
    text = resources.files("schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry = Registry().with_resources(
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
        params["expected"] = " or ".join(_TYPE_NAMES.get(t, t) for t in expected)
        params["found_type"] = json_type(error.instance)
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


def validate(name: str, instance: Any, prefix: tuple[str | int, ...] = ()) -> list[Problem]:
    """Every way `instance` breaks schema `name`, the most useful first.

    Order: shallow before deep and then document order, which puts "a key is missing"
    before the details inside the key's siblings, as `jsonschema.best_match` would.
    """
    errors = list(_validator(name).iter_errors(instance))
    errors.sort(key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
    return [_problem(e, prefix) for e in errors]
