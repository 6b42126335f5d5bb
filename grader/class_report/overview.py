"""The class at a glance: the score distribution, each check's pass rate, and who failed
each check (worst first, with their message)."""

from __future__ import annotations

from grader.class_report.charts import histogram_chart
from grader.class_report.context import PageContext, anchor, percent
from grader.class_report.results import CheckRow
from grader.class_report.stats import CheckRate, pass_rates, score_histogram
from grader.class_report.students import cut
from grader.class_report.svg import OKABE_ITO, Bin, Style, esc, fmt


def _score_chart(ctx: PageContext, width: int, suffix: str) -> str:
    """The score histogram drawn `width` units wide: as many bins as fit legibly."""
    t = ctx.t
    hist = score_histogram(ctx.students, max_bins=max(10, int((width - 88) // 16)))
    whole = all(float(s.score or 0).is_integer() for s in ctx.graded)
    bins = []
    for b in hist.bins:
        if b.gap:
            last = b.hi - 1 if whole else b.hi
            span = f"{fmt(b.lo)}–{fmt(last)}"
            bins.append(Bin(b.lo, b.hi, 0, t("gap_tooltip", range=span), gap=True))
            continue
        if b.full_marks:
            tooltip = t("full_marks_tooltip", score=fmt(b.lo), n=len(b.ids))
            label = fmt(b.lo)
        else:
            last = b.hi - 1 if whole else b.hi
            span = fmt(b.lo) if last <= b.lo else f"{fmt(b.lo)}–{fmt(last)}"
            tooltip, label = t("bin_tooltip", range=span, n=len(b.ids)), span
        bins.append(Bin(b.lo, b.hi, len(b.ids), tooltip, label=label))
    markers = []
    if hist.median is not None:
        value = hist.median
        # a whole score s is the bar [s, s + 1); full marks are the last bar
        at = hist.max_score + hist.width / 2 if value >= hist.max_score else value
        at = at + 0.5 if whole and value < hist.max_score and hist.width == 1 else at
        markers.append((at, t("median_marker", value=fmt(hist.median))))
    return histogram_chart(
        f"chart-scores{suffix}",
        t("scores_title"),
        t("scores_x", max=fmt(hist.max_score)),
        t("scores_y"),
        bins,
        Style(t("scores_y"), OKABE_ITO["blue"]),
        markers=markers,
        width=width,
        height=300,
        center_labels=whole and hist.width == 1,
    )


def scores(ctx: PageContext) -> str:
    t = ctx.t
    svg = ctx.responsive(lambda width, suffix: _score_chart(ctx, width, suffix))
    ungraded = len(ctx.students) - len(ctx.graded)
    note = f"<figcaption>{esc(t('scores_ungraded', n=ungraded))}</figcaption>" if ungraded else ""
    return f'<section id="scores"><h2>{esc(t("scores"))}</h2><figure>{svg}{note}</figure></section>'


STATUS_COLOURS = {
    "passed": OKABE_ITO["blue"],
    "failed": OKABE_ITO["vermillion"],
    "skipped": OKABE_ITO["grey"],
    "error": OKABE_ITO["reddish_purple"],
}


def rate_note(ctx: PageContext, rate: CheckRate) -> str:
    """`85% passed · 36 failed · 2 skipped`: every status that happened, counted."""
    t = ctx.t
    parts = [t("rate_passed", rate=percent(rate.passed, rate.ran))]
    for key, ids in (
        ("rate_failed", rate.failed_ids),
        ("rate_skipped", rate.skipped_ids),
        ("rate_error", rate.error_ids),
    ):
        if ids:
            parts.append(t(key, n=len(ids)))
    return " · ".join(parts)


def _bar(rate: CheckRate, tooltip: str) -> str:
    """The check's stacked bar: an SVG of 100 units that stretches to its cell (so the
    text beside it stays the page's own, legible at any width)."""
    start, rects = 0.0, []
    for status, amount in (
        ("passed", rate.passed),
        ("failed", len(rate.failed_ids)),
        ("skipped", len(rate.skipped_ids)),
        ("error", len(rate.error_ids)),
    ):
        if amount and rate.ran:
            width = 100 * amount / rate.ran
            rects.append(
                f'<rect x="{start:.2f}" y="0" width="{width:.2f}" height="10" '
                f'fill="{STATUS_COLOURS[status]}"/>'
            )
            start += width
    return (
        '<svg class="rbar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" '
        f'aria-label="{esc(tooltip)}"><title>{esc(tooltip)}</title>{"".join(rects)}</svg>'
    )


def checks(ctx: PageContext) -> str:
    """Each check's pass rate, worst first, as rows of text with a bar (HTML text, so it
    stays legible whatever the window's width): what happened, counted honestly (failed,
    skipped and broken apart), and the points the class lost on it. The checks every
    graded submission passed are one line at the end."""
    t = ctx.t
    rates = pass_rates(ctx.students)
    everyone = [r for r in rates if r.ran and r.passed == r.ran]
    shown = [r for r in rates if r not in everyone]
    legend = "".join(
        f'<span class="key"><svg viewBox="0 0 10 10" class="swatch" aria-hidden="true">'
        f'<rect width="10" height="10" fill="{colour}"/></svg>{esc(t(status))}</span>'
        for status, colour in STATUS_COLOURS.items()
    )
    rows = []
    for r in shown:
        tooltip = t(
            "rate_tooltip",
            id=r.id,
            passed=r.passed,
            failed=len(r.failed_ids),
            skipped=len(r.skipped_ids),
            error=len(r.error_ids),
        )
        lost = t("points_lost", points=fmt(r.lost)) if r.lost else ""
        rows.append(
            f'<li><a class="rate" href="#{anchor("check", r.id)}" title="{esc(r.title)}">'
            f'<code class="rid">{esc(r.id)}</code>{_bar(r, tooltip + " — " + r.title)}'
            f'<span class="rnote">{esc(rate_note(ctx, r))}</span>'
            f'<span class="rlost">{esc(lost)}</span></a></li>'
        )
    head = (
        f'<li class="rhead" aria-hidden="true"><span>{esc(t("checks_y"))}</span>'
        f"<span>{esc(t('checks_x'))}</span><span></span>"
        f"<span>{esc(t('points_lost_head'))}</span></li>"
    )
    folded = ""
    if everyone:
        ids = ", ".join(f"<code>{esc(r.id)}</code>" for r in everyone)
        folded = f'<p class="all-passed">{esc(t("all_passed_checks", n=len(everyone)))} {ids}</p>'
    empty = "" if rates else f'<p class="muted">{esc(t("no_results"))}</p>'
    body = (
        f'<div class="chart-rates" id="chart-checks" role="group" '
        f'aria-label="{esc(t("checks_title"))}"><p class="legend">{legend}</p>'
        f'<ol class="rates">{head}{"".join(rows)}</ol>{folded}</div>'
    )
    return (
        f'<section id="checks"><h2>{esc(t("checks"))}</h2><p>{esc(t("checks_intro"))}</p>'
        f"{empty}{body if rates else ''}</section>"
    )


WHO_CAP = 50
"""Students listed by name under each check and status, at most; the table of students
(its column of checks not passed) names every one."""


def who_failed(ctx: PageContext) -> str:
    """Per check (worst first), what to do and the common mistake (once, as the first
    student who did not pass it got them), then the students who failed it, broke it or
    skipped it, with their message (the first `WHO_CAP` of each, messages cut); each
    check a `<details>` the pass-rate chart and the students' feedback link to."""
    t = ctx.t
    first: dict[str, CheckRow] = {}  # per check, the first student's row that did not pass
    for s in ctx.students:
        for c in s.not_passed:
            first.setdefault(c.id, c)
    blocks = []
    clean_checks = []
    for r in pass_rates(ctx.students):
        if not (r.failed_ids or r.skipped_ids or r.error_ids):
            clean_checks.append(
                f'<li id="{anchor("check", r.id)}"><code>{esc(r.id)}</code> {esc(r.title)}</li>'
            )
            continue
        counts = " ".join(
            f'<span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span>'
            for label, ids, status in (
                ("failed_by", r.failed_ids, "failed"),
                ("error_for", r.error_ids, "error"),
                ("skipped_for", r.skipped_ids, "skipped"),
            )
            if ids
        )
        lists = []
        for label, ids, status in (
            ("failed_by", r.failed_ids, "failed"),
            ("error_for", r.error_ids, "error"),
            ("skipped_for", r.skipped_ids, "skipped"),
        ):
            if ids:
                items = "".join(
                    f"<li>{ctx.link(i)}: {esc(cut(r.messages.get(i, '')))}</li>"
                    for i in ids[:WHO_CAP]
                )
                if len(ids) > WHO_CAP:
                    items += f'<li class="muted">{esc(t("many_more", n=len(ids) - WHO_CAP))}</li>'
                lists.append(
                    f'<p><span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span></p>'
                    f'<ul class="who">{items}</ul>'
                )
        row = first.get(r.id)
        if row is not None and (row.hint or row.explanation):
            lists.insert(
                0,
                (f'<p class="hint">→ {esc(row.hint)}</p>' if row.hint else "")
                + (f'<p class="why">{esc(row.explanation)}</p>' if row.explanation else ""),
            )
        blocks.append(
            f'<details class="check-detail" id="{anchor("check", r.id)}"><summary>'
            f"<code>{esc(r.id)}</code> {esc(r.title)} "
            f'<span class="muted">· {esc(t("rate_note", rate=percent(r.passed, r.ran)))}'
            f"</span> {counts}</summary>{''.join(lists)}</details>"
        )
    if clean_checks:
        blocks.append(
            f'<h3>{esc(t("nobody_failed"))}</h3><ul class="who clean">{"".join(clean_checks)}</ul>'
        )
    return (
        f'<section id="who-failed"><h2>{esc(t("who_failed"))}</h2>'
        f'<p class="muted">{esc(t("who_failed_intro"))}</p>{"".join(blocks)}</section>'
    )
