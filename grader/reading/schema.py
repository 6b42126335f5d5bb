"""JSON Schema validation against a lab's own schema files, with errors a student can read.

A lab ships its formats as JSON Schemas (Draft 2020-12) in a folder of
`<name>.schema.json` files and declares that folder as a `SchemaSet`; the engine keeps
one registry per set, every schema registered under its `$id` so the lab's schemas can
`$ref` each other. The engine's own result schema is one more set (`RESULT_SCHEMAS`).
A validator is built once per schema per process. Each validation error becomes a
`Problem` whose id names the kind of rule that failed (`schema.type`,
`schema.required`, ...) and whose parameters are the facts of that rule, so the message
catalogs can say it in words ("`runs[2].tokens` should be a whole number, found 64.5").
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.reading.schema_fast import Unsupported, compile_schema
from grader.system.sandbox import prepared
from grader.words.package_data import package_dir
from grader.words.problems import Location, Problem, Term, json_pointer, readable_path

if TYPE_CHECKING:
    from typing import Any

    from grader.reading.schema_declared import Shape
    from grader.reading.schema_fast import Test


def json_type(value: object) -> str:
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


def _import_jsonschema() -> tuple[Any, Any, Any, Any, Any] | None:
    """jsonschema's validator, `best_match` and its `relevance`, referencing's registry:
    imported once, outside the confinement (see `SchemaSet.validator`); None where they
    are not installed (the single-file grader.pyz on a bare Python): a rejected value is
    then explained by `grader.reading.schema_explain`, with the standard library alone."""
    try:
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import best_match, relevance
        from referencing import Registry, Resource
    except ImportError:
        return None

    return Draft202012Validator, Registry, Resource, best_match, relevance


MAX_PROBLEMS = 20
"""Errors reported per validated value; a file full of errors is explained by its first
ones, and listing 100,000 of them would cost seconds and megabytes of result."""


class SchemaSet:
    """The JSON Schemas in one folder (`<name>.schema.json`), as one registry.

    Nothing is read until a schema is used: a lab declares its set when it is imported,
    and `grader check` reads only the schemas of the files it validates.
    """

    def __init__(
        self, folder: str | None = None, *, package: str | None = None, subfolder: str = ""
    ) -> None:
        if (folder is None) == (package is None):
            raise ValueError("a SchemaSet is a folder or a package, not both")
        self._folder = folder
        self._package = package
        self._subfolder = subfolder
        self._shapes: dict[str, Shape] = {}
        self._schemas: dict[str, dict[str, Any]] = {}
        self._fast: dict[str, Test] = {}
        self._validators: dict[str, Any] = {}
        self._by_id: dict[str, dict[str, Any]] | None = None

    @classmethod
    def of_package(cls, package: str, subfolder: str = "") -> SchemaSet:
        """The schemas in an importable package (or a folder inside it), found without
        importing the package."""
        return cls(package=package, subfolder=subfolder)

    @property
    def package(self) -> str | None:
        """The importable package that holds the schemas (None: a plain folder)."""
        return self._package

    @property
    def folder(self) -> str:
        if self._folder is None:
            assert self._package is not None
            self._folder = os.path.join(package_dir(self._package), self._subfolder)
        return self._folder

    def __repr__(self) -> str:
        where = self._folder or f"{self._package}/{self._subfolder}".rstrip("/")
        return f"SchemaSet({where!r})"

    def __getitem__(self, name: str) -> SchemaRef:
        """A reference to schema `name`, for a parser to validate with; reads nothing."""
        return SchemaRef(self, name)

    def names(self) -> list[str]:
        """Every schema of the set (the file stem before `.schema.json`), sorted."""
        return sorted(
            f.name.removesuffix(".schema.json")
            for f in os.scandir(self.folder)
            if f.name.endswith(".schema.json")
        )

    def load(self, name: str) -> dict[str, Any]:
        """The parsed schema file `<name>.schema.json`."""
        if name not in self._schemas:
            path = os.path.join(self.folder, f"{name}.schema.json")
            with open(path, encoding="utf-8") as handle:
                self._schemas[name] = json.load(handle)
        return self._schemas[name]

    def by_id(self) -> dict[str, dict[str, Any]]:
        """Every schema of the set by its `$id`, for `$ref` between them."""
        if self._by_id is None:
            self._by_id = {self.load(n)["$id"]: self.load(n) for n in self.names()}
        return self._by_id

    def fast(self, name: str) -> Test:
        """The fast yes/no validator of schema `name` (`grader.reading.schema_fast`'s closures,
        compiled when first asked); for a schema the fast path refuses, one that sends
        every value to jsonschema."""
        if name not in self._fast:
            try:
                self._fast[name] = compile_schema(self.load(name), self.by_id())
            except Unsupported:
                self._fast[name] = lambda instance: False
        return self._fast[name]

    def declared(self, name: str) -> Shape:
        """What schema `name` declares of a value, as `grader.reading.schema_declared` reads it."""
        if name not in self._shapes:
            from grader.reading.schema_declared import declared

            self._shapes[name] = declared(self.load(name), self.by_id())
        return self._shapes[name]

    def pruned(self, name: str, instance: Any) -> Any:
        """A valid `instance` with only the members schema `name` declares: no check
        reads any other, and a file padded with them is not held as Python values
        (`grader.reading.schema_declared`, imported only for a file large enough to cut down)."""
        from grader.reading.schema_declared import pruned

        return pruned(instance, self.declared(name))

    def refusal(self, name: str) -> str | None:
        """Why the fast path refuses schema `name` (None: it compiles)."""
        try:
            compile_schema(self.load(name), self.by_id())
        except Unsupported as exc:
            return str(exc)
        return None

    def conforms(self, name: str, instance: Any) -> bool:
        """True when `instance` is certainly valid against schema `name`."""
        return self.fast(name)(instance)

    def validator(self, name: str) -> Any:
        """jsonschema's validator of schema `name`, with every schema of the set registered.

        Only a rejected value needs jsonschema, and grading is confined by then:
        `prepared` has the import done outside the confinement, under the import guard.
        """
        if name not in self._validators:
            imported = prepared(_import_jsonschema)
            if imported is None:
                from grader.reading.schema_explain import Explainer

                self._validators[name] = Explainer(self.load(name), self.by_id())
                return self._validators[name]
            Draft202012Validator, Registry, Resource, *_ = imported
            registry = Registry().with_resources(
                (sid, Resource.from_contents(schema)) for sid, schema in self.by_id().items()
            )
            self._validators[name] = Draft202012Validator(self.load(name), registry=registry)
        return self._validators[name]

    def validate(
        self, name: str, instance: Any, prefix: tuple[str | int, ...] = ()
    ) -> list[Problem]:
        """Every way `instance` breaks schema `name`, the most useful first (see `errors`);
        a valid value takes the fast path and imports nothing."""
        if self.conforms(name, instance):
            return []
        return [_problem(e, prefix) for e in self.errors(name, instance)]

    def errors(self, name: str, instance: Any) -> list[Any]:
        """jsonschema's errors for `instance` (at most `MAX_PROBLEMS`): first the one
        `jsonschema.exceptions.best_match` picks by its `relevance` (in place of the
        `anyOf` it explains, when it is deeper; among equally relevant ones, the first in
        the file, where a student starts reading), then the others in document order
        (where their values are in the file; array items by index, numerically)."""
        validator = self.validator(name)
        imported = prepared(_import_jsonschema)
        if imported is None:  # no jsonschema: the standard library's explanation
            errors = list(itertools.islice(validator.errors(instance), MAX_PROBLEMS))
            return sorted(errors, key=lambda e: _place(instance, e))
        best_match, relevance = imported[3:]
        errors = list(itertools.islice(validator.iter_errors(instance), MAX_PROBLEMS))
        if not errors:
            return []
        ordered = sorted(errors, key=lambda e: _place(instance, e))
        best = best_match(errors)
        top = best
        while top not in errors and top.parent is not None:  # a context error: its anyOf
            top = top.parent
        if top is best:  # jsonschema breaks ties by the path itself: the last one wins
            rank = _ranking(relevance)
            best = top = next(e for e in ordered if rank(e) == rank(best))
        return [best, *(e for e in ordered if e is not top)]


def _ranking(relevance: Any) -> Any:
    """jsonschema's `relevance` without the error's path, which it compares too (so, of
    equally relevant errors, it picks the one whose path sorts last)."""

    def rank(error: Any) -> tuple[Any, ...]:
        return tuple(p for p in relevance(error) if isinstance(p, (bool, int, float, str)))

    return rank


def _place(instance: Any, error: Any) -> tuple[int, ...]:
    """Where the value of an error is in the document: per step of its path, the key's
    position in its object or the item's index in its array."""
    place: list[int] = []
    node = instance
    for step in error.absolute_path:
        if isinstance(node, dict) and step in node:
            place.append(list(node).index(step))
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            place.append(step)
            node = node[step]
        else:
            place.append(1 << 62)
            break
    return tuple(place)


@dataclass(frozen=True)
class SchemaRef:
    """One schema of a `SchemaSet`, by name: what a parser validates against."""

    schemas: SchemaSet
    name: str

    def validate(self, instance: Any, prefix: tuple[str | int, ...] = ()) -> list[Problem]:
        return self.schemas.validate(self.name, instance, prefix)

    def all_conform(self, instances: list[Any]) -> bool:
        """True when every one of `instances` is certainly valid (the fast validator, as
        `validate` asks it first), tested in one call: a stream's chunks, a file's records."""
        return all(map(self.schemas.fast(self.name), instances))

    def declared(self) -> Shape:
        """What the schema declares of a value (`SchemaSet.declared`), for a parser that
        cuts down its values (`grader.reading.parsers.declared_only`)."""
        return self.schemas.declared(self.name)


RESULT_SCHEMAS = SchemaSet.of_package("grader", "schemas")
"""The engine's own schema: `result` (the JSON result every lab's grading gives)."""


def _short(value: object) -> str:
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
