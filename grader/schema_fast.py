"""The fast path of schema validation: a yes/no validator compiled to closures.

Valid input is the common case (a student's good files, every stored result), and
importing jsonschema costs more than grading; so a schema is compiled once into small
closures that answer True when a value is certainly valid. Anything else (False) goes to
jsonschema, which also explains the failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
