"""What a JSON Schema declares of a value, and the value cut down to it.

A submission's file may hold any members its schema does not name (the schemas leave
objects open: servers add keys from version to version), and a check reads only what
the format declares. Yet an undeclared member costs memory like any other: a 4 MB JSON
document padded with one extra key is some 18 MB of Python values, and with every file
near its cap ten of them would stay alive until the checks run. So once a value has
been validated (whatever the validation says, it says of the whole value), a parser
keeps of it only what its schema declares (`pruned`), for a file large enough for it to
matter (`grader.reading.parsers.PRUNED_FROM`): what the grader holds is bound by the format,
not by what a file is padded with.

`declared` reads a schema into a *shape*, plain data that `pruned` follows:

- `None`: the value is kept whole;
- a dict of member names to shapes: an object keeps only those members, each cut down
  by its own shape (any other value is kept whole);
- a list of one shape: an array's items are each cut down by it (any other value is
  kept whole).

Correctness first: a schema names members with `properties` and `required`, and the
shape follows `$ref` (to a pointer in the same document or another schema of the set)
and `items`. A value whose schema uses any keyword not in `KNOWN` (`anyOf`,
`patternProperties`, `additionalProperties` other than false, `minProperties`,
`uniqueItems`, `prefixItems`, `const`, ...) is kept whole, as is one whose schema names
no member at all (`{"type": "object"}`: a free-form object) and one at a reference back
to a schema being read (a recursive format).
`tests/test_schema_declared.py` holds it, on the official JSON-Schema-Test-Suite, to
"a valid value cut down is still valid".
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Shape: TypeAlias = "dict[str, Shape] | list[Shape] | None"

KNOWN = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly", "$schema", "$id", "$defs", "type", "minimum", "maximum",
     "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "multipleOf",
     "minItems", "maxItems", "required", "properties", "items", "$ref"}
)  # fmt: skip
"""The keywords whose meaning `declared` follows (the others keep a value whole):
annotations, tests of one value that do not depend on its members, and the keywords
that name members or lead to subschemas (`properties`, `required`, `items`, `$ref`).
`additionalProperties: false` is known too (it admits no other member)."""

_SAYS_NOTHING = object()
"""The shape of a schema that names no member and leads nowhere: merged with another
subschema's shape it gives that shape; on its own, the value is kept whole."""
_WHOLE = object()
"""The shape of a schema that needs the value whole; it wins every merge."""


def pruned(value: Any, shape: Shape) -> Any:
    """`value` with only the members `shape` declares (see the module's docstring).

    A value that holds nothing undeclared is the very same object, not a copy (the
    common case: a student's file as the lab asks for it), and a container is copied
    only where something below it is cut.
    """
    if shape is None:
        return value
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return value
        if not value.keys() <= shape.keys():
            return {k: pruned(v, shape[k]) for k, v in value.items() if k in shape}
        cut = value
        for key, member in value.items():
            inner = shape[key]
            if inner is not None:
                kept = pruned(member, inner)
                if kept is not member:
                    cut = dict(value) if cut is value else cut
                    cut[key] = kept
        return cut
    if not isinstance(value, list):
        return value
    items, item = value, shape[0]
    for index, member in enumerate(value):
        kept = pruned(member, item)
        if kept is not member:
            items = list(value) if items is value else items
            items[index] = kept
    return items


_IS_DICT = frozenset((dict,)).__contains__
_IS_LIST = frozenset((list,)).__contains__


def pruned_all(values: list[Any], shape: Shape) -> list[Any]:
    """Each of `values` (as the JSON decoder makes them: plain dicts and lists) cut down
    by `shape`, as `pruned` cuts one; `values` itself when none holds an undeclared
    member (what a stream of a real server's chunks is).

    Whether anything is undeclared is asked of all the values at once, one place of the
    shape at a time (the root, each member, an array's items): the members found in all
    the objects there, each step a C loop over them all. Walking each value by itself
    took 86 M instructions of a near-cap stream's 4,088 chunks, cutting nothing."""
    places: list[tuple[list[Any], Shape]] = [(values, shape)]
    while places:
        found, place = places.pop()
        if isinstance(place, dict):
            objects = list(compress(found, map(_IS_DICT, map(type, found))))
            members = set(chain.from_iterable(objects))
            if not members <= place.keys():
                return [pruned(value, shape) for value in values]
            for name in members:
                if place[name] is not None:
                    places.append((list(map(dict.get, objects, repeat(name))), place[name]))
        elif place is not None:
            arrays = compress(found, map(_IS_LIST, map(type, found)))
            places.append((list(chain.from_iterable(arrays)), place[0]))
    return values


