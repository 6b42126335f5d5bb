"""This lab's section of the class report: its physics across the class, drawn from the
result files alone.

Three charts: time to first token against prompt size for 0, 4 and 12 documents (a line
per run; a line that rises but was measured with the cache on, `prefill.cache_off`
failed, is drawn apart, in another colour and dashed), the KV cache's first request
against its repeat (a point is "bad" when `cache.first_is_miss` or `cache.hit_faster`
failed), and how long the slot kept working after the client closed, as the share of the
time generating the rest would have taken (freed or busy by `cancel.slot_freed`).
Students at the same values (one run handed in by several, or a class of few runs) are
one mark, larger, with their number beside it.

Each chart shows the rubric's threshold it is judged by, with the value the class's
results were graded with (`PageContext.params`; which parameter goes on which chart is
said here, in `THRESHOLDS`): the smallest whole prompt `prefill.cache_off` accepts, the
repeat's largest share of the first's time `cache.hit_faster` accepts, the idle share
`cancel.slot_freed` accepts.

The numbers are the measurements each result carries, read by `checks.class_physics`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from checks.class_physics import (
    PrefillLine,
    cache_points,
    cancel_points,
    physics_of,
    prefill_lines,
)
from grader.class_report.axes import Axis, bucket, linear_axis, log_axis
from grader.class_report.charts import strip_chart, xy_chart
from grader.class_report.context import FULL_WIDTH, HALF_WIDTH, PageContext
from grader.class_report.spec import Section
from grader.class_report.svg import (
    OKABE_ITO,
    THRESHOLD,
    Guide,
    Mark,
    StripMark,
    Style,
    esc,
    fmt,
)

THRESHOLDS = {
    "prefill": ("prefill.cache_off", "min_prompt_tokens"),  # a vertical line: prompt_n
    "cache": ("cache.hit_faster", "max_ttft_ratio"),  # the line repeat = ratio × first
    "cancel": ("cancel.slot_freed", "max_idle_fraction"),  # a vertical line: idle share
}
"""Which rubric parameter each chart draws (check id, parameter name)."""


# --------------------------------------------------------------------------- the section


def _words(ctx: PageContext) -> Callable[..., str]:
    def w(key: str, **params: object) -> str:
        return ctx.t.text(f"class_report.physics.{key}", **params)

    return w


H = TypeVar("H", bound=Hashable)


def _groups(items: Iterable[tuple[H, str]]) -> list[tuple[H, list[str]]]:
    """Students at the same values, in the order they come (one mark each group)."""
    groups: dict[H, list[str]] = {}
    for key, sid in items:
        groups.setdefault(key, []).append(sid)
    return list(groups.items())


def _threshold(ctx: PageContext, chart: str) -> list[float]:
    return ctx.params(*THRESHOLDS[chart])


def _prefill_svg(ctx: PageContext, lines: list[PrefillLine], width: int, suffix: str) -> str:
    w = _words(ctx)
    floor = _threshold(ctx, "prefill")
    xs = [float(p[0]) for line in lines for p in line.points] + floor
    x = linear_axis(w("prefill_x"), xs)
    y = linear_axis(w("prefill_y"), [p[1] for line in lines for p in line.points])
    red, purple = OKABE_ITO["vermillion"], OKABE_ITO["reddish_purple"]
    styles = {  # the cache left on: another colour and dashed, drawn over the right runs
        "rising": Style(w("prefill_rising"), OKABE_ITO["blue"], "circle", "", 1.0, 0.5),
        "cache_on": Style(w("prefill_cache_on"), red, "square", "7 4", 2.0, 0.95),
        "flat": Style(w("prefill_flat"), purple, "triangle", "2 3", 2.2, 0.95),
    }
    first = {line.id: line for line in lines}
    keyed = (
        ((line.kind, tuple((bucket(x, n), bucket(y, ms)) for n, ms, _ in line.points)), line.id)
        for line in lines
    )
    marks = []
    for (kind, _), ids in _groups(keyed):
        points = first[ids[0]].points
        numbers = "; ".join(
            w("prefill_point", docs=d, prompt_n=n, ttft=fmt(ms)) for n, ms, d in points
        )
        marks.append(
            Mark(
                tuple((float(n), ms) for n, ms, _ in points),
                kind,
                ctx.many(ids, numbers),
                ctx.href(ids[0]),
                count=len(ids),
            )
        )
    guides = [
        Guide(((v, y.lo), (v, y.hi)), w("prefill_floor", value=fmt(v)), *THRESHOLD) for v in floor
    ]
    return xy_chart(
        f"chart-prefill{suffix}",
        w("prefill_title"),
        x,
        y,
        styles,
        marks,
        guides=guides,
        description=w("prefill_desc"),
        width=width,
        height=440 if width == FULL_WIDTH else 420,
    )


def _prefill_chart(ctx: PageContext) -> str:
    w = _words(ctx)
    lines = prefill_lines(ctx.students)
    x = linear_axis("", [float(p[0]) for line in lines for p in line.points])
    y = linear_axis("", [p[1] for line in lines for p in line.points])
    off = sum(
        1 for line in lines for n, ms, _ in line.points if not (x.contains(n) and y.contains(ms))
    )
    svg = ctx.responsive(lambda width, suffix: _prefill_svg(ctx, lines, width, suffix))
    return ctx.figure(svg, w("prefill_desc"), len(lines), off)


def _cache_chart(ctx: PageContext) -> str:
    w = _words(ctx)
    points = cache_points(ctx.students)
    ratios = _threshold(ctx, "cache")
    both = log_axis("", [p.first.ttft_ms for p in points] + [p.second.ttft_ms for p in points])
    x = Axis(w("cache_x"), both.lo, both.hi, both.ticks, log=True)
    y = Axis(w("cache_y"), both.lo, both.hi, both.ticks, log=True)
    styles = {
        "ok": Style(w("cache_ok"), OKABE_ITO["blue"], "circle", "", 1.0, 0.7),
        "bad": Style(w("cache_bad"), OKABE_ITO["vermillion"], "triangle", "", 1.0, 0.95),
    }
    by_id = {p.id: p for p in points}
    keyed = (
        ((p.ok, bucket(x, p.first.ttft_ms), bucket(y, p.second.ttft_ms)), p.id) for p in points
    )
    groups = [
        ((by_id[ids[0]].first, by_id[ids[0]].second, key[0]), ids) for key, ids in _groups(keyed)
    ]
    marks = [
        Mark(
            ((first.ttft_ms, second.ttft_ms),),
            "ok" if ok else "bad",
            ctx.many(
                ids,
                w(
                    "cache_numbers",
                    first=fmt(first.ttft_ms),
                    first_n=first.prompt_n,
                    second=fmt(second.ttft_ms),
                    second_n=second.prompt_n,
                ),
            ),
            ctx.href(ids[0]),
            count=len(ids),
        )
        for (first, second, ok), ids in groups
    ]
    guides = [Guide(((both.lo, both.lo), (both.hi, both.hi)), w("cache_same"))]
    guides += [
        Guide(
            ((both.lo, both.lo * r), (both.hi, both.hi * r)),
            w("cache_threshold", value=fmt(r)),
            *THRESHOLD,
        )
        for r in ratios
    ]
    off = sum(
        1 for p in points if not (x.contains(p.first.ttft_ms) and y.contains(p.second.ttft_ms))
    )
    svg = xy_chart(
        "chart-cache",
        w("cache_title"),
        x,
        y,
        styles,
        marks,
        guides=guides,
        description=w("cache_desc"),
        width=HALF_WIDTH,
        height=500,
    )
    return ctx.figure(svg, w("cache_desc"), len(points), off)


def _cancel_chart(ctx: PageContext) -> str:
    w = _words(ctx)
    points = [p for p in cancel_points(ctx.students) if p.share is not None]
    limits = _threshold(ctx, "cancel")
    shares = [p.share for p in points if p.share is not None]
    x = log_axis(w("cancel_share_x"), shares + limits, floor=1e-5)
    rows = {
        "freed": Style(w("cancel_freed"), OKABE_ITO["blue"], "circle"),
        "busy": Style(w("cancel_busy"), OKABE_ITO["vermillion"], "triangle"),
    }
    if any(p.status == "other" for p in points):
        rows["other"] = Style(w("cancel_other"), OKABE_ITO["grey"], "diamond")
    by_id = {p.id: p for p in points}
    keyed = (((p.status, bucket(x, p.share or 0.0)), p.id) for p in points)
    groups = [
        ((by_id[ids[0]].share, key[0], by_id[ids[0]].run), ids) for key, ids in _groups(keyed)
    ]
    marks = [
        StripMark(
            share or 0.0,
            status,
            ctx.many(
                ids,
                w(
                    "cancel_numbers",
                    share=fmt(share or 0.0),
                    idle=fmt(run.slot_idle_after_ms),
                    closed=fmt(run.closed_at_ms),
                    received=run.received_tokens,
                    max_tokens=run.max_tokens,
                ),
            ),
            ids[0],
            ctx.href(ids[0]),
            count=len(ids),
        )
        for (share, status, run), ids in groups
    ]
    off = sum(1 for p in points if not x.contains(p.share or 0.0))
    svg = strip_chart(
        "chart-cancel",
        w("cancel_title"),
        x,
        rows,
        marks,
        description=w("cancel_desc"),
        width=HALF_WIDTH,
        guides=[(v, w("cancel_threshold", value=fmt(v))) for v in limits],
    )
    return ctx.figure(svg, w("cancel_desc"), len(points), off)


def render(ctx: PageContext) -> str:
    """The section's body: the three charts, or why there are none."""
    w = _words(ctx)
    if all(physics_of(s).empty for s in ctx.graded):
        return f'<p class="muted">{esc(w("physics_none"))}</p>'
    return (
        # two paragraphs, not one joined by a space: Japanese and Chinese put none after 。
        f"<p>{esc(w('physics_intro'))}</p><p>{esc(w('physics_many'))}</p>"
        + _prefill_chart(ctx)
        + '<div class="pair">'
        + _cache_chart(ctx)
        + _cancel_chart(ctx)
        + "</div>"
    )


SECTION = Section("physics", "class_report.physics.physics", render)
"""The lab's physics across the class, after the pass rates (`CLASS_REPORT.sections`)."""
