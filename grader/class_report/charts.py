"""Static SVG charts for the instructor's class report, drawn by our own code.

Why our own code and not a plotting library: the report needs four kinds of plot
(histogram, horizontal stacked bars, points joined by lines on linear or logarithmic
axes, a strip of points on one axis) with a few hundred marks; a library would be a
dependency and seconds of import time for that. Each function returns one `<svg>` element
as text, to sit inline in an HTML page, with no script, no font and no external reference:

- every chart has a title, axis labels with units and a legend; the `<svg>` carries
  `role="img"` with `<title>`/`<desc>`, and each mark its own `<title>` (the browser's
  tooltip) naming the student and the numbers, and links to `href` when given;
- colours are the Okabe–Ito palette, told apart with the common colour-vision
  deficiencies, and marks that must be told apart also differ in shape or dash, so a
  grey printout still separates them;
- a value outside the axis (a hostile 1e99, a zero on a logarithmic axis) is drawn hollow
  at the axis edge instead of squashing everyone else into a corner (`Axis.contains`
  tells the caller how many, to say so under the chart);
- all text is escaped here: students choose their ids and some of the message text;
  control characters and bidirectional overrides are replaced;
- same input, same bytes: coordinates are printed with one decimal and nothing is random
  (the strip chart's jitter is a hash of each mark's key).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Mapping, Sequence

from grader.class_report.axes import Axis, x_axis, y_axis
from grader.class_report.svg import (
    INK,
    OKABE_ITO,
    THRESHOLD,
    Bin,
    CountLabels,
    Guide,
    Mark,
    StripMark,
    Style,
    at,
    clip_end,
    draw_legend,
    esc,
    fmt,
    linked,
    mark_size,
    open_svg,
    shape,
    text_width,
)

# --------------------------------------------------------------------------- charts


def xy_chart(
    chart_id: str,
    title: str,
    x: Axis,
    y: Axis,
    styles: Mapping[str, Style],
    marks: Sequence[Mark],
    *,
    guides: Sequence[Guide] = (),
    description: str = "",
    width: int = 960,
    height: int = 460,
) -> str:
    """Points (joined by a line when a mark has several) on two numeric axes.

    Marks are drawn style by style in the order of `styles` (put the ones that must stand
    out last, so they are on top); a point outside an axis is drawn hollow at its edge."""
    legend, legend_height = draw_legend(styles, 74, 44, width - 90)
    left, right = 74.0, width - 30.0
    top, bottom = 44 + legend_height + 6, height - 52.0
    out = [open_svg(chart_id, title, description, width, height), legend]
    out.append(x_axis(x, left, right, bottom, top) + y_axis(y, left, right, bottom, top))
    counts = CountLabels()
    clip = esc(f"{chart_id}-clip")
    out.append(
        f'<clipPath id="{clip}"><rect x="{at(left)}" y="{at(top)}" '
        f'width="{at(right - left)}" height="{at(bottom - top)}"/></clipPath>'
    )

    def place(px: float, py: float) -> tuple[float, float]:
        return left + x.fraction(px) * (right - left), bottom - y.fraction(py) * (bottom - top)

    for mark in marks:
        grow = 1 + math.log10(max(mark.count, 1))
        size = mark_size(mark.count) if len(mark.points) == 1 else 4.2 * (1 + (grow - 1) / 2)
        for point in mark.points:
            counts.block(*place(*point), size)
    for guide in guides:
        pts = [
            (
                left + x.fraction(px, clamp=False) * (right - left),
                bottom - y.fraction(py, clamp=False) * (bottom - top),
            )
            for px, py in guide.points
        ]
        coords = " ".join(f"{at(a)},{at(b)}" for a, b in pts)
        label = ""
        end = clip_end(pts[-2], pts[-1], (left, top, right, bottom)) if len(pts) > 1 else None
        upright = len(pts) == 2 and abs(pts[0][0] - pts[1][0]) < 0.5
        if upright and left <= pts[0][0] <= right:  # a vertical line: its label across the top
            gx = pts[0][0]
            anchor, dx = ("start", 4) if gx < (left + right) / 2 else ("end", -4)
            label = (
                f'<text x="{at(gx + dx)}" y="{at(top + 12)}" text-anchor="{anchor}" '
                f'fill="{guide.colour}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">'
                f"{esc(guide.label)}</text>"
            )
            end = None
        if end is not None:  # the label runs along the line, ending where it leaves the plot
            (ax, ay), (ex, ey) = pts[-2], end
            angle = math.degrees(math.atan2(ey - ay, ex - ax))
            label = (
                f'<text x="{at(ex)}" y="{at(ey)}" dx="-6" dy="-5" text-anchor="end" '
                f'transform="rotate({angle:.1f} {at(ex)} {at(ey)})" fill="{guide.colour}" '
                f'stroke="#FFFFFF" stroke-width="3" paint-order="stroke">{esc(guide.label)}</text>'
            )
        out.append(
            f'<g class="guide"><polyline points="{coords}" fill="none" stroke="{guide.colour}" '
            f'stroke-width="1.5" stroke-dasharray="{guide.dash}" clip-path="url(#{clip})"/>'
            f"{label}</g>"
        )
    for key, style in styles.items():
        for mark in (m for m in marks if m.style == key):
            pts = [place(px, py) for px, py in mark.points]
            inner = []
            grow = 1 + math.log10(max(mark.count, 1))
            if len(pts) > 1:
                coords = " ".join(f"{at(a)},{at(b)}" for a, b in pts)
                dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
                inner.append(
                    f'<polyline points="{coords}" fill="none" stroke="{style.colour}" '
                    f'stroke-width="{style.line_width * grow:.1f}" '
                    f'stroke-opacity="{style.opacity}"{dash}/>'
                )
            size = mark_size(mark.count) if len(pts) == 1 else 4.2 * (1 + (grow - 1) / 2)
            for (px, py), (sx, sy) in zip(mark.points, pts, strict=True):
                hollow = not (x.contains(px) and y.contains(py))
                inner.append(shape(style.shape, sx, sy, style.colour, hollow, size))
            if pts:
                inner.append(counts.place(mark.count, *pts[-1], size))
            out.append(linked("".join(inner), mark.tooltip, mark.href))
    out.append("</svg>")
    return "".join(out)


def _jitter(key: str) -> float:
    """A fixed pseudo-random fraction in [0, 1) for `key` (same key, same place)."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def strip_chart(
    chart_id: str,
    title: str,
    x: Axis,
    rows: Mapping[str, Style],
    marks: Sequence[StripMark],
    *,
    description: str = "",
    width: int = 960,
    row_height: int = 70,
    guides: Sequence[tuple[float, str]] = (),
) -> str:
    """One value per mark along `x`, in labelled rows (one row per style), jittered
    vertically within the row so that near values stay visible (a mark for several
    students sits in the row's middle, larger, with their number); `guides` are vertical
    thresholds (value, label), labelled in a band of their own above the rows."""
    left, right = 30.0, width - 30.0
    top = 40.0 + (18.0 if guides else 0.0)
    height = int(top + len(rows) * (row_height + 18) + 56)
    bottom = height - 52.0
    out = [open_svg(chart_id, title, description, width, height)]
    out.append(x_axis(x, left, right, bottom, top))
    counts = CountLabels()
    for value, label in guides:
        gx = left + x.fraction(value) * (right - left)
        half = text_width(label) / 2
        lx = min(max(gx, left + half), right - half)
        out.append(
            f'<g class="guide"><line x1="{at(gx)}" y1="{at(top - 4)}" x2="{at(gx)}" '
            f'y2="{at(bottom)}" stroke="{THRESHOLD[0]}" stroke-width="1.5" '
            f'stroke-dasharray="{THRESHOLD[1]}"/><text x="{at(lx)}" y="{at(top - 8)}" '
            f'text-anchor="middle" fill="{THRESHOLD[0]}">{esc(label)}</text></g>'
        )
    for number, (key, style) in enumerate(rows.items()):
        band = top + number * (row_height + 18)
        out.append(
            shape(style.shape, left + 6, band + 12, style.colour, False)
            + f'<text x="{at(left + 16)}" y="{at(band + 16)}" font-weight="bold">'
            f"{esc(style.label)}</text>"
        )
        lane_top, lane_height = band + 26, row_height - 14
        spots = []
        for mark in (m for m in marks if m.row == key):
            sx = left + x.fraction(mark.value) * (right - left)
            if mark.count > 1:  # one mark for many students: in the lane's middle, larger
                sy, size = lane_top + lane_height / 2, mark_size(mark.count)
            else:
                sy, size = lane_top + _jitter(mark.key) * lane_height, 4.2
            spots.append((mark, sx, sy, size))
            counts.block(sx, sy, size)
        for mark, sx, sy, size in spots:
            hollow = not x.contains(mark.value)
            dot = shape(style.shape, sx, sy, style.colour, hollow, size)
            out.append(
                linked(dot + counts.place(mark.count, sx, sy, size), mark.tooltip, mark.href)
            )
    out.append("</svg>")
    return "".join(out)


