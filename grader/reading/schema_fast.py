"""The fast path of schema validation: a yes/no validator compiled to closures.

Valid input is the common case (a student's good files, every stored result), and
importing jsonschema costs more than grading; so a schema is compiled once into small
closures that answer True when a value is certainly valid. False sends the value to
jsonschema, which also explains the failure. It is the one fast path of validation, kept
because it pays (docs/benchmarks.md, "One path per job"): with jsonschema deciding every
value, a cold `grader check` of a good submission took 72 ms more CPU (161 against 89 ms;
importing jsonschema alone is ≈ 80 ms, 6× the interpreter's start), beyond the budget of
6× `python -c pass`; warm, its closures validate a submission's 138 instances in
0.26 ms against jsonschema's 7.7 ms. The validators once generated from them as source
(`schemas/validators.py`) saved 1.5 ms of a cold check and went.

It can only be trusted where it agrees with JSON Schema, so it knows few keywords and
refuses everything else when it compiles (`Unsupported`: the schema then always goes to
jsonschema): the keywords of `FAST_KEYWORDS`, boolean schemas, and `$ref` to a JSON
pointer in the same document or to another schema of the set by its absolute `$id`.
Refused: every other keyword (`pattern`, `oneOf`, `prefixItems`, ...), `$id` below a
document's root, `$schema` other than 2020-12, anchors, relative or unknown references,
and a keyword whose value is not of the shape the specification gives it. Within what
it accepts it follows JSON Schema 2020-12 exactly (a bool is not a number, 64.0 is an
integer, `const: [true]` is not `[1]`, `1` equals `1.0`): `tests/test_schema_fast.py`
holds it to jsonschema's verdict on the official JSON-Schema-Test-Suite cases of every
keyword it accepts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    Test = Callable[[Any], bool]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly"}
)  # fmt: skip
ASSERTIONS = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
     "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum",
     "exclusiveMinimum", "exclusiveMaximum", "anyOf", "allOf", "$ref"}
)  # fmt: skip
FAST_KEYWORDS = ANNOTATIONS | ASSERTIONS | {"$defs", "$schema", "$id"}
"""Every keyword the fast path accepts; `$schema` and `$id` only at a document's root."""


class Unsupported(ValueError):
    """The schema has a keyword or a shape the fast path does not know: it is refused
    when compiled, and every value goes to jsonschema."""


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPE_TESTS: dict[str, Test] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it: a bool is never a number, numbers compare by
    value (1 == 1.0), arrays item by item, objects key by key."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(json_equal(a[k], b[k]) for k in a)
        )
    return type(a) is type(b) and bool(a == b)


