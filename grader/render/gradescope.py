"""Gradescope's autograder `results.json`.

Follows "Autograder Specifications" (gradescope-autograders.readthedocs.io/en/latest/specs/,
"Output format", "Test case status", "Output String Formatting"): a top-level `score`
with the submission-wide `output` (Markdown: the score and the common-mistake
explanations) and one entry in `tests` per check, numbered in check order, with its
points, an explicit `status` ("passed" / "failed": a skipped or errored check earned
nothing, and a check worth 0 points would otherwise show as passed), and its feedback
as plain text (message with location, expected / found, what to do).

Not in the output, on purpose:
- `execution_time`: optional in the spec; grading time is not a property of the result,
  and leaving it out keeps equal input giving equal bytes.
- a top-level `max_score`: the spec has none (the assignment's total is set in
  Gradescope); it is kept in `extra_data` with the lab, versions and counts.

A submission that could not be graded gets score 0, no tests, and the reasons in
`output`, so the student sees them. When the grader itself failed (a check crashed:
`extra_data.grader_error` true, the check's `extra_data.status` "error"), `output`
opens with a warning that the score is not final and the failure is the grader's (and
`grader check` exits 3, which `run_autograder` prints for the instructor).
"""

from __future__ import annotations

import json
from typing import Any

from grader.render import RenderOptions
from grader.render.common import evidence_lines, files_in_line, grader_error_line, where
from grader.render.markdown import counts, explanations, inline, score_line
from grader.result import CheckResult, Result

VISIBILITY = "visible"  # the feedback is meant for the student, right away
STDOUT_VISIBILITY = "hidden"  # run_autograder's stdout is the grader's diagnostics


def feedback(check: CheckResult, options: RenderOptions) -> str:
    """A check's feedback as plain text: where and what, expected / found, what to do."""
    t = options.catalog
    lines: list[str] = []
    place = where(check.location)
    if check.message:
        lines.append(f"{place}: {check.message}" if place else check.message)
    elif place:
        lines.append(place)
    lines.extend(evidence_lines(check, t))
    return "\n".join(lines)


def _tags(check: CheckResult) -> list[str]:
    step = check.id.split(".", 1)[0]
    return list(dict.fromkeys(t for t in (check.artifact, step) if t))


def _test(number: int, check: CheckResult, options: RenderOptions) -> dict[str, Any]:
    return {
        "name": f"{check.id}: {check.title}",
        "number": str(number),
        "score": check.points,
        "max_score": check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": feedback(check, options),
        "output_format": "text",
        "tags": _tags(check),
        "visibility": VISIBILITY,
        "extra_data": {"id": check.id, "status": check.status, "message_id": check.message_id},
    }


def _output(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    if not result.gradable:
        title = t.raw("render.not_gradable") or "Not graded"
        return "\n\n".join(f"**{inline(title)}:** {inline(e)}" for e in result.format_errors)
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


def results(result: Result, options: RenderOptions) -> dict[str, Any]:
    """The results.json document as a dict."""
    return {
        "score": result.score if result.gradable else 0,
        "output": _output(result, options),
        "output_format": "md",
        "visibility": VISIBILITY,
        "stdout_visibility": STDOUT_VISIBILITY,
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


def render(result: Result, options: RenderOptions) -> str:
    return json.dumps(results(result, options), ensure_ascii=False, indent=2) + "\n"
