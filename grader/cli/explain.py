"""`grader explain CHECK_ID`: one check explained to a student, in their language.

What a check proves, why it matters to what the lab builds, and how to redo the step
are the lab's words, three texts per check id in its catalog (`explain."<id>".proves`,
`.why`, `.redo`); a lab without them still gets the check's title and hint. Around them
the engine says what it knows itself: the check's points in the rubric, the files it
reads, the checks it waits for, the rubric's parameters it judges by, and, for a
`<artifact>.schema` check, the file's format drawn from the lab's JSON Schema (each key
with its type, its range and whether it may be left out), so the explanation can't
drift from what the grader really checks.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from grader.engine.params import points_of
from grader.words.problems import Term
from grader.words.wrap import wrap

if TYPE_CHECKING:
    from grader.engine.api import Check
    from grader.engine.lab import Lab
    from grader.engine.params import Settings
    from grader.reading.loading import ArtifactSpec
    from grader.reading.schema import SchemaSet
    from grader.words.i18n import Catalog

PARTS = ("proves", "why", "redo")
"""The lab's three texts per check id, in the order they are shown."""
MAX_DEPTH = 3
"""Nesting levels of a format shown; deeper keys are the lab's prose to explain."""


class UnknownCheck(Exception):
    """The id is no check of the lab; `close` are the ids it may have meant."""

    def __init__(self, check_id: str, lab: str, close: Sequence[str]) -> None:
        super().__init__(check_id)
        self.check_id, self.lab, self.close = check_id, lab, list(close)

    def text(self, catalog: Catalog) -> str:
        suggestion: str | None = ""
        if self.close:
            suggestion = catalog.text("rubric.did_you_mean", {"name": ", ".join(self.close)})
        params = {"id": self.check_id, "lab": self.lab, "suggestion": suggestion}
        return str(catalog.text("cli.explain.unknown", params) or self.check_id)


def _close(check_id: str, ids: Sequence[str]) -> list[str]:
    """The ids `check_id` may have meant: a near spelling, or the checks of the step it
    names (`cache` -> every `cache.*`)."""
    near = difflib.get_close_matches(check_id, ids, n=3, cutoff=0.6)
    if near:
        return near
    return [i for i in ids if i.split(".")[0] == check_id.split(".")[0]][:3]


def explain(
    lab: Lab, check_id: str, catalog: Catalog, settings: Mapping[str, Settings], width: int
) -> str:
    """The explanation of `check_id`, wrapped to `width` columns; raises `UnknownCheck`."""
    ids = lab.all_check_ids()
    if check_id not in ids:
        raise UnknownCheck(check_id, lab.name, _close(check_id, ids))
    artifacts = {f"{a.name}.schema": a for a in lab.artifacts}
    spec = artifacts.get(check_id)
    chk = next((c for c in lab.checks if c.id == check_id), None)
    out = wrap(f"{check_id} — {_title(lab, check_id, catalog)}", width, "  ", first="")
    out += wrap(_facts(lab, check_id, chk, catalog, settings[check_id]), width, "  ")
    for part in PARTS:
        text = catalog.text(f"explain.{check_id}.{part}") or _fallback(check_id, part, catalog)
        if text:
            out += ["", str(catalog.text(f"cli.explain.{part}"))]
            out += wrap(text, width, "  ")
    backs = [a.filename for a in lab.artifacts if check_id in (a.corroborated_by or ())]
    if backs:  # a corroborating check: what its agreement establishes, and what it cannot
        out += ["", str(catalog.text("cli.explain.limits"))]
        out += wrap(
            str(catalog.text("cli.explain.corroboration", {"files": ", ".join(backs)})), width, "  "
        )
    params = {k: v for k, v in settings[check_id].items() if k not in ("points", "enabled")}
    if params:
        out += ["", str(catalog.text("cli.explain.params"))]
        out += [f"  {name} = {_value(value)}" for name, value in params.items()]
    if spec is not None:
        out += _format(spec, catalog, width)
    return "\n".join(out) + "\n"


def _title(lab: Lab, check_id: str, catalog: Catalog) -> str:
    files = {f"{a.name}.schema": a.filename for a in lab.artifacts}
    if check_id in files:
        return str(catalog.text("engine.schema_check.title", {"file": files[check_id]}))
    return str(catalog.text(f"{check_id}.title") or check_id)


def _fallback(check_id: str, part: str, catalog: Catalog) -> str | None:
    """A lab that has not written the three texts: its title proves, its hint redoes."""
    if part == "proves":
        return catalog.text(f"{check_id}.title")
    if part == "redo":
        return catalog.text(f"{check_id}.hint")
    return None


