"""Pieces of feedback every plain-text renderer writes the same way."""

from __future__ import annotations

from grader.i18n import Catalog, format_value
from grader.result import CheckResult, ResultLocation


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


def expected_found(check: CheckResult, catalog: Catalog) -> str | None:
    """`expected: X   found: Y` in the catalog's language, when the check says either."""
    if check.expected is None and check.found is None:
        return None
    exp = catalog.raw("render.expected") or "expected"
    fnd = catalog.raw("render.found") or "found"
    return f"{exp}: {format_value(check.expected)}   {fnd}: {format_value(check.found)}"


def evidence_lines(check: CheckResult, catalog: Catalog) -> list[str]:
    """Expected / found and what to do, as lines (empty for a check with neither)."""
    lines = [line for line in [expected_found(check, catalog)] if line]
    if check.hint:
        lines.append(f"{catalog.raw('render.hint') or 'what to do'}: {check.hint}")
    return lines
