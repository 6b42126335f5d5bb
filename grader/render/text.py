"""The human report, shaped like pytest's: one line per check, details for failures.

A ✓ / ✗ / – / ! mark, the points and the title per check; for a failure the message with
file:line, expected vs found and what to do; after the list, the plain explanation of
each common mistake the submission made, once; last, the score. Colour only when asked
(the CLI asks on a terminal without NO_COLOR).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from grader.i18n import format_value
from grader.render import RenderOptions
from grader.render.common import expected_found, grader_error_line, where
from grader.result import CheckResult, Result

MARKS = {"passed": "✓", "failed": "✗", "skipped": "–", "error": "!"}
COLORS = {"passed": "32", "failed": "31", "skipped": "33", "error": "35"}


def _paint(text: str, code: str, on: bool) -> str:
    return f"\033[{code}m{text}\033[0m" if on else text


def _points(value: float) -> str:
    return format_value(value)


def _check_lines(
    check: CheckResult, options: RenderOptions, width: int, extra_problems: int = 0
) -> list[str]:
    t = options.catalog
    mark = _paint(MARKS[check.status], COLORS[check.status], options.color)
    pts = f"{_points(check.points)}/{_points(check.max_points)}"
    lines = [f" {mark} {check.id:<{width}} {pts:>5}  {check.title}"]
    show = check.status != "passed" or (options.verbose and check.message)
    if not show:
        return lines
    pad = " " * 5
    place = where(check.location)
    if check.message:
        lines.append(f"{pad}{place + ': ' if place else ''}{check.message}")
    evidence = expected_found(check, t)
    if evidence:
        lines.append(pad + evidence)
    if check.hint:
        lines.append(f"{pad}→ {check.hint}")
    if extra_problems and not options.verbose:
        lines.append(f"{pad}{t.text('render.more', {'count': extra_problems})} (-v)")
    return lines


def render(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    if not result.gradable:
        title = t.raw("render.not_gradable") or "Not graded"
        return "".join(f"{title}: {e}\n" for e in result.format_errors)
    width = max((len(c.id) for c in result.checks), default=10)
    problems = {a.name: len(a.problems) for a in result.artifacts}
    out = [f"{result.lab} · {result.submission}", ""]
    for check in result.checks:
        extra = problems.get(check.artifact or "", 1) - 1 if check.id.endswith(".schema") else 0
        out.extend(_check_lines(check, options, width, max(extra, 0)))
    broken = [a for a in result.artifacts if a.status != "valid" and len(a.problems) > 1]
    if options.verbose:
        for artifact in broken:
            out.append("")
            out.append(f"{artifact.file}:")
            out.extend(f"   {where(p.location)}: {p.message}" for p in artifact.problems)
    explanations = list(dict.fromkeys(c.explanation for c in result.checks if c.explanation))
    if explanations:
        out += ["", _paint(t.raw("render.mistakes") or "Common mistakes found", "1", options.color)]
        for text in explanations:
            out += ["", *[f"  {line}" for line in _wrap(text, 88)]]
    summary = t.text("render.summary", dataclasses.asdict(result.summary)) or ""
    score = (
        f"{t.raw('render.score') or 'Score'}: {_points(result.score)}/{_points(result.max_score)}"
    )
    status = "passed" if result.score == result.max_score else "failed"
    out += ["", _paint(f"{score} — {summary}", COLORS[status], options.color)]
    warning = grader_error_line(result, t)
    if warning:
        out.append(_paint(f"{MARKS['error']} {warning}", COLORS["error"], options.color))
    return "\n".join(out) + "\n"


_TOKENS = re.compile(r"`[^`\n]{1,40}`|\s+|[\u2e80-\uffef]|[^\s`\u2e80-\uffef]+|`")
"""Code spans, spaces, one CJK character, or an unbroken run of anything else."""


def _cells(char: str) -> int:
    """Terminal columns of a character: CJK wide and fullwidth characters take two."""
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def _wrap(text: str, width: int) -> list[str]:
    """Wrap to `width` terminal columns: at spaces in English, between any two characters
    in CJK text (which has no spaces), never inside a short `code span`."""
    lines: list[str] = []
    line, used = "", 0
    for token in _TOKENS.findall(text):
        if token.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        size = sum(_cells(c) for c in token)
        if used + size > width and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + token, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]