def _facts(lab: Lab, check_id: str, chk: Check | None, catalog: Catalog, entry: Settings) -> str:
    """One line of what the engine knows: points, the files read, the checks waited for."""
    files = {a.name: a.filename for a in lab.artifacts}
    if entry.get("enabled", True):
        points = points_of(entry)
        count = int(points) if float(points).is_integer() else 2
        facts = [str(catalog.text("cli.explain.points", {"points": points, "count": count}))]
    else:
        facts = [str(catalog.text("cli.explain.disabled"))]
    if chk is None:  # an `<artifact>.schema` check reads its own file
        reads = [files[check_id.removesuffix(".schema")]]
    else:
        reads = [files[name] for name in (*chk.reads, *chk.uses)]
    if reads:
        facts.append(str(catalog.text("cli.explain.reads", {"files": _listed(reads, catalog)})))
    waits = [c for c, _ in chk.prerequisites] if chk is not None else []
    if waits:
        facts.append(str(catalog.text("cli.explain.after", {"checks": _listed(waits, catalog)})))
    return " · ".join(facts)


def _value(value: object) -> str:
    from grader.words.i18n import format_value

    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return format_value(value)


# ------------------------------------------------------------------ a file's format


def _format(spec: ArtifactSpec, catalog: Catalog, width: int) -> list[str]:
    """The format of the file of an `<artifact>.schema` check, from its JSON Schema (none
    for a file its lab parses without one: its texts describe it)."""
    from grader.reading.loading import format_of

    described = format_of(spec.parser)
    if described is None:
        return []
    ref, each = described
    out = ["", str(catalog.text("cli.explain.format", {"file": spec.filename}))]
    out += wrap(str(catalog.text(f"cli.explain.each_{each}")), width, "  ")
    top = _resolved(ref.schemas.load(ref.name), ref.schemas)
    return out + _lines(None, top, True, ref.schemas, catalog, 1)


def _resolved(schema: Any, schemas: SchemaSet) -> Mapping[str, Any]:
    """`schema`, or the schema of the set its `$ref` names ({} for anything else)."""
    if not isinstance(schema, Mapping):
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return schemas.by_id().get(ref, {})
    return schema


def _lines(
    name: str | None, schema: Mapping[str, Any], required: bool, schemas: SchemaSet,
    catalog: Catalog, depth: int,
) -> list[str]:  # fmt: skip
    """One line for a value (`name: type, range`), then its keys indented below it: an
    object's, or those of the objects an array holds."""
    words = _kind(schema, catalog)
    if not required:
        words.append(str(catalog.text("cli.explain.optional")))
    label = f"{name}: " if name is not None else ""
    out = [f"{'  ' * depth}{label}{_listed(words, catalog)}"]
    inner = _resolved(schema.get("items"), schemas) if "array" in _types(schema) else schema
    if depth > MAX_DEPTH:
        return out
    keys = set(inner.get("required") or ())
    for key, sub in (inner.get("properties") or {}).items():
        out += _lines(key, _resolved(sub, schemas), key in keys, schemas, catalog, depth + 1)
    if inner.get("properties") and inner.get("additionalProperties") is False:
        out.append(f"{'  ' * (depth + 1)}{catalog.text('cli.explain.closed')}")
    return out


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def _kind(schema: Mapping[str, Any], catalog: Catalog) -> list[str]:
    """The words for one value: its type (`term.*`), then its range and its items."""
    words = []
    types = _types(schema)
    if "const" in schema:
        words.append(f"= {_literal(schema['const'])}")
    elif "enum" in schema:
        shown = ", ".join(_literal(v) for v in schema["enum"])
        words.append(str(catalog.text("cli.explain.enum", {"values": shown})))
    elif types:
        words.append(str(catalog.text("cli.explain.type", {"type": Term("|".join(types))})))
    for key, sign in (
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
    ):
        if key in schema:
            words.append(f"{sign} {_value(schema[key])}")
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None or high is not None:
        key = "items_range" if low is not None and high is not None else "items_min"
        key = key if low is not None else "items_max"
        count = high if low is None or key == "items_range" else low
        params = {"min": low, "max": high, "count": count}
        words.append(str(catalog.text(f"cli.explain.{key}", params)))
    items = schema.get("items")
    if "array" in types and isinstance(items, Mapping) and not items.get("properties"):
        each = _listed(_kind(items, catalog), catalog)
        if each:
            words.append(str(catalog.text("cli.explain.each", {"item": each})))
    elif "array" in types and isinstance(items, Mapping):
        words.append(str(catalog.text("cli.explain.each_object")))
    elif schema.get("properties"):
        words[-1] = str(catalog.text("cli.explain.opens", {"kind": words[-1]}))
    return words


def _listed(words: Sequence[str], catalog: Catalog) -> str:
    """`words` as one list in the language's punctuation (`a, b`; `a、b`): a template
    rather than a bare separator, so no catalog text starts with a comma."""
    listed = ""
    for word in words:
        params = {"first": listed, "then": word}
        listed = str(catalog.text("cli.explain.list", params)) if listed else word
    return listed


def _literal(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