def _nice_count_axis(label: str, peak: int, headroom: float = 1.15) -> Axis:
    """A count axis from 0 with whole, round ticks and room above the tallest bar for
    its label."""
    top = max(peak * headroom, 1.0)
    step = (
        next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500) if top / s <= 6)
        if top <= 3000
        else 10 ** math.ceil(math.log10(top / 6))
    )
    hi = math.ceil(top / step) * step
    return Axis(label, 0.0, float(hi), tuple(float(t) for t in range(0, int(hi) + 1, int(step))))


def _spaced(positions: Sequence[tuple[float, float, bool]], gap: float = 6.0) -> list[int]:
    """Which of the labels (centre, width, must) to draw so that none overlaps: every
    `must` one, then the others from the left whenever they clear their neighbours."""
    chosen = [i for i, (_, _, must) in enumerate(positions) if must]

    def clear(i: int) -> bool:
        x, w, _ = positions[i]
        return all(abs(x - positions[j][0]) >= (w + positions[j][1]) / 2 + gap for j in chosen)

    step = 1
    while step < len(positions):
        picked = [i for i in range(0, len(positions), step) if not positions[i][2]]
        if all(
            abs(positions[a][0] - positions[b][0]) >= (positions[a][1] + positions[b][1]) / 2 + gap
            for a, b in itertools.pairwise(picked)
        ):
            break
        step = next(s for s in (2, 5, 10, 20, 50, 100, 1000, len(positions)) if s > step)
    for i in range(0, len(positions), step):
        if not positions[i][2] and clear(i):
            chosen.append(i)
    return sorted(chosen)


