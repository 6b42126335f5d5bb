"""Why a value fails its JSON Schema, with the standard library alone.

`grader.reading.schema` explains a rejected value with jsonschema when it is installed. Where it
is not (the single-file `grader.pyz` run by a bare Python, a wheel installed with
`--no-deps`), this module explains it instead, so `grader check` needs no dependency on
any path: it walks the schema as JSON Schema 2020-12 defines the keywords the labs'
schemas use (`$ref` within the set, `type`, `properties`, `required`,
`additionalProperties`, `items`, `anyOf`, `enum`, `const`, `minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minItems`, `maxItems`,
`minLength`, `maxLength`) and yields errors shaped as jsonschema's (`validator`,
`validator_value`, `instance`, `schema`, `absolute_path`, `message`), which
`grader.reading.schema` turns into the same problems. A keyword it does not know is ignored,
never guessed at: the value already failed the fast validator, so at worst the
explanation is the one error it can name, or a general "does not match the format".

An `anyOf` none of whose branches holds is explained by the branch of the value's own
type (an object against the object branch), as jsonschema's `best_match` descends into
it; with no such branch, by the types the branches allow.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_TYPES = {
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


@dataclass(frozen=True)
class SchemaError:
    """One way a value breaks a schema, with the attributes of jsonschema's errors
    that `grader.reading.schema` reads."""

    validator: str
    validator_value: Any
    instance: Any
    schema: Any
    absolute_path: tuple[str | int, ...]
    message: str


def _is(kind: str, value: Any) -> bool:
    test = _TYPES.get(kind)
    return test is not None and bool(test(value))


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is no number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


class Explainer:
    """The errors of values against the schemas of one set (`by_id`: `$id` -> schema)."""

    def __init__(self, schema: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> None:
        self.schema = schema
        self.by_id = by_id

    def _resolve(self, ref: str, base: dict[str, Any]) -> dict[str, Any] | None:
        where, _, fragment = ref.partition("#")
        target: Any = self.by_id.get(where) if where else base
        if target is None:
            for sid, schema in self.by_id.items():  # a relative ref: by its last segment
                if sid.rsplit("/", 1)[-1] == where.rsplit("/", 1)[-1]:
                    target = schema
        for part in (p for p in fragment.split("/") if p):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        return target if isinstance(target, dict) else None

    def errors(self, instance: Any) -> Iterator[SchemaError]:
        """Every error of `instance`, in the order the schema's keywords find them."""
        return self._walk(self.schema, instance, (), self.schema, 0)

    def _walk(
        self,
        schema: Any,
        value: Any,
        path: tuple[str | int, ...],
        root: dict[str, Any],
        depth: int,
    ) -> Iterator[SchemaError]:
        if not isinstance(schema, dict) or depth > 64:
            if schema is False:
                yield SchemaError("other", False, value, schema, path, "no value is allowed")
            return

        def error(keyword: str, message: str) -> SchemaError:
            return SchemaError(keyword, schema.get(keyword), value, schema, path, message)

        if "$ref" in schema:
            target = self._resolve(schema["$ref"], root)
            if target is not None:
                base = target if "$id" in target else root
                yield from self._walk(target, value, path, base, depth + 1)
        kinds = schema.get("type")
        if kinds is not None:
            allowed = kinds if isinstance(kinds, list) else [kinds]
            if not any(_is(k, value) for k in allowed):
                yield error("type", f"{value!r} is not of type {allowed}")
        if "const" in schema and not _equal(value, schema["const"]):
            yield error("const", f"{schema['const']!r} was expected")
        if "enum" in schema and not any(_equal(value, v) for v in schema["enum"]):
            yield error("enum", f"{value!r} is not one of {schema['enum']!r}")
        if "anyOf" in schema:
            yield from self._any_of(schema, value, path, root, depth)
        if _is("number", value):
            yield from self._number(schema, value, error)
        if isinstance(value, str):
            if "minLength" in schema and len(value) < schema["minLength"]:
                yield error("minLength", f"{value!r} is too short")
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                yield error("maxLength", f"{value!r} is too long")
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                yield error("minItems", "the array is too short")
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                yield error("maxItems", "the array is too long")
            items = schema.get("items")
            if items is not None:
                for index, item in enumerate(value):
                    yield from self._walk(items, item, (*path, index), root, depth + 1)
        if isinstance(value, dict):
            yield from self._object(schema, value, path, root, depth, error)

    def _number(self, schema: dict[str, Any], value: Any, error: Any) -> Iterator[SchemaError]:
        if "minimum" in schema and value < schema["minimum"]:
            yield error("minimum", f"{value!r} is less than the minimum")
        if "maximum" in schema and value > schema["maximum"]:
            yield error("maximum", f"{value!r} is greater than the maximum")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            yield error("exclusiveMinimum", f"{value!r} is not above the minimum")
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            yield error("exclusiveMaximum", f"{value!r} is not below the maximum")
        step = schema.get("multipleOf")
        if step and (value / step) != int(value / step):
            yield error("multipleOf", f"{value!r} is not a multiple of {step!r}")

    def _object(
        self,
        schema: dict[str, Any],
        value: dict[str, Any],
        path: tuple[str | int, ...],
        root: dict[str, Any],
        depth: int,
        error: Any,
    ) -> Iterator[SchemaError]:
        for key in schema.get("required", ()):
            if key not in value:
                yield error("required", f"{key!r} is a required property")
        properties = schema.get("properties", {})
        for key, member in value.items():
            if key in properties:
                yield from self._walk(properties[key], member, (*path, key), root, depth + 1)
        extra = schema.get("additionalProperties")
        if extra is False and any(key not in properties for key in value):
            yield error("additionalProperties", "additional properties are not allowed")
        elif isinstance(extra, dict):
            for key, member in value.items():
                if key not in properties:
                    yield from self._walk(extra, member, (*path, key), root, depth + 1)

    def _any_of(
        self,
        schema: dict[str, Any],
        value: Any,
        path: tuple[str | int, ...],
        root: dict[str, Any],
        depth: int,
    ) -> Iterator[SchemaError]:
        branches = [b for b in schema["anyOf"] if isinstance(b, dict)]
        found = [list(self._walk(b, value, path, root, depth + 1)) for b in branches]
        if any(not errors for errors in found):
            return
        own_type = [
            errors
            for errors in found
            if not any(e.validator == "type" and e.absolute_path == path for e in errors)
        ]
        if own_type:
            yield from own_type[0]
            return
        allowed: list[str] = []
        for branch in branches:
            kinds = branch.get("type", [])
            for kind in kinds if isinstance(kinds, list) else [kinds]:
                if kind not in allowed:
                    allowed.append(kind)
        if allowed:
            yield SchemaError("type", allowed, value, schema, path, "no branch's type")
        else:
            yield SchemaError("other", None, value, schema, path, "matches none of the formats")
