"""This lab's section of the class report: its physics across the class, one mark per
student, drawn from the result files alone.

Three charts: time to first token against prompt size for 0, 4 and 12 documents (a line
per student; a line that rises but was measured with the cache on, `prefill.cache_off`
failed, is drawn apart), the KV cache's first request against its repeat (a point is
"bad" when `cache.first_is_miss` or `cache.hit_faster` failed), and how long the slot
kept working after the client closed (freed or busy by `cancel.slot_freed`).

The numbers are the measurements each result carries: `checks.measures` keeps them of
every prefill.json, cache.json and cancel.json that passed its schema, as the `data` of
its `.schema` check. A result is untrusted input like any file: a measurement of the
wrong shape, a negative time or an absurd count is no mark, never an error.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from checks.measures import CACHE_RUNS, CANCEL_KEYS, PREFILL_ENTRIES
from grader.class_report.charts import strip_chart, xy_chart
from grader.class_report.context import FULL_WIDTH, HALF_WIDTH, PageContext
from grader.class_report.results import Student
from grader.class_report.spec import Section
from grader.class_report.svg import (
    OKABE_ITO,
    Axis,
    Guide,
    Mark,
    StripMark,
    Style,
    esc,
    fmt,
    linear_axis,
    log_axis,
)

PREFILL_CACHE_ON = "prefill.cache_off"  # failed: the rising line was measured cache on
CACHE_CHECKS = ("cache.first_is_miss", "cache.hit_faster")  # one failed: a "bad" point
CANCEL_CHECK = "cancel.slot_freed"  # passed: freed; failed: busy; else not judged


@dataclass(frozen=True)
class PrefillEntry:
    docs: int
    prompt_n: int
    prompt_ms: float
    ttft_ms: float


@dataclass(frozen=True)
class CacheRun:
    prompt_n: int
    ttft_ms: float


@dataclass(frozen=True)
class CancelRun:
    max_tokens: int
    received_tokens: int
    closed_at_ms: float
    slot_idle_after_ms: float


@dataclass(frozen=True)
class Physics:
    """One student's measured numbers; None where its result has none (the file was
    missing or invalid, or the result came from a grader that kept no measurements)."""

    prefill: tuple[PrefillEntry, ...] | None = None
    cache: dict[str, CacheRun] | None = None
    cancel: CancelRun | None = None

    @property
    def empty(self) -> bool:
        return self.prefill is None and self.cache is None and self.cancel is None


class _Bad(ValueError):
    """A measurement of the wrong shape (a result is untrusted input)."""


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**12:
        raise _Bad("not a count")
    return value


def _ms(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad("not a number")
    if not math.isfinite(value) or value < 0:
        raise _Bad("not a time")
    return float(value)


def _measured(student: Student, artifact: str) -> Any:
    """The measurements the result keeps of `artifact` (its passed `.schema` check's)."""
    row = student.check(f"{artifact}.schema")
    return row.data if row is not None and row.status == "passed" and row.data else None


def _read(parse: Callable[[Any], Any], data: Any) -> Any:
    try:
        return None if data is None else parse(data)
    except (_Bad, KeyError, TypeError, AttributeError):
        return None


def _prefill(data: Any) -> tuple[PrefillEntry, ...] | None:
    entries = data["entries"]
    if not isinstance(entries, list) or not entries:
        return None
    return tuple(
        PrefillEntry(
            _count(e["docs"]), _count(e["prompt_n"]), _ms(e["prompt_ms"]), _ms(e["ttft_ms"])
        )
        for e in entries[:PREFILL_ENTRIES]
    )


def _cache(data: Any) -> dict[str, CacheRun]:
    return {k: CacheRun(_count(data[k]["prompt_n"]), _ms(data[k]["ttft_ms"])) for k in CACHE_RUNS}


def _cancel(data: Any) -> CancelRun:
    counts, times = CANCEL_KEYS[:2], CANCEL_KEYS[2:]
    return CancelRun(*(_count(data[k]) for k in counts), *(_ms(data[k]) for k in times))


def physics_of(student: Student) -> Physics:
    """The student's measured numbers, from its result; anything malformed is None."""
    return Physics(
        _read(_prefill, _measured(student, "prefill")),
        _read(_cache, _measured(student, "cache")),
        _read(_cancel, _measured(student, "cancel")),
    )


# --------------------------------------------------------------------------- chart data


@dataclass(frozen=True)
class PrefillLine:
    """One student's prefill points (prompt_n, ttft_ms, docs) in order of docs."""

    id: str
    points: tuple[tuple[int, float, int], ...]
    kind: str  # "rising", "cache_on" or "flat"


def prefill_lines(students: Sequence[Student]) -> list[PrefillLine]:
    """Every graded student with prefill measurements: its entries in order of docs
    (stable), and whether the line rises (both prompt_n and ttft_ms strictly growing),
    rises but was measured with the cache on (`prefill.cache_off` failed), or is flat or
    falling somewhere."""
    lines = []
    for s in students:
        entries = physics_of(s).prefill if s.gradable else None
        if entries is None:
            continue
        points = tuple(
            (e.prompt_n, e.ttft_ms, e.docs) for e in sorted(entries, key=lambda e: e.docs)
        )
        rising = all(b[0] > a[0] and b[1] > a[1] for a, b in itertools.pairwise(points))
        if not rising:
            kind = "flat"
        elif s.status(PREFILL_CACHE_ON) == "failed":
            kind = "cache_on"
        else:
            kind = "rising"
        lines.append(PrefillLine(s.id, points, kind))
    return lines


@dataclass(frozen=True)
class CachePoint:
    id: str
    first: CacheRun
    second: CacheRun
    ok: bool


def cache_points(students: Sequence[Student]) -> list[CachePoint]:
    """Every graded student with cache measurements: first (miss) and second (hit), `ok`
    unless one of the cache checks failed."""
    out = []
    for s in students:
        cache = physics_of(s).cache if s.gradable else None
        if cache is not None:
            ok = not any(s.status(c) == "failed" for c in CACHE_CHECKS)
            out.append(CachePoint(s.id, cache["first"], cache["second"], ok))
    return out


@dataclass(frozen=True)
class CancelPoint:
    id: str
    run: CancelRun
    status: str  # "freed", "busy" or "other"


def cancel_points(students: Sequence[Student]) -> list[CancelPoint]:
    """Every graded student with cancel measurements: its idle time and whether
    `cancel.slot_freed` passed (freed), failed (busy) or did not judge (other)."""
    out = []
    for s in students:
        run = physics_of(s).cancel if s.gradable else None
        if run is not None:
            status = {"passed": "freed", "failed": "busy"}.get(
                s.status(CANCEL_CHECK) or "", "other"
            )
            out.append(CancelPoint(s.id, run, status))
    return out


# --------------------------------------------------------------------------- the section


def _words(ctx: PageContext) -> Callable[..., str]:
    def w(key: str, **params: object) -> str:
        return ctx.t.text(f"class_report.physics.{key}", **params)

    return w


def _prefill_chart(ctx: PageContext) -> str:
    w = _words(ctx)
    lines = prefill_lines(ctx.students)
    x = linear_axis(w("prefill_x"), [float(p[0]) for line in lines for p in line.points])
    y = linear_axis(w("prefill_y"), [p[1] for line in lines for p in line.points])
    styles = {
        "rising": Style(w("prefill_rising"), OKABE_ITO["blue"], "circle", "", 1.0, 0.45),
        "cache_on": Style(w("prefill_cache_on"), OKABE_ITO["orange"], "square", "5 3", 1.6, 0.9),
        "flat": Style(w("prefill_flat"), OKABE_ITO["vermillion"], "triangle", "", 2.4, 0.95),
    }
    marks = [
        Mark(
            tuple((float(n), ms) for n, ms, _ in line.points),
            line.kind,
            f"{line.id}: "
            + "; ".join(
                w("prefill_point", docs=d, prompt_n=n, ttft=fmt(ms)) for n, ms, d in line.points
            ),
            ctx.href(line.id),
        )
        for line in lines
    ]
    off = sum(
        1 for line in lines for n, ms, _ in line.points if not (x.contains(n) and y.contains(ms))
    )
    svg = xy_chart(
        "chart-prefill",
        w("prefill_title"),
        x,
        y,
        styles,
        marks,
        description=w("prefill_desc"),
        width=FULL_WIDTH,
        height=440,
    )
    return ctx.figure(svg, w("prefill_desc"), len(lines), off)


def _cache_chart(ctx: PageContext) -> str:
    w = _words(ctx)
    points = cache_points(ctx.students)
    both = log_axis("", [p.first.ttft_ms for p in points] + [p.second.ttft_ms for p in points])
    x = Axis(w("cache_x"), both.lo, both.hi, both.ticks, log=True)
    y = Axis(w("cache_y"), both.lo, both.hi, both.ticks, log=True)
    styles = {
        "ok": Style(w("cache_ok"), OKABE_ITO["blue"], "circle", "", 1.0, 0.7),
        "bad": Style(w("cache_bad"), OKABE_ITO["vermillion"], "triangle", "", 1.0, 0.95),
    }
    marks = [
        Mark(
            ((p.first.ttft_ms, p.second.ttft_ms),),
            "ok" if p.ok else "bad",
            w(
                "cache_tooltip",
                id=p.id,
                first=fmt(p.first.ttft_ms),
                first_n=p.first.prompt_n,
                second=fmt(p.second.ttft_ms),
                second_n=p.second.prompt_n,
            ),
            ctx.href(p.id),
        )
        for p in points
    ]
    guides = [
        Guide(((both.lo, both.lo), (both.hi, both.hi)), w("cache_same")),
        Guide(((both.lo, both.lo / 10), (both.hi, both.hi / 10)), w("cache_tenfold")),
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
    points = cancel_points(ctx.students)
    x = log_axis(w("cancel_x"), [p.run.slot_idle_after_ms for p in points], floor=0.1)
    rows = {
        "freed": Style(w("cancel_freed"), OKABE_ITO["blue"], "circle"),
        "busy": Style(w("cancel_busy"), OKABE_ITO["vermillion"], "triangle"),
    }
    if any(p.status == "other" for p in points):
        rows["other"] = Style(w("cancel_other"), OKABE_ITO["grey"], "diamond")
    marks = [
        StripMark(
            p.run.slot_idle_after_ms,
            p.status,
            w(
                "cancel_tooltip",
                id=p.id,
                idle=fmt(p.run.slot_idle_after_ms),
                closed=fmt(p.run.closed_at_ms),
                received=p.run.received_tokens,
                max_tokens=p.run.max_tokens,
            ),
            p.id,
            ctx.href(p.id),
        )
        for p in points
    ]
    off = sum(1 for p in points if not x.contains(p.run.slot_idle_after_ms))
    svg = strip_chart(
        "chart-cancel",
        w("cancel_title"),
        x,
        rows,
        marks,
        description=w("cancel_desc"),
        width=HALF_WIDTH,
    )
    return ctx.figure(svg, w("cancel_desc"), len(points), off)


def render(ctx: PageContext) -> str:
    """The section's body: the three charts, or why there are none."""
    w = _words(ctx)
    if all(physics_of(s).empty for s in ctx.graded):
        return f'<p class="muted">{esc(w("physics_none"))}</p>'
    return (
        f"<p>{esc(w('physics_intro'))}</p>"
        + _prefill_chart(ctx)
        + '<div class="pair">'
        + _cache_chart(ctx)
        + _cancel_chart(ctx)
        + "</div>"
    )


SECTION = Section("physics", "class_report.physics.physics", render)
"""The lab's physics across the class, after the pass rates (`CLASS_REPORT.sections`)."""
