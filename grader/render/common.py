"""Pieces of feedback every plain-text renderer writes the same way."""

from __future__ import annotations

from grader.i18n import Catalog, format_value
from grader.result import CheckResult, Result, ResultLocation


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
    """Where the graded files were found, when not in the folder given (grader.locate)."""
    if not result.files_in:
        return None
    return catalog.text("render.files_in", {"inner": result.files_in})
