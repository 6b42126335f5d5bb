"""The class at a glance: the score distribution, each check's pass rate, and who failed
each check (worst first, with their message)."""

from __future__ import annotations

from grader.class_report.charts import bar_chart, histogram_chart
from grader.class_report.context import FULL_WIDTH, PageContext, anchor, percent
from grader.class_report.stats import pass_rates, score_histogram
from grader.class_report.svg import OKABE_ITO, BarRow, Bin, Style, esc, fmt


def scores(ctx: PageContext) -> str:
    t = ctx.t
    hist = score_histogram(ctx.students)
    bins = []
    whole = all(float(s.score or 0).is_integer() for s in ctx.graded)
    for b in hist.bins:
        last = min(b.hi - 1 if whole else b.hi, hist.max_score)
        span = fmt(b.lo) if last <= b.lo else f"{fmt(b.lo)}–{fmt(last)}"
        bins.append(Bin(b.lo, b.hi, len(b.ids), t("bin_tooltip", range=span, n=len(b.ids))))
    markers = []
    if hist.median is not None:
        markers.append((hist.median, t("median_marker", value=fmt(hist.median))))
    svg = histogram_chart(
        "chart-scores",
        t("scores_title"),
        t("scores_x", max=fmt(hist.max_score)),
        t("scores_y"),
        bins,
        Style(t("scores_y"), OKABE_ITO["blue"]),
        markers=markers,
        width=FULL_WIDTH,
        height=300,
    )
    ungraded = len(ctx.students) - len(ctx.graded)
    note = f"<figcaption>{esc(t('scores_ungraded', n=ungraded))}</figcaption>" if ungraded else ""
    return f'<section id="scores"><h2>{esc(t("scores"))}</h2><figure>{svg}{note}</figure></section>'


def checks(ctx: PageContext) -> str:
    t = ctx.t
    rates = pass_rates(ctx.students)
    styles = {
        "passed": Style(t("passed"), OKABE_ITO["blue"], "square", line_width=0),
        "failed": Style(t("failed"), OKABE_ITO["vermillion"], "square", line_width=0),
        "skipped": Style(t("skipped"), OKABE_ITO["grey"], "square", line_width=0),
        "error": Style(t("error"), OKABE_ITO["reddish_purple"], "square", line_width=0),
    }
    rows = []
    for r in rates:
        pct = percent(r.passed, r.ran)
        note = (
            t("rate_note_failed", rate=pct, n=len(r.failed_ids))
            if r.failed_ids
            else t("rate_note", rate=pct)
        )
        rows.append(
            BarRow(
                r.id,
                (
                    ("passed", r.passed),
                    ("failed", len(r.failed_ids)),
                    ("skipped", len(r.skipped_ids)),
                    ("error", len(r.error_ids)),
                ),
                r.ran,
                note,
                t(
                    "rate_tooltip",
                    id=r.id,
                    passed=r.passed,
                    failed=len(r.failed_ids),
                    skipped=len(r.skipped_ids),
                    error=len(r.error_ids),
                )
                + f" — {r.title}",
                "#" + anchor("check", r.id),
            )
        )
    svg = bar_chart(
        "chart-checks",
        t("checks_title"),
        t("checks_x"),
        styles,
        rows,
        y_label=t("checks_y"),
        width=FULL_WIDTH,
    )
    empty = "" if rates else f'<p class="muted">{esc(t("no_results"))}</p>'
    return (
        f'<section id="checks"><h2>{esc(t("checks"))}</h2><p>{esc(t("checks_intro"))}</p>'
        f"{empty}<figure>{svg}</figure></section>"
    )


def who_failed(ctx: PageContext) -> str:
    """Per check (worst first), the students who failed it, broke it or skipped it, with
    their message; each check a `<details>` the pass-rate chart links to."""
    t = ctx.t
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
                    f"<li>{ctx.link(i)}: {esc(r.messages.get(i, ''))}</li>" for i in ids
                )
                lists.append(
                    f'<p><span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span></p>'
                    f'<ul class="who">{items}</ul>'
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
