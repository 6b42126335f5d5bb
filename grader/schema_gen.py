"""Python source of the fast yes/no validators of a schema set: the closures of
`grader.schema_fast`, written out as plain functions.

A closure per keyword costs a call per keyword per value, most of validating a
submission's 138 JSON values; the same tests written as one function per subschema,
with `isinstance` and comparisons inline, cost a third of that. The source is
generated (`scripts/write_validators.py` writes a lab's module, e.g.
`schemas/validators.py`, never edited by hand) and knows nothing the closures don't:
a schema is first compiled by `schema_fast.compile_schema`, so it accepts exactly the
schemas, keywords and shapes the fast path accepts (`Unsupported` otherwise), and each
keyword's test is the closure's, word for word in meaning. `tests/test_schema_fast.py`
holds the generated functions to jsonschema's verdicts on the official test suite, as
it holds the closures.

The module records the CRC-32 of every schema file it was made from (`SOURCES`); a
`SchemaSet` uses it only when the files are still those (`grader.schema`), so an edited
schema is validated by the closures, slower but never wrong, until the module is
written again.
"""

from __future__ import annotations

import math
from typing import Any

from grader.schema_fast import _walk, compile_schema

_TYPE_TESTS = {
    "object": "isinstance(v, dict)",
    "array": "isinstance(v, list)",
    "string": "isinstance(v, str)",
    "boolean": "isinstance(v, bool)",
    "null": "v is None",
    "number": "(isinstance(v, (int, float)) and not isinstance(v, bool))",
    "integer": (
        "((isinstance(v, int) and not isinstance(v, bool))"
        " or (isinstance(v, float) and v.is_integer()))"
    ),
}
"""`schema_fast._TYPE_TESTS` as expressions of `v`."""
_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
_IS_NUMBER = _TYPE_TESTS["number"]


def _literal(value: Any) -> str:
    """A JSON value as a Python literal that evaluates to an equal value."""
    if isinstance(value, float) and not math.isfinite(value):
        from grader.schema_fast import Unsupported

        raise Unsupported("a non-finite number in enum or const")
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


