"""A GitHub-flavoured Markdown report, for `$GITHUB_STEP_SUMMARY` or an e-mail.

A heading with the score, one table row per check (status emoji, id, points, title),
then "What to fix": every check that did not pass with its message, location,
expected / found and what to do; last, the explanation of each common mistake the
submission made, once.

Text reaches Markdown from two sources: the message catalogs, whose authors write
`code spans` on purpose, and the student's files, quoted inside messages and as
expected / found values, which may hold any character. So prose keeps its paired
backticks as code spans and has every other character that Markdown would act on
escaped (an unpaired backtick included); values are always shown as code spans whose
fence is longer than any backtick run inside them. In table cells `|` is escaped as
`\\|` (GFM, also inside code spans) and line breaks become spaces, since a line break
ends the row.

Every label comes from the message catalogs (`[render]` in grader/messages/<lang>.toml),
with English as the fallback.
"""

from __future__ import annotations

import re

from grader.engine.result import CheckResult, Result, ResultLocation, Value
from grader.render import RenderOptions
from grader.render.common import expected_found, files_in_line, grader_error_line, labelled
from grader.words.i18n import format_value

EMOJI = {"passed": "✅", "failed": "❌", "skipped": "⏭️", "error": "⚠️"}

_NEWLINES = re.compile(r"\r\n|\r|\n")
# A CommonMark code span: a run of n backticks, content, and a run of exactly n backticks.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
# Characters that start or end inline markup anywhere in a line (`_` is handled apart:
# inside a word it is inert in GFM, and escaping it there only clutters the source).
_SPECIAL = re.compile(r"([\\`*\[\]<>~&])")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# What makes a line a heading, quote, list item, thematic break or setext underline.
_LINE_START = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")


def label(options: RenderOptions, key: str) -> str:
    """The catalog's `render.<key>` in its language (English when it has none)."""
    return options.catalog.raw(f"render.{key}") or key


def one_line(text: str) -> str:
    return _NEWLINES.sub(" ", text)


def _escape_plain(text: str, table: bool) -> str:
    text = _SPECIAL.sub(r"\\\1", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    return text.replace("|", r"\|") if table else text


def inline(text: str, *, table: bool = False) -> str:
    """Prose as Markdown that shows exactly `text`, its paired backticks kept as code."""
    text = one_line(text).strip()
    out: list[str] = []
    end = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_escape_plain(text[end : match.start()], table))
        span = match.group(0)
        out.append(span.replace("|", r"\|") if table else span)
        end = match.end()
    out.append(_escape_plain(text[end:], table))
    escaped = "".join(out)
    # Only what starts the text can start a block (a heading, a list item...).
    starts = _LINE_START.match(escaped)
    if starts:
        cut = starts.end() if starts.group(0)[0].isdigit() else 0  # "1." escapes the "."
        escaped = f"{escaped[:cut]}\\{escaped[cut:]}"
    return escaped


def code(text: str, *, table: bool = False) -> str:
    """`text` as one code span, whatever backticks it holds."""
    text = one_line(text)
    if text == "":
        return "` `"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = (
        text.startswith("`")
        or text.endswith("`")
        or (text.startswith(" ") and text.endswith(" ") and text.strip() != "")
    )
    body = f" {text} " if pad else text
    span = f"{fence}{body}{fence}"
    return span.replace("|", r"\|") if table else span


def points(value: float) -> str:
    return format_value(value)


def location(loc: ResultLocation) -> str:
    """`file:line:column` and the JSON pointer, as code spans."""
    where = loc.file
    if loc.line is not None:
        where += f":{loc.line}"
        if loc.column is not None:
            where += f":{loc.column}"
    out = code(where)
    if loc.pointer:
        out += f" ({code(loc.pointer)})"
    return out


def _value(value: Value) -> str:
    return code(format_value(value))


def _table(result: Result, options: RenderOptions) -> list[str]:
    t = options.catalog
    points_label = (t.raw("render.points") or "points").capitalize()
    head = (
        f"| | {label(options, 'check_column')} | {points_label} "
        f"| {label(options, 'title_column')} |"
    )
    rows = [head, "| :-: | --- | --: | --- |"]
    for check in result.checks:
        rows.append(
            f"| {EMOJI[check.status]} | {code(check.id, table=True)} "
            f"| {points(check.points)}/{points(check.max_points)} "
            f"| {inline(check.title, table=True)} |"
        )
    return rows


def _finding(check: CheckResult, options: RenderOptions) -> list[str]:
    t = options.catalog
    heading = (
        f"### {EMOJI[check.status]} {code(check.id)} — {inline(check.title)} "
        f"({points(check.points)}/{points(check.max_points)})"
    )
    out = [heading, ""]
    if check.message:
        out += [inline(check.message), ""]
    items: list[str] = []
    if check.location is not None:
        items.append(f"- {labelled(t, t.raw('render.at') or 'at', location(check.location))}")
    shown = expected_found(check, t, " · ", _value)
    if shown:
        items.append(f"- {shown}")
    if check.hint:
        items.append(f"- {labelled(t, t.raw('render.hint') or 'what to do', inline(check.hint))}")
    if items:
        out += [*items, ""]
    return out


def explanations(result: Result) -> list[str]:
    """The common-mistake explanations of the result, each once, in check order."""
    return list(dict.fromkeys(c.explanation for c in result.checks if c.explanation))


def counts(result: Result) -> dict[str, int]:
    """How many checks ended in each status, as the `render.summary` message wants them."""
    s = result.summary
    return {"passed": s.passed, "failed": s.failed, "skipped": s.skipped, "error": s.error}


def score_line(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    marks = f"{points(result.score)}/{points(result.max_score)}"
    return labelled(t, t.raw("render.score") or "Score", marks)


def render(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    if not result.gradable:
        title = t.raw("render.not_gradable") or "Not graded"
        out = [f"## {inline(result.lab)} — {inline(title)}", ""]
        out += [f"- {inline(error)}" for error in result.format_errors]
        return "\n".join(out) + "\n"
    summary = t.text("render.summary", counts(result)) or ""
    out = [
        f"## {inline(result.lab)} — {score_line(result, options)}",
        "",
        f"{code(result.submission)} · {inline(summary)}",
        "",
    ]
    found = files_in_line(result, t)
    if found:
        out += [inline(found), ""]
    warning = grader_error_line(result, t)
    if warning:
        out += [f"> {EMOJI['error']} **{inline(warning)}**", ""]
    out += [*_table(result, options), ""]
    unpassed = [c for c in result.checks if c.status != "passed"]
    if unpassed:
        out += [f"## {label(options, 'what_to_fix')}", ""]
        for check in unpassed:
            out += _finding(check, options)
    mistakes = explanations(result)
    if mistakes:
        out += [f"## {inline(t.raw('render.mistakes') or 'Common mistakes found')}", ""]
        for text in mistakes:
            out += [inline(text), ""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"