def _count(value: Any, keyword: str) -> int:
    """A non-negative integer (2.0 is one, as JSON Schema reads numbers)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unsupported(f"{keyword} is not a non-negative integer")
    return value


def _limit(value: Any, keyword: str) -> float | int:
    if not _is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
        raise Unsupported(f"{keyword} is not a number")
    return value  # type: ignore[no-any-return]


class _Compiler:
    """Compiles the schemas of one set, each subschema once (a `$ref` cycle is fine)."""

    def __init__(self, by_id: dict[str, Any]) -> None:
        self.by_id = by_id
        self.done: dict[tuple[int, str], Test] = {}

    def document(self, root: Any) -> Test:
        if isinstance(root, dict):
            schema = root.get("$schema", DRAFT_2020_12)
            if schema != DRAFT_2020_12:
                raise Unsupported(f"$schema {schema!r} is not draft 2020-12")
            if "$id" in root and not isinstance(root["$id"], str):
                raise Unsupported("$id is not a string")
        return self.at(root, "")

    def at(self, root: Any, pointer: str) -> Test:
        """The test of the subschema at `pointer` in the document `root`."""
        key = (id(root), pointer)
        if key not in self.done:
            cell: list[Test] = []
            self.done[key] = lambda v: cell[0](v)  # a reference back to itself, for now
            cell.append(self.schema(_walk(root, pointer), root, is_root=pointer == ""))
            self.done[key] = cell[0]
        return self.done[key]

    def ref(self, ref: Any, root: Any) -> Test:
        if not isinstance(ref, str):
            raise Unsupported("$ref is not a string")
        base, _, fragment = ref.partition("#")
        if base:
            if ":" not in base or base not in self.by_id:
                raise Unsupported(f"$ref {ref!r} is no schema of the set")
            root = self.by_id[base]
        if fragment and not fragment.startswith("/"):
            raise Unsupported(f"$ref {ref!r} names an anchor")
        if "%" in fragment:  # a URI fragment is percent-decoded, then read as a pointer
            from urllib.parse import unquote

            fragment = unquote(fragment)
        return self.at(root, fragment)

    def schema(self, schema: Any, root: Any, is_root: bool) -> Test:
        if isinstance(schema, bool):
            return (lambda v: True) if schema else (lambda v: False)
        if not isinstance(schema, dict):
            raise Unsupported("a schema is an object or a boolean")
        unknown = set(schema) - FAST_KEYWORDS
        if unknown:
            raise Unsupported(f"keyword {sorted(unknown)[0]!r}")
        if not is_root and ("$id" in schema or "$schema" in schema):
            raise Unsupported("$id or $schema below a document's root")
        if not isinstance(schema.get("$defs", {}), dict):
            raise Unsupported("$defs is not an object")
        tests = [t for t in self._tests(schema, root) if t is not None]
        if not tests:
            return lambda v: True
        if len(tests) == 1:
            return tests[0]
        if len(tests) == 2:
            first, second = tests
            return lambda v: first(v) and second(v)
        return lambda v: all(test(v) for test in tests)

    def _tests(self, schema: dict[str, Any], root: Any) -> list[Test | None]:
        return [
            self.ref(schema["$ref"], root) if "$ref" in schema else None,
            _type(schema["type"]) if "type" in schema else None,
            _enum(schema["enum"]) if "enum" in schema else None,
            _const(schema["const"]) if "const" in schema else None,
            _numbers(schema),
            _strings(schema),
            self._object(schema, root),
            self._array(schema, root),
            *(self._combined(schema, keyword, root) for keyword in ("anyOf", "allOf")),
        ]

    def _sub(self, schema: Any, root: Any) -> Test:
        return self.schema(schema, root, is_root=False)

    def _object(self, schema: dict[str, Any], root: Any) -> Test | None:
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
            raise Unsupported("required is not a list of strings")
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            raise Unsupported("properties is not an object")
        named = [(k, self._sub(sub, root)) for k, sub in properties.items()]
        others = self._sub(schema["additionalProperties"], root) if (
            "additionalProperties" in schema
        ) else None  # fmt: skip
        if not (required or named or others):
            return None
        known = frozenset(properties)

        def test(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for k in required:
                if k not in v:
                    return False
            for k, t in named:
                if k in v and not t(v[k]):
                    return False
            if others is not None:
                for k, x in v.items():
                    if k not in known and not others(x):
                        return False
            return True

        return test

    def _array(self, schema: dict[str, Any], root: Any) -> Test | None:
        if isinstance(schema.get("items"), list):
            raise Unsupported("items as an array (prefixItems in 2020-12)")
        items = self._sub(schema["items"], root) if "items" in schema else None
        low = _count(schema["minItems"], "minItems") if "minItems" in schema else 0
        high = _count(schema["maxItems"], "maxItems") if "maxItems" in schema else None
        if items is None and not low and high is None:
            return None

        def test(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            if len(v) < low or (high is not None and len(v) > high):
                return False
            if items is not None:
                for x in v:
                    if not items(x):
                        return False
            return True

        return test

    def _combined(self, schema: dict[str, Any], keyword: str, root: Any) -> Test | None:
        if keyword not in schema:
            return None
        subs = schema[keyword]
        if not isinstance(subs, list) or not subs:
            raise Unsupported(f"{keyword} is not a non-empty list")
        tests = [self._sub(sub, root) for sub in subs]
        if keyword == "anyOf":
            return lambda v: any(t(v) for t in tests)
        return lambda v: all(t(v) for t in tests)


def _walk(root: Any, pointer: str) -> Any:
    """The value at a JSON pointer (RFC 6901) in `root`, through no nested `$id`."""
    node = root
    if not pointer:
        return node
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and node is not root and "$id" in node:
            raise Unsupported("$ref through a schema with its own $id")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise Unsupported(f"$ref pointer {pointer!r} names nothing")
    return node


def _type(kind: Any) -> Test:
    kinds = kind if isinstance(kind, list) else [kind]
    if not kinds or not all(isinstance(k, str) and k in _TYPE_TESTS for k in kinds):
        raise Unsupported(f"type {kind!r}")
    tests = [_TYPE_TESTS[k] for k in kinds]
    return tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))


def _enum(allowed: Any) -> Test:
    if not isinstance(allowed, list):
        raise Unsupported("enum is not a list")
    return lambda v: any(json_equal(v, a) for a in allowed)


def _const(value: Any) -> Test:
    return lambda v: json_equal(v, value)


def _numbers(schema: dict[str, Any]) -> Test | None:
    bounds = [
        (_limit(schema[k], k), k)
        for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
        if k in schema
    ]
    if not bounds:
        return None
    checks: dict[str, Callable[[Any, Any], bool]] = {
        "minimum": lambda v, b: v >= b,
        "maximum": lambda v, b: v <= b,
        "exclusiveMinimum": lambda v, b: v > b,
        "exclusiveMaximum": lambda v, b: v < b,
    }
    pairs = [(checks[k], b) for b, k in bounds]
    return lambda v: not _is_number(v) or all(check(v, b) for check, b in pairs)


def _strings(schema: dict[str, Any]) -> Test | None:
    low = _count(schema["minLength"], "minLength") if "minLength" in schema else 0
    high = _count(schema["maxLength"], "maxLength") if "maxLength" in schema else None
    if not low and high is None:
        return None
    return lambda v: not isinstance(v, str) or (low <= len(v) and (high is None or len(v) <= high))


def compile_schema(schema: Any, by_id: dict[str, Any]) -> Test:
    """The fast yes/no validator of `schema` (a document of the set `by_id`, its schemas
    by `$id`): True means "certainly valid". Raises `Unsupported` for a keyword or shape
    it does not know; the caller then sends every value to jsonschema."""
    return _Compiler(by_id).document(schema)