def declared(schema: Any, by_id: dict[str, Any]) -> Shape:
    """The shape of `schema`, a document of the set `by_id` (its schemas by `$id`)."""
    shape = _Reader(by_id).at(schema, "")
    return _final(shape)


def _final(shape: Any) -> Shape:
    """A shape as `pruned` reads it: the markers become None (kept whole)."""
    if shape is _SAYS_NOTHING or shape is _WHOLE:
        return None
    if isinstance(shape, dict):
        return {key: _final(member) for key, member in shape.items()}
    item = _final(shape[0])
    return None if item is None else [item]


def _merged(a: Any, b: Any) -> Any:
    """The shape of a value that two subschemas both describe: what either declares."""
    if a is _SAYS_NOTHING:
        return b
    if b is _SAYS_NOTHING:
        return a
    if a is _WHOLE or b is _WHOLE or type(a) is not type(b):
        return _WHOLE
    if isinstance(a, list):
        return [_merged(a[0], b[0])]
    both = dict(a)
    for key, member in b.items():
        both[key] = _merged(both[key], member) if key in both else member
    return both


class _Reader:
    """Reads the subschemas of one set, following `$ref`; a reference back to a schema
    being read keeps its value whole."""

    def __init__(self, by_id: dict[str, Any]) -> None:
        self.by_id = by_id
        self.reading: set[tuple[int, str]] = set()

    def at(self, root: Any, pointer: str) -> Any:
        from grader.reading.schema_fast import Unsupported, _walk

        key = (id(root), pointer)
        if key in self.reading:
            return _WHOLE
        try:
            schema = _walk(root, pointer)
        except Unsupported:
            return _WHOLE
        self.reading.add(key)
        try:
            return self.schema(schema, root, is_root=pointer == "")
        finally:
            self.reading.discard(key)

    def ref(self, ref: Any, root: Any) -> Any:
        if not isinstance(ref, str):
            return _WHOLE
        base, _, fragment = ref.partition("#")
        if base:
            if base not in self.by_id:
                return _WHOLE
            root = self.by_id[base]
        if fragment and not fragment.startswith("/"):
            return _WHOLE  # an anchor
        if "%" in fragment:
            from urllib.parse import unquote

            fragment = unquote(fragment)
        return self.at(root, fragment)

    def schema(self, schema: Any, root: Any, is_root: bool = False) -> Any:
        if not isinstance(schema, dict):
            return _WHOLE  # a boolean schema: true admits anything, false nothing
        if not is_root and ("$id" in schema or "$schema" in schema):
            return _WHOLE  # a schema of its own, whose references mean other things
        others = schema.get("additionalProperties", True)
        if others is not False and "additionalProperties" in schema:
            return _WHOLE
        if set(schema) - KNOWN - {"additionalProperties"}:
            return _WHOLE
        shape: Any = _SAYS_NOTHING
        if "$ref" in schema:
            shape = _merged(shape, self.ref(schema["$ref"], root))
        if "properties" in schema or "required" in schema:
            properties, required = schema.get("properties", {}), schema.get("required", [])
            if not isinstance(properties, dict) or not isinstance(required, list):
                return _WHOLE
            members = {key: self.schema(sub, root) for key, sub in properties.items()}
            for key in required:
                if not isinstance(key, str):
                    return _WHOLE
                members.setdefault(key, _SAYS_NOTHING)
            shape = _merged(shape, members)
        if "items" in schema:
            shape = _merged(shape, [self.schema(schema["items"], root)])
        return shape
