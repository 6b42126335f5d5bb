"""One feedback file per student, ready to mail or to upload beside the grade.

Written from the result files alone (a submission is never read again): the score, what
did not pass with where, expected / found and what to do, the common mistake behind it,
then every check. Markdown is the grader's own Markdown report (`grader.render.markdown`,
what `grader check --format markdown` prints); HTML is one self-contained page (inline
style, no script, nothing loaded), every text escaped.

A file is in one language, the one its submission was graded in: a result keeps its
messages, not the means to word them again, so the words around them follow it (a
student reads one language, never Japanese headings over English feedback). Grade with
`grader batch --lang L` for feedback in L; `grader export --lang` words the export's
own messages and column headings only.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from grader.engine.result import CheckResult, Result
from grader.render import RenderOptions, renderer
from grader.render.common import grader_error_line, where
from grader.render.markdown import EMOJI, counts
from grader.words.i18n import Catalog, format_value
from grader.words.visible import visible, visible_result

FORMATS = ("md", "html")

_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Noto Sans CJK JP',"
    "sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}"
    "h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem;margin:0}"
    "code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}"
    "ol>li{margin:1rem 0}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 .8rem}"
    "dt{color:#5a5a5a}dd{margin:0;overflow-wrap:anywhere}.hint{font-weight:600}"
    ".why{color:#5a5a5a}.warning{border-left:4px solid #D55E00;padding-left:.8rem}"
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 8px;"
    "border-bottom:1px solid #ddd;vertical-align:top}td.num{text-align:right;white-space:nowrap}"
)


def _e(text: object) -> str:
    return html.escape(visible(str(text), keep_newlines=True), quote=True)


def _label(catalog: Catalog, key: str, fallback: str) -> str:
    return catalog.raw(f"render.{key}") or fallback


def _points(check: CheckResult) -> str:
    return f"{format_value(check.points)}/{format_value(check.max_points)}"


def _item(check: CheckResult, catalog: Catalog) -> str:
    facts = []
    place = where(check.location)
    if place:
        facts.append((catalog.raw("report.where") or "where", place))
    if check.expected is not None:
        facts.append((_label(catalog, "expected", "expected"), format_value(check.expected)))
    if check.found is not None:
        facts.append((_label(catalog, "found", "found"), format_value(check.found)))
    dl = "".join(f"<dt>{_e(k)}</dt><dd><code>{_e(v)}</code></dd>" for k, v in facts)
    return (
        f"<li><h3>{EMOJI[check.status]} <code>{_e(check.id)}</code> {_e(check.title)} "
        f"({_e(_points(check))})</h3>"
        + (f"<p>{_e(check.message)}</p>" if check.message else "")
        + (f"<dl>{dl}</dl>" if dl else "")
        + (
            f'<p class="hint">{_e(_label(catalog, "hint", "what to do"))}: {_e(check.hint)}</p>'
            if check.hint
            else ""
        )
        + (f'<p class="why">{_e(check.explanation)}</p>' if check.explanation else "")
        + "</li>"
    )


def feedback_html(result: Result, catalog: Catalog) -> str:
    """The student's feedback as one self-contained HTML page."""
    score = _label(catalog, "score", "Score")
    if result.gradable:
        earned = f"{format_value(result.score)}/{format_value(result.max_score)}"
        heading = f"{result.lab} — {score}: {earned}"
    else:
        heading = f"{result.lab} — {_label(catalog, 'not_gradable', 'Not graded')}"
    body = [f"<h1>{_e(heading)}</h1>"]
    if not result.gradable:
        body.append("<ul>" + "".join(f"<li>{_e(e)}</li>" for e in result.format_errors) + "</ul>")
    else:
        summary = catalog.text("render.summary", counts(result)) or ""
        body.append(f"<p>{_e(summary)}</p>")
        warning = grader_error_line(result, catalog)
        if warning:
            body.append(f'<p class="warning">{_e(warning)}</p>')
        issues = [c for c in result.checks if c.status != "passed"]
        if issues:
            body.append(f"<h2>{_e(_label(catalog, 'what_to_fix', 'What to fix'))}</h2>")
            body.append("<ol>" + "".join(_item(c, catalog) for c in issues) + "</ol>")
        rows = "".join(
            f"<tr><td>{EMOJI[c.status]}</td><td><code>{_e(c.id)}</code></td>"
            f'<td class="num">{_e(_points(c))}</td><td>{_e(c.title)}</td></tr>'
            for c in result.checks
        )
        head = (
            f"<tr><th></th><th>{_e(_label(catalog, 'check_column', 'Check'))}</th>"
            f"<th>{_e(_label(catalog, 'points', 'points'))}</th>"
            f"<th>{_e(_label(catalog, 'title_column', 'Title'))}</th></tr>"
        )
        body.append(f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>")
    return (
        f'<!DOCTYPE html>\n<html lang="{_e(catalog.lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(heading)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def feedback_markdown(result: Result, catalog: Catalog) -> str:
    """The student's feedback as the grader's Markdown report."""
    return renderer("markdown")(result, RenderOptions(catalog))


WRITERS: dict[str, Callable[[Result, Catalog], str]] = {
    "md": feedback_markdown,
    "html": lambda result, catalog: feedback_html(visible_result(result), catalog),
}
