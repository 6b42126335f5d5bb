"""PrairieLearn's external-grader `results.json`.

Follows PrairieLearn's "External Grading" guide, section "Grading results": `score` is a
fraction in [0, 1]; `gradable: false` marks a submission that could not be graded at
all (no points awarded or lost, no attempt used), with the reasons in `format_errors`;
`tests` is what the `<pl-external-grader-results>` element shows, one per check, with
`name` (the check id), `description` (its title), `points`, `max_points`, `message` (what
was found) and `output` (where, expected / found, what to do). `message` at the top is
the score line; `output` at the top, when there are any, the common-mistake
explanations. (PrairieLearn limits the file to 1 MB.)

When the grader itself failed (a check crashed), the result is `gradable: false` too,
with the warning and each crashed check in `format_errors`: PrairieLearn then neither
awards nor takes points and does not count the attempt, which is right when the score
would be the grader's bug rather than the student's work.
"""

from __future__ import annotations

import json
from typing import Any

from grader.engine.result import CheckResult, Result
from grader.render import RenderOptions
from grader.render.common import crashed, evidence_lines, grader_error_line, labelled, where
from grader.render.markdown import counts, explanations, score_line


def fraction(result: Result) -> float:
    """The score as PrairieLearn wants it: a fraction of the maximum, in [0, 1].

    A rubric whose checks are all worth 0 points (feedback only) has no maximum; the
    submission then scores 1 when every check passed and 0 otherwise.
    """
    if not result.gradable:
        return 0.0
    if result.max_score <= 0:
        return 1.0 if all(c.status == "passed" for c in result.checks) else 0.0
    return min(1.0, max(0.0, result.score / result.max_score))


def _details(check: CheckResult, options: RenderOptions) -> str:
    t = options.catalog
    lines: list[str] = []
    place = where(check.location)
    if place:
        lines.append(labelled(t, t.raw("render.at") or "at", place))
    lines.extend(evidence_lines(check, t))
    return "\n".join(lines)


def _test(check: CheckResult, options: RenderOptions) -> dict[str, Any]:
    return {
        "name": check.id,
        "description": check.title,
        "points": check.points,
        "max_points": check.max_points,
        "message": check.message or "",
        "output": _details(check, options),
    }


def results(result: Result, options: RenderOptions) -> dict[str, Any]:
    """The results.json document as a dict."""
    t = options.catalog
    warning = grader_error_line(result, t)
    if not result.gradable or warning:
        title = t.raw("render.not_gradable") or "Not graded"
        errors = list(result.format_errors)
        if warning:  # the grader failed: this attempt must not count against the student
            errors = [warning, *(f"{c.id}: {c.message or c.title}" for c in crashed(result))]
        return {
            "gradable": False,
            "score": 0.0,
            "message": "\n".join(f"{title}: {e}" for e in errors[:1] or [""]),
            "format_errors": errors,
            "tests": [],
        }
    summary = t.text("render.summary", counts(result)) or ""
    doc: dict[str, Any] = {
        "gradable": True,
        "score": fraction(result),
        "message": f"{score_line(result, options)} — {summary}",
    }
    mistakes = explanations(result)
    if mistakes:
        heading = t.raw("render.mistakes") or "Common mistakes found"
        doc["output"] = "\n\n".join([heading, *mistakes])
    doc["tests"] = [_test(c, options) for c in result.checks]
    return doc


def render(result: Result, options: RenderOptions) -> str:
    return json.dumps(results(result, options), ensure_ascii=False, indent=2) + "\n"
