"""The students: a sortable table of everyone, each student's feedback as graded (in the
language it was graded in), and the result files that could not be read."""

from __future__ import annotations

from collections.abc import Sequence

from grader.class_report.context import PageContext, anchor
from grader.class_report.results import CheckRow, Student
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


MAX_ISSUES = 6
"""Failing checks shown in full per student; the rest are named (their ids)."""
MESSAGE_CHARS = 280
"""A message, an expected or a found value is cut to this many characters on the page
(the result file holds it whole)."""
FEEDBACK_BUDGET = 1_000_000
"""Characters of full feedback the page holds at most, whatever the class's size: the
students who lost most points get it first; the others' details name only the checks they
did not pass (their result files hold the rest). With the caps above, one student's full
feedback is a few kB, so a class of any size stays a page a browser opens at once."""


def cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    """`text`, at most `limit` characters: a longer one cut, with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _check_item(ctx: PageContext, c: CheckRow) -> str:
    t = ctx.t
    facts = []
    if c.where:
        facts.append((t("where"), f"<code>{esc(cut(c.where))}</code>"))
    if c.expected is not None:
        facts.append((t("expected"), f"<code>{esc(cut(c.expected))}</code>"))
    if c.found is not None:
        facts.append((t("found"), f"<code>{esc(cut(c.found))}</code>"))
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        f'<li><p><span class="badge s-{c.status}">{esc(t(c.status))}</span> '
        f'<a href="#{anchor("check", c.id)}"><code>{esc(c.id)}</code></a> {esc(c.title)} '
        f'<span class="muted">({esc(t("points", points=fmt(c.points), max=fmt(c.max_points)))})'
        "</span></p>"
        + (f"<p>{esc(cut(c.message))}</p>" if c.message else "")
        + (f"<dl>{dl}</dl>" if dl else "")
        + (f'<p class="hint">→ {esc(cut(c.hint))}</p>' if c.hint else "")
        + "</li>"
    )


def _full(ctx: PageContext, s: Student) -> str:
    """The body of a student's feedback: what went wrong, capped (`MAX_ISSUES` checks in
    full, the others by id; each message cut at `MESSAGE_CHARS`). A check's explanation
    is the same for everyone: it is shown once, with the students who failed the check
    (`overview.who_failed`), which each check's id links to."""
    t = ctx.t
    body = []
    if not s.gradable:
        errors = "".join(f"<li>{esc(cut(e))}</li>" for e in s.format_errors[:MAX_ISSUES])
        if len(s.format_errors) > MAX_ISSUES:
            errors += "<li>…</li>"
        body.append(f"<p><strong>{esc(t('not_gradable'))}</strong></p><ul>{errors}</ul>")
        return "".join(body)
    issues = s.not_passed
    if issues:
        shown, rest = issues[:MAX_ISSUES], issues[MAX_ISSUES:]
        body.append("<ol>" + "".join(_check_item(ctx, c) for c in shown) + "</ol>")
        if rest:
            body.append(_named(ctx, t("more_checks", n=len(rest)), rest))
    else:
        body.append(f"<p>{esc(t('all_passed', n=len(s.checks)))}</p>")
    passed = sum(c.status == "passed" for c in s.checks)
    if passed and issues:
        body.append(f'<p class="muted">{esc(t("passed_list", n=passed))}</p>')
    if s.file_problems:
        problems = "".join(
            f"<li><code>{esc(cut(p))}</code></li>" for p in s.file_problems[:MAX_ISSUES]
        )
        body.append(f"<p>{esc(t('file_problems'))}</p><ul>{problems}</ul>")
    return "".join(body)


def _named(ctx: PageContext, label: str, rows: Sequence[CheckRow]) -> str:
    ids = " ".join(f'<a href="#{anchor("check", c.id)}"><code>{esc(c.id)}</code></a>' for c in rows)
    return f"<p>{esc(label)} {ids}</p>"


def _short(ctx: PageContext, s: Student) -> str:
    """The body of a student past the page's budget: the checks not passed, by id (no
    link, no folder: a few hundred bytes whatever the student handed in)."""
    if not s.gradable:
        return f"<p><strong>{esc(ctx.t('not_gradable'))}</strong></p>"
    ids = " ".join(f"<code>{esc(c.id)}</code>" for c in s.not_passed)
    return f"<p>{esc(ctx.t('col_failed_checks'))}: {ids}</p>"


def _lost(s: Student) -> float:
    if not s.gradable or s.score is None:
        return float("inf")
    return (s.max_score or 0) - s.score


def feedback(ctx: PageContext) -> str:
    """Each student's feedback, one `<details>` each (every link to a student lands on
    one): full marks in one line; the others' failures, capped, until the page's
    `FEEDBACK_BUDGET` is spent (worst first), the rest by the ids of their failures."""
    t = ctx.t
    needs = [s for s in ctx.students if not s.gradable or s.not_passed or s.file_problems]
    bodies: dict[str, str] = {}
    in_full: set[str] = set()
    spent = 0
    for s in sorted(needs, key=lambda s: (-_lost(s), s.id)):
        if spent < FEEDBACK_BUDGET:
            bodies[s.id] = _full(ctx, s)
            spent += len(bodies[s.id])
            in_full.add(s.id)
        else:
            bodies[s.id] = _short(ctx, s)
    blocks = []
    for s in ctx.students:
        failed = sum(c.status == "failed" for c in s.checks)
        count = esc(t("failed_badge", n=failed, failed=t("failed")))
        badge = f' <span class="badge s-failed">{count}</span>' if failed else ""
        body = []
        if s.id in in_full:  # where to look, and the way back: for the feedback in full
            if s.submission:
                where = t.text("render.labelled", label=t("folder"), value="{path}")
                body.append(f'<p class="muted">{_with_code(where, s.submission)}</p>')
            body.append(bodies[s.id])
            body.append(f'<p><a href="#students">{esc(t("back"))}</a></p>')
        else:
            body.append(bodies.get(s.id) or f"<p>{esc(t('all_passed', n=len(s.checks)))}</p>")
        blocks.append(
            f'<details class="student" id="{ctx.anchors[s.id]}">'
            f'<summary><span class="sid">{esc(s.id)}</span> · {esc(ctx.score_text(s))}{badge}'
            "</summary>"
            f'<div class="feedback" lang="{esc(s.language)}">{"".join(body)}</div></details>'
        )
    note = ""
    if len(in_full) < len(needs):
        shown = t("feedback_budget", shown=len(in_full), total=len(needs))
        note = f'<p class="muted">{esc(shown)}</p>'
    return (
        f'<section id="feedback"><h2>{esc(t("feedback"))}</h2>'
        f'<p class="muted">{esc(t("feedback_intro"))}</p>{note}{"".join(blocks)}</section>'
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


def _with_code(template: str, value: str) -> str:
    """`template` (`folder: {path}`, with the colon of the language) escaped, with
    `value` in it, where `{path}` is, as code."""
    head, _, tail = template.partition("{path}")
    return f"{esc(head)}<code>{esc(value)}</code>{esc(tail)}"
