"""Gradescope's autograder `results.json`.

Follows "Autograder Specifications" (gradescope-autograders.readthedocs.io/en/latest/specs/,
"Output format", "Test case status", "Output String Formatting", "Controlling Test Case
Visibility", "Controlling standard output visibility"; and "Leaderboards",
.../en/latest/leaderboards/): a top-level
`score` with the submission-wide `output` (Markdown: the score and the common-mistake
explanations) and one entry in `tests` per check, numbered in check order, with its
points, an explicit `status` ("passed" / "failed": a skipped or errored check earned
nothing, and a check worth 0 points would otherwise show as passed), and its feedback
as plain text (message with location, expected / found, what to do), its name as
plain text too (`name_format`).

What the student sees when comes from the rubric the result was graded with
(`[gradescope]` and each check's `visibility`, `grader.engine.rubric.GRADESCOPE`): the
top-level `visibility` is the rubric's default and each test's is its check's own;
`stdout_visibility` is the rubric's (by default hidden: run_autograder's stdout is the
grader's diagnostics). With `[gradescope] leaderboard = true`, `leaderboard` has one
entry per column the lab declares (`Lab.leaderboard`): the number its check recorded,
when that check passed (a value the server's own record confirmed), with the lab's sort
order; a student with no such number gets no entry of that column. Gradescope's note
applies: when some tests are hidden, students do not see their total score.

Not in the output, on purpose:
- `execution_time`: optional in the spec; grading time is not a property of the result,
  and leaving it out keeps equal input giving equal bytes.
- a top-level `max_score`: the spec has none (the assignment's total is set in
  Gradescope); it is kept in `extra_data` with the lab, versions and counts.

A submission that could not be graded gets score 0 and no tests, and its `output` opens
with a heading saying it was not graded and that the 0 is no grade of the work, then
the reasons, so it never passes for a low score. When the grader itself failed (a check crashed:
`extra_data.grader_error` true, the check's `extra_data.status` "error"), `output`
opens with a warning that the score is not final and the failure is the grader's (and
`grader check` exits 3, which `run_autograder` prints for the instructor).
"""

from __future__ import annotations

import json
import math
from typing import Any

from grader.engine.result import CheckResult, Result
from grader.engine.rubric import GRADESCOPE
from grader.render import RenderOptions
from grader.render.common import (
    evidence_lines,
    files_in_line,
    grader_error_line,
    labelled,
    where,
)
from grader.render.markdown import counts, explanations, inline, score_line

NAME_FORMAT = OUTPUT_FORMAT = "text"  # check ids, titles and messages hold no markup


def _setting(options: RenderOptions, name: str) -> str | bool:
    """A `[gradescope]` setting of the rubric, or its default without one."""
    if options.rubric is None:
        return GRADESCOPE[name][1]
    return options.rubric.gradescope_setting(name)


def _visibility(options: RenderOptions, check_id: str) -> str:
    if options.rubric is None:
        return str(GRADESCOPE["visibility"][1])
    return str(options.rubric.visibility(check_id))


def feedback(check: CheckResult, options: RenderOptions) -> str:
    """A check's feedback as plain text: where and what, expected / found, what to do."""
    t = options.catalog
    lines: list[str] = []
    place = where(check.location)
    if check.message:
        lines.append(labelled(t, place, check.message) if place else check.message)
    elif place:
        lines.append(place)
    lines.extend(evidence_lines(check, t))
    return "\n".join(lines)


def _tags(check: CheckResult) -> list[str]:
    step = check.id.split(".", 1)[0]
    return list(dict.fromkeys(t for t in (check.artifact, step) if t))


def _test(number: int, check: CheckResult, options: RenderOptions) -> dict[str, Any]:
    return {
        "name": labelled(options.catalog, check.id, check.title),
        "name_format": NAME_FORMAT,
        "number": str(number),
        "score": check.points,
        "max_score": check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": feedback(check, options),
        "output_format": OUTPUT_FORMAT,
        "tags": _tags(check),
        "visibility": _visibility(options, check.id),
        "extra_data": {"id": check.id, "status": check.status, "message_id": check.message_id},
    }


def _output(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    if not result.gradable:  # said first, so the 0 is never taken for a grade of the work
        title = t.raw("render.not_gradable") or "Not graded"
        zero = t.raw("render.not_gradable_zero") or ""
        reasons = [f"**{inline(title)}:** {inline(e)}" for e in result.format_errors]
        return "\n\n".join([f"## ⚠️ {inline(title)}", inline(zero), *reasons])
    summary = t.text("render.summary", counts(result)) or ""
    parts = [f"**{score_line(result, options)}** — {inline(summary)}"]
    found = files_in_line(result, t)
    if found:
        parts.append(inline(found))
    warning = grader_error_line(result, t)
    if warning:
        parts.insert(0, f"**⚠️ {inline(warning)}**")
    mistakes = explanations(result)
    if mistakes:
        parts.append(f"### {inline(t.raw('render.mistakes') or 'Common mistakes found')}")
        parts.extend(inline(text) for text in mistakes)
    return "\n\n".join(parts)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def leaderboard(result: Result, options: RenderOptions) -> list[dict[str, Any]]:
    """The student's leaderboard entries: per column the lab declares, the number its
    check recorded when that check passed; nothing for a column without one."""
    if options.lab is None or not result.gradable:
        return []
    checks = {c.id: c for c in result.checks}
    entries = []
    for column in options.lab.leaderboard:
        check = checks.get(column.check)
        value = check.data.get(column.key) if check is not None else None
        if check is None or check.status != "passed" or not _number(value):
            continue
        name = options.catalog.raw(column.name) or column.name
        entries.append({"name": name, "value": value, "order": column.order})
    return entries


def results(result: Result, options: RenderOptions) -> dict[str, Any]:
    """The results.json document as a dict."""
    document: dict[str, Any] = {
        "score": result.score if result.gradable else 0,
        "output": _output(result, options),
        "output_format": "md",
        "visibility": _setting(options, "visibility"),
        "stdout_visibility": _setting(options, "stdout_visibility"),
        "extra_data": {
            "lab": result.lab,
            "gradable": result.gradable,
            "grader_error": result.grader_error,
            "max_score": result.max_score,
            "summary": counts(result),
            "grader_version": result.grader_version,
            "rubric_version": result.rubric_version,
            "schema_version": result.schema_version,
            "language": result.language,
            "format_errors": result.format_errors,
        },
        "tests": [_test(i, c, options) for i, c in enumerate(result.checks, start=1)],
    }
    if _setting(options, "leaderboard"):
        entries = leaderboard(result, options)
        if entries:
            document["leaderboard"] = entries
    return document


def render(result: Result, options: RenderOptions) -> str:
    return json.dumps(results(result, options), ensure_ascii=False, indent=2) + "\n"
