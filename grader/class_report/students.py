"""The students: a sortable table of everyone, each student's feedback as graded (in the
language it was graded in), and the result files that could not be read."""

from __future__ import annotations

from grader.class_report.context import PageContext
from grader.class_report.results import CheckRow
from grader.class_report.svg import esc, fmt


def table(ctx: PageContext) -> str:
    """Every student, one row each, in the page's flow (no box of its own that scrolls:
    it prints whole, and its heading stays in view while the page scrolls)."""
    t = ctx.t
    rows = []
    for s in ctx.students:
        flags = ctx.flags.get(s.id, ())
        strong = sum(f.strong for f in flags)
        failed = sum(c.status == "failed" for c in s.checks)
        other = sum(c.status in ("skipped", "error") for c in s.checks)
        score = s.score if s.gradable and s.score is not None else -1
        not_passed = " ".join(c.id for c in s.not_passed)
        flag_text = "".join(
            f' <span class="badge {kind}" title="{esc(t(kind))}">{count}</span>'
            for kind, count in (("strong", strong), ("weak", len(flags) - strong))
            if count
        )
        rows.append(
            f"<tr><td>{ctx.link(s.id)}</td>"
            f'<td class="num score" data-sort="{score:.6g}">{esc(ctx.score_text(s))}</td>'
            f'<td class="num">{failed if s.gradable else ""}</td>'
            f'<td class="num">{other if s.gradable else ""}</td>'
            f'<td class="num" data-sort="{strong * 1000 + len(flags)}">{flag_text}</td>'
            f'<td class="mono">{esc(not_passed)}</td></tr>'
        )
    return (
        f'<section id="students"><h2>{esc(t("students"))}</h2>'
        f'<p class="js-only muted">{esc(t("sort_hint"))}</p>'
        f'<div class="students" role="region" aria-label="{esc(t("students"))}">'
        '<table class="sortable"><thead><tr>'
        f'<th scope="col">{esc(t("col_student"))}</th>'
        f'<th scope="col" class="num" data-type="number">{esc(t("col_score"))}</th>'
        f'<th scope="col" class="num" data-type="number">{esc(t("col_failed"))}</th>'
        f'<th scope="col" class="num" data-type="number">{esc(t("col_skipped"))}</th>'
        f'<th scope="col" class="num" data-type="number">{esc(t("col_flags"))}</th>'
        f'<th scope="col">{esc(t("col_failed_checks"))}</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _check_item(ctx: PageContext, c: CheckRow) -> str:
    t = ctx.t
    facts = []
    if c.where:
        facts.append((t("where"), f"<code>{esc(c.where)}</code>"))
    if c.expected is not None:
        facts.append((t("expected"), f"<code>{esc(c.expected)}</code>"))
    if c.found is not None:
        facts.append((t("found"), f"<code>{esc(c.found)}</code>"))
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        f'<li><p><span class="badge s-{c.status}">{esc(t(c.status))}</span> '
        f"<code>{esc(c.id)}</code> {esc(c.title)} "
        f'<span class="muted">({esc(t("points", points=fmt(c.points), max=fmt(c.max_points)))})'
        "</span></p>"
        + (f"<p>{esc(c.message)}</p>" if c.message else "")
        + (f"<dl>{dl}</dl>" if dl else "")
        + (f'<p class="hint">→ {esc(c.hint)}</p>' if c.hint else "")
        + (f'<p class="why">{esc(c.explanation)}</p>' if c.explanation else "")
        + "</li>"
    )


def feedback(ctx: PageContext) -> str:
    t = ctx.t
    blocks = []
    for s in ctx.students:
        failed = sum(c.status == "failed" for c in s.checks)
        badge = (
            f' <span class="badge s-failed">{failed} {esc(t("failed"))}</span>' if failed else ""
        )
        body = []
        if s.submission:
            body.append(
                f'<p class="muted">{esc(t("folder"))}: <code>{esc(s.submission)}</code></p>'
            )
        if not s.gradable:
            errors = "".join(f"<li>{esc(e)}</li>" for e in s.format_errors)
            body.append(f"<p><strong>{esc(t('not_gradable'))}</strong></p><ul>{errors}</ul>")
        else:
            issues = s.not_passed
            if issues:
                body.append("<ol>" + "".join(_check_item(ctx, c) for c in issues) + "</ol>")
            else:
                body.append(f"<p>{esc(t('all_passed', n=len(s.checks)))}</p>")
            passed = [c for c in s.checks if c.status == "passed"]
            if passed and issues:
                items = "".join(
                    f"<li><code>{esc(c.id)}</code> {esc(c.title)}"
                    + (f' <span class="muted">— {esc(c.message)}</span>' if c.message else "")
                    + "</li>"
                    for c in passed
                )
                body.append(
                    f"<details><summary>{esc(t('passed_list', n=len(passed)))}</summary>"
                    f"<ul>{items}</ul></details>"
                )
            if s.file_problems:
                problems = "".join(f"<li><code>{esc(p)}</code></li>" for p in s.file_problems)
                body.append(f"<p>{esc(t('file_problems'))}</p><ul>{problems}</ul>")
        body.append(f'<p><a href="#students">{esc(t("back"))}</a></p>')
        blocks.append(
            f'<details class="student" id="{ctx.anchors[s.id]}">'
            f'<summary><span class="sid">{esc(s.id)}</span> · {esc(ctx.score_text(s))}{badge}'
            "</summary>"
            f'<div class="feedback" lang="{esc(s.language)}">{"".join(body)}</div></details>'
        )
    return (
        f'<section id="feedback"><h2>{esc(t("feedback"))}</h2>'
        f'<p class="muted">{esc(t("feedback_intro"))}</p>{"".join(blocks)}</section>'
    )


def unreadable(ctx: PageContext) -> str:
    if not ctx.unreadable:
        return ""
    t = ctx.t
    items = "".join(f"<li><code>{esc(u.name)}</code>: {esc(u.reason)}</li>" for u in ctx.unreadable)
    return (
        f'<section id="unreadable"><h2>{esc(t("unreadable"))}</h2>'
        f"<p>{esc(t('unreadable_intro'))}</p><ul>{items}</ul></section>"
    )