def histogram_chart(
    chart_id: str,
    title: str,
    x_label: str,
    y_label: str,
    bins: Sequence[Bin],
    style: Style,
    *,
    markers: Sequence[tuple[float, str]] = (),
    description: str = "",
    width: int = 960,
    height: int = 360,
    center_labels: bool = False,
) -> str:
    """Counts per bin as bars side by side, each bin one slot wide: a bin with `lo ==
    hi` (full marks) is a slot like the others, a `gap` bin (a long run of empty bins) a
    break in the axis. Each count sits above its bar, turned upright when it is wider than
    the bar, so no two labels overlap. `center_labels`: each bar's `label` under it (one
    bar per value), thinned so that none overlaps, the first and the last always kept;
    else each bin's lower edge as a tick. `markers` are vertical reference lines (value,
    label) drawn behind the bars, their labels in a band of their own above them."""
    left, right, top, bottom = 64.0, width - 24.0, 66.0, height - 52.0
    slots = max(len(bins), 1)
    slot = (right - left) / slots
    y = _nice_count_axis(y_label, max((b.count for b in bins), default=0))
    out = [open_svg(chart_id, title, description, width, height)]
    out.append(y_axis(y, left, right, bottom, top))

    def place(value: float) -> float:
        """A value's x: its bin's slot, in proportion within the bin."""
        for index, b in enumerate(bins):
            if b.lo == b.hi and value >= b.lo:
                return left + (index + 0.5) * slot
            if b.lo <= value < b.hi:
                return left + (index + (value - b.lo) / (b.hi - b.lo)) * slot
        return right if bins and value >= bins[-1].lo else left

    def label_top(index: int) -> float:
        """Where the count above bar `index` begins (its top), or the axis if none."""
        b = bins[index]
        if b.gap or not b.count:
            return bottom
        h = y.fraction(b.count) * (bottom - top)
        upright = text_width(str(b.count), 11) > max(slot - 2, 1) + 1
        return bottom - h - 4 - (text_width(str(b.count), 11) if upright else 11)

    for value, label in markers:
        mx = place(value)
        half = text_width(label) / 2
        lx = min(max(mx, left + half), right - half)
        # the line stops above the count of the bar it falls on: it never crosses a label
        y2 = label_top(min(max(int((mx - left) // slot), 0), slots - 1)) - 3 if bins else bottom
        out.append(
            f'<g class="guide"><line x1="{at(mx)}" y1="{at(top - 4)}" x2="{at(mx)}" '
            f'y2="{at(max(y2, top))}" stroke="{OKABE_ITO["vermillion"]}" stroke-width="1.5" '
            f'stroke-dasharray="5 3"/><text x="{at(lx)}" y="{at(top - 8)}" text-anchor="middle" '
            f'fill="{OKABE_ITO["vermillion"]}">{esc(label)}</text></g>'
        )
    labels: list[tuple[float, float, bool]] = []
    names: list[str] = []
    ticks: list[tuple[float, str, bool]] = []
    for index, b in enumerate(bins):
        x0 = left + index * slot
        centre, bar = x0 + slot / 2, max(slot - 2, 1)
        last = index == len(bins) - 1
        if b.gap:  # the axis is broken here: two slanted strokes across it
            out.append(
                linked(
                    "".join(
                        f'<line x1="{at(centre + dx - 4)}" y1="{at(bottom + 6)}" '
                        f'x2="{at(centre + dx + 4)}" y2="{at(bottom - 6)}" stroke="{INK}"/>'
                        for dx in (-3, 3)
                    ),
                    b.tooltip,
                    "",
                    "gap",
                )
            )
        elif center_labels or b.lo == b.hi:
            labels.append((centre, text_width(b.label), index == 0 or last))
            names.append(b.label)
        if not (center_labels or b.lo == b.hi or b.gap):
            ticks.append((x0, fmt(b.lo), index == 0))
        if b.gap or not b.count:
            continue
        h = y.fraction(b.count) * (bottom - top)
        count = str(b.count)
        if text_width(count, 11) <= bar + 1:
            text = (
                f'<text x="{at(centre)}" y="{at(bottom - h - 4)}" text-anchor="middle" '
                f'font-size="11">{count}</text>'
            )
        else:  # upright, from the bar's top: it can't reach its neighbours' labels
            tx, ty = centre + 4, bottom - h - 4
            text = (
                f'<text x="{at(tx)}" y="{at(ty)}" font-size="11" '
                f'transform="rotate(-90 {at(tx)} {at(ty)})">{count}</text>'
            )
        rect = (
            f'<rect x="{at(x0 + 1)}" y="{at(bottom - h)}" width="{at(bar)}" '
            f'height="{at(h)}" fill="{style.colour}"/>'
        )
        out.append(linked(rect + text, b.tooltip, b.href, "bar"))
    drawn = []
    for index in _spaced(labels):
        drawn.append(
            f'<text x="{at(labels[index][0])}" y="{at(bottom + 18)}" '
            f'text-anchor="middle">{esc(names[index])}</text>'
        )
    spots = [(x, text_width(text), must) for x, text, must in ticks]
    for index in _spaced(spots):
        x, text, _ = ticks[index]
        drawn.append(
            f'<line x1="{at(x)}" y1="{at(bottom)}" x2="{at(x)}" y2="{at(bottom + 4)}" '
            f'stroke="{INK}"/><text x="{at(x)}" y="{at(bottom + 18)}" '
            f'text-anchor="middle">{esc(text)}</text>'
        )
    out.append(
        "".join(drawn)
        + f'<line x1="{at(left)}" y1="{at(bottom)}" x2="{at(right)}" y2="{at(bottom)}" '
        f'stroke="{INK}"/><text class="axis-label" x="{at((left + right) / 2)}" '
        f'y="{at(bottom + 38)}" text-anchor="middle" font-size="13">{esc(x_label)}</text>'
    )
    out.append("</svg>")
    return "".join(out)
