"""Pieces of feedback every plain-text renderer writes the same way."""

from __future__ import annotations

import string
from typing import TYPE_CHECKING

from grader.engine.result import CheckResult, Result, ResultLocation
from grader.words.i18n import Catalog, format_value

if TYPE_CHECKING:
    from collections.abc import Callable

    from grader.words.problems import Param


def step_of(check_id: str) -> str:
    """The lab step a check belongs to: its id up to the first dot (`cache.hit_faster`,
    `cache.in_log` and `cache.schema` are all step `cache`)."""
    return check_id.split(".", 1)[0]


def where(loc: ResultLocation | None) -> str:
    """`file:line (pointer)`: the place a student opens in an editor."""
    if loc is None:
        return ""
    out = loc.file
    if loc.line is not None:
        out += f":{loc.line}"
    if loc.pointer:
        out += f" ({loc.pointer})"
    return out


def labelled(catalog: Catalog, label: str, value: str) -> str:
    """`label: value` with the colon of the reader's language (`render.labelled`): a
    Chinese line takes the full-width `：`. (Not `catalog.text`: `value` may be a
    message of several lines, already made visible.)"""
    template = catalog.raw("render.labelled") or "{label}: {value}"
    return string.Formatter().vformat(template, (), {"label": label, "value": value})


def expected_found(
    check: CheckResult,
    catalog: Catalog,
    between: str = "   ",
    shown: Callable[[Param], str] = format_value,
) -> str | None:
    """`expected: X   found: Y` in the catalog's language, each part only when the
    check gives it (a check that says only what it found shows no `expected: null`)."""
    parts = [
        labelled(catalog, catalog.raw(f"render.{key}") or key, shown(value))
        for key, value in (("expected", check.expected), ("found", check.found))
        if value is not None
    ]
    return between.join(parts) or None


def evidence_lines(check: CheckResult, catalog: Catalog) -> list[str]:
    """Expected / found and what to do, as lines (empty for a check with neither)."""
    lines = [line for line in [expected_found(check, catalog)] if line]
    if check.hint:
        lines.append(labelled(catalog, catalog.raw("render.hint") or "what to do", check.hint))
    return lines


def crashed(result: Result) -> list[CheckResult]:
    """The checks that crashed (status `error`): the grader's failures, not the student's."""
    return [c for c in result.checks if c.status == "error"]


def grader_error_line(result: Result, catalog: Catalog) -> str | None:
    """The warning that the grader itself failed and the score is not final, or None."""
    if not result.grader_error:
        return None
    ids = ", ".join(c.id for c in crashed(result))
    if not ids:  # not gradable because the grader failed: format_errors say how
        return None
    return catalog.text("warning.grader_error", {"checks": ids})


def files_in_line(result: Result, catalog: Catalog) -> str | None:
    """Where the graded files were found, when not in the folder given (grader.reading.locate)."""
    if not result.files_in:
        return None
    return catalog.text("render.files_in", {"inner": result.files_in})


EVIDENCE_ORDER = ("contradicted", "unconfirmed", "corroborated", "consistent")
"""The order the evidence line names its kinds: what needs the student first."""


def evidence_line(result: Result, catalog: Catalog) -> str | None:
    """One sentence of what backs the files of measurements (`artifacts[].evidence`),
    a clause a kind, the files by artifact name (as the marks line names them); None
    when no file says."""
    kinds: dict[str, list[str]] = {}
    for artifact in result.artifacts:
        if artifact.evidence is not None:
            kinds.setdefault(artifact.evidence, []).append(artifact.name)
    if not kinds:
        return None
    clauses = [
        catalog.text(f"render.evidence_{kind}", {"files": ", ".join(kinds[kind])}) or ""
        for kind in EVIDENCE_ORDER
        if kind in kinds
    ]
    sep = catalog.raw("render.evidence_sep") or "; "
    return catalog.text("render.evidence", {"groups": sep.join(clauses)})