class _Writer:
    """Writes one function per subschema of a set; `$ref`s share the target's."""

    def __init__(self, by_id: dict[str, Any]) -> None:
        self.by_id = by_id
        self.names: dict[tuple[int, str], str | None] = {}  # None: always true
        self.count = 0
        self.same: dict[str, str] = {}  # an inline subschema's lines -> its function
        self.functions: list[str] = []
        self.constants: list[str] = []

    def document(self, root: Any) -> str | None:
        compile_schema(root, self.by_id)  # refuses what the fast path refuses
        return self.at(root, "")

    def at(self, root: Any, pointer: str) -> str | None:
        key = (id(root), pointer)
        if key not in self.names:
            name = self.names[key] = self.new_name()  # a cycle calls it by this name
            body = self.body(_walk(root, pointer), root)
            if body is None and pointer:
                self.names[key] = None
            else:
                self.functions.append(self.function(name, body))
        return self.names[key]

    def ref(self, ref: str, root: Any) -> str | None:
        base, _, fragment = ref.partition("#")
        if base:
            root = self.by_id[base]
        if "%" in fragment:
            from urllib.parse import unquote

            fragment = unquote(fragment)
        return self.at(root, fragment)

    def sub(self, schema: Any, root: Any) -> str | None:
        """The function of an inline subschema (one per distinct test: the same test in
        many places is one function); None when it accepts everything."""
        body = self.body(schema, root)
        if body is None:
            return None
        text = "\n".join(body)
        if text not in self.same:
            self.same[text] = self.new_name()
            self.functions.append(self.function(self.same[text], body))
        return self.same[text]

    def new_name(self) -> str:
        self.count += 1
        return f"_v{self.count}"

    def constant(self, value: Any) -> str:
        name = f"_C{len(self.constants)}"
        self.constants.append(f"{name} = {value}")
        return name

    @staticmethod
    def function(name: str, body: list[str] | None) -> str:
        lines = [f"def {name}(v: Any) -> bool:", *(body or []), "    return True"]
        return "\n".join(lines)

    def body(self, schema: Any, root: Any) -> list[str] | None:
        """The lines of the test of `schema` (None: no test, it accepts everything);
        each line returns False on a value the keyword refuses."""
        if schema is True or schema == {}:
            return None
        if schema is False:
            return ["    return False"]
        lines: list[str] = []
        if "$ref" in schema:
            target = self.ref(schema["$ref"], root)
            if target is not None:
                lines.append(f"    if not {target}(v):\n        return False")
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            test = " or ".join(_TYPE_TESTS[k] for k in kinds)
            lines.append(f"    if not ({test}):\n        return False")
        if "enum" in schema:
            lines.append(f"    if not {self._enum(schema['enum'])}:\n        return False")
        if "const" in schema:
            value = schema["const"]
            if type(value) is str:  # json_equal of a string: the same type and text
                test = f"(type(v) is str and v == {value!r})"
            else:
                test = f"_equal(v, {self.constant(_literal(value))})"
            lines.append(f"    if not {test}:\n        return False")
        proven = schema.get("type") if isinstance(schema.get("type"), str) else None
        lines += self._numbers(schema)
        lines += self._strings(schema)
        lines += _guarded("isinstance(v, dict)", proven == "object", self._object(schema, root))
        lines += _guarded("isinstance(v, list)", proven == "array", self._array(schema, root))
        for keyword, joint in (("anyOf", " or "), ("allOf", " and ")):
            if keyword in schema:
                tests = [self.sub(s, root) for s in schema[keyword]]
                if keyword == "anyOf" and None in tests:
                    continue  # one alternative accepts everything
                calls = [f"{t}(v)" for t in tests if t is not None]
                if calls:
                    lines.append(f"    if not ({joint.join(calls)}):\n        return False")
        return lines or None

    def _enum(self, allowed: list[Any]) -> str:
        if allowed and all(type(a) is str for a in allowed):
            names = self.constant("frozenset(" + _literal(allowed) + ")")
            return f"(type(v) is str and v in {names})"
        values = self.constant(_literal(allowed))
        return f"any(_equal(v, a) for a in {values})"

    @staticmethod
    def _numbers(schema: dict[str, Any]) -> list[str]:
        bounds = [f"v {op} {schema[k]!r}" for k, op in _BOUNDS.items() if k in schema]
        if not bounds:
            return []
        return [f"    if {_IS_NUMBER} and not ({' and '.join(bounds)}):\n        return False"]

    @staticmethod
    def _strings(schema: dict[str, Any]) -> list[str]:
        tests = []
        if schema.get("minLength"):
            tests.append(f"len(v) < {int(schema['minLength'])}")
        if "maxLength" in schema:
            tests.append(f"len(v) > {int(schema['maxLength'])}")
        if not tests:
            return []
        return [f"    if isinstance(v, str) and ({' or '.join(tests)}):\n        return False"]

    def _object(self, schema: dict[str, Any], root: Any) -> list[str]:
        """The object keywords' lines, for a `v` known to be a dict."""
        required = schema.get("required", [])
        properties = schema.get("properties", {})
        lines = [f"    if {key!r} not in v:\n        return False" for key in required]
        for key, sub in properties.items():
            test = self.sub(sub, root)
            if test is None:
                continue
            present = "" if key in required else f"{key!r} in v and "  # required: known
            lines.append(f"    if {present}not {test}(v[{key!r}]):\n        return False")
        others = schema.get("additionalProperties", True)
        if others is not True:
            known = self.constant("frozenset(" + _literal(list(properties)) + ")")
            test = None if others is False else self.sub(others, root)
            if others is False:
                lines.append(
                    f"    for k in v:\n        if k not in {known}:\n            return False"
                )
            elif test is not None:
                lines.append(
                    f"    for k, x in v.items():\n"
                    f"        if k not in {known} and not {test}(x):\n"
                    "            return False"
                )
        return lines

    def _array(self, schema: dict[str, Any], root: Any) -> list[str]:
        """The array keywords' lines, for a `v` known to be a list."""
        items = self.sub(schema["items"], root) if "items" in schema else None
        low = int(schema.get("minItems", 0))
        tests = [f"len(v) < {low}"] if low else []
        if "maxItems" in schema:
            tests.append(f"len(v) > {int(schema['maxItems'])}")
        lines = [f"    if {' or '.join(tests)}:\n        return False"] if tests else []
        if items is not None:
            lines.append(f"    for x in v:\n        if not {items}(x):\n            return False")
        return lines


def _guarded(guard: str, proven: bool, lines: list[str]) -> list[str]:
    """`lines` (written for a `v` of one JSON type) under `if guard:`, unless the schema's
    `type` already proved it (a keyword of another type's values holds for any value
    not of that type, as JSON Schema says)."""
    if not lines or proven:
        return lines
    inner = ["\n".join("    " + line for line in chunk.split("\n")) for chunk in lines]
    return [f"    if {guard}:", *inner]


def validators_source(
    documents: dict[str, Any], by_id: dict[str, Any], header: str, sources: dict[str, int]
) -> str:
    """The module: `VALIDATORS`, the test of each named document (None for one the fast
    path refuses, which then always goes to jsonschema), `DECLARED`, what each declares
    of a value (`grader.schema_declared`: read once here, not at every start), and
    `SOURCES`, the CRC-32 of each schema file it was made from. `header` is its
    docstring."""
    import pprint

    from grader.schema_declared import declared
    from grader.schema_fast import Unsupported

    writer = _Writer(by_id)
    chosen: dict[str, str | None] = {}
    for name, document in documents.items():
        try:
            chosen[name] = writer.document(document) or "_true"
        except Unsupported:
            chosen[name] = None
    entries = "".join(f"    {name!r}: {fn},\n" for name, fn in chosen.items())
    checksums = "".join(f"    {name!r}: {crc!r},\n" for name, crc in sources.items())
    shapes = {name: declared(document, by_id) for name, document in documents.items()}
    parts = [
        f'"""{header}"""',
        "# fmt: off\n# ruff: noqa",
        "from __future__ import annotations\n\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from typing import Any\n\n"
        "from grader.schema_fast import json_equal as _equal",
        *writer.constants,
        "def _true(v: Any) -> bool:\n    return True",
        *writer.functions,
        f"VALIDATORS = {{\n{entries}}}",
        "DECLARED = " + pprint.pformat(shapes, width=88, sort_dicts=False),
        f"SOURCES = {{\n{checksums}}}",
    ]
    return "\n\n\n".join(parts) + "\n"
