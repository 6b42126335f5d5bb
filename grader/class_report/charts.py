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
import math
from collections.abc import Mapping, Sequence

from grader.class_report.svg import (
    OKABE_ITO,
    Axis,
    BarRow,
    Bin,
    Guide,
    Mark,
    StripMark,
    Style,
    at,
    clip_end,
    draw_legend,
    esc,
    linear_axis,
    linked,
    open_svg,
    shape,
    x_axis,
    y_axis,
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
    clip = esc(f"{chart_id}-clip")
    out.append(
        f'<clipPath id="{clip}"><rect x="{at(left)}" y="{at(top)}" '
        f'width="{at(right - left)}" height="{at(bottom - top)}"/></clipPath>'
    )

    def place(px: float, py: float) -> tuple[float, float]:
        return left + x.fraction(px) * (right - left), bottom - y.fraction(py) * (bottom - top)

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
        if end is not None:  # the label runs along the line, ending where it leaves the plot
            (ax, ay), (ex, ey) = pts[-2], end
            angle = math.degrees(math.atan2(ey - ay, ex - ax))
            label = (
                f'<text x="{at(ex)}" y="{at(ey)}" dx="-6" dy="-5" text-anchor="end" '
                f'transform="rotate({angle:.1f} {at(ex)} {at(ey)})" fill="#444444">'
                f"{esc(guide.label)}</text>"
            )
        out.append(
            f'<g class="guide"><polyline points="{coords}" fill="none" stroke="#666666" '
            f'stroke-dasharray="6 4" clip-path="url(#{clip})"/>{label}</g>'
        )
    for key, style in styles.items():
        for mark in (m for m in marks if m.style == key):
            pts = [place(px, py) for px, py in mark.points]
            inner = []
            if len(pts) > 1:
                coords = " ".join(f"{at(a)},{at(b)}" for a, b in pts)
                dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
                inner.append(
                    f'<polyline points="{coords}" fill="none" stroke="{style.colour}" '
                    f'stroke-width="{style.line_width}" stroke-opacity="{style.opacity}"{dash}/>'
                )
            for (px, py), (sx, sy) in zip(mark.points, pts, strict=True):
                hollow = not (x.contains(px) and y.contains(py))
                inner.append(shape(style.shape, sx, sy, style.colour, hollow))
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
) -> str:
    """One value per mark along `x`, in labelled rows (one row per style), jittered
    vertically within the row so that equal values stay visible."""
    left, right = 30.0, width - 30.0
    top = 40.0
    height = int(top + len(rows) * (row_height + 18) + 56)
    bottom = height - 52.0
    out = [open_svg(chart_id, title, description, width, height)]
    out.append(x_axis(x, left, right, bottom, top))
    for number, (key, style) in enumerate(rows.items()):
        band = top + number * (row_height + 18)
        out.append(
            shape(style.shape, left + 6, band + 12, style.colour, False)
            + f'<text x="{at(left + 16)}" y="{at(band + 16)}" font-weight="bold">'
            f"{esc(style.label)}</text>"
        )
        lane_top, lane_height = band + 26, row_height - 14
        for mark in (m for m in marks if m.row == key):
            sx = left + x.fraction(mark.value) * (right - left)
            sy = lane_top + _jitter(mark.key) * lane_height
            dot = shape(style.shape, sx, sy, style.colour, not x.contains(mark.value))
            out.append(linked(dot, mark.tooltip, mark.href))
    out.append("</svg>")
    return "".join(out)


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
) -> str:
    """Counts per bin as bars over a numeric x axis whose ticks are the bin edges;
    `markers` are vertical reference lines (value, label), e.g. the median."""
    left, right, top, bottom = 64.0, width - 24.0, 46.0, height - 52.0
    peak = max((b.count for b in bins), default=0)
    y = linear_axis(y_label, [float(peak)], count=4)
    if peak and y.ticks[1] - y.ticks[0] < 1:  # counts are whole numbers
        y = Axis(y_label, 0.0, float(max(peak, 1)), (0.0, float(max(peak, 1))))
    edges = [b.lo for b in bins] + ([bins[-1].hi] if bins else [])
    lo, hi = (edges[0], edges[-1]) if edges else (0.0, 1.0)
    every = max(1, math.ceil(len(edges) / 16))
    ticks = tuple(e for i, e in enumerate(edges) if i % every == 0 or i == len(edges) - 1)
    x = Axis(x_label, lo, hi if hi > lo else lo + 1, ticks)
    out = [open_svg(chart_id, title, description, width, height)]
    out.append(y_axis(y, left, right, bottom, top) + x_axis(x, left, right, bottom, top))
    for b in bins:
        x0 = left + x.fraction(b.lo) * (right - left)
        x1 = left + x.fraction(b.hi) * (right - left)
        h = y.fraction(b.count) * (bottom - top)
        if b.count:
            bar = (
                f'<rect x="{at(x0 + 1)}" y="{at(bottom - h)}" width="{at(max(x1 - x0 - 2, 1))}" '
                f'height="{at(h)}" fill="{style.colour}"/>'
                f'<text x="{at((x0 + x1) / 2)}" y="{at(bottom - h - 4)}" text-anchor="middle" '
                f'font-size="11">{b.count}</text>'
            )
            out.append(linked(bar, b.tooltip, b.href, "bar"))
    for value, label in markers:
        mx = left + x.fraction(value) * (right - left)
        out.append(
            f'<g class="guide"><line x1="{at(mx)}" y1="{at(top)}" x2="{at(mx)}" y2="{at(bottom)}" '
            f'stroke="{OKABE_ITO["vermillion"]}" stroke-width="1.5" stroke-dasharray="5 3"/>'
            f'<text x="{at(mx - 4)}" y="{at(top + 12)}" text-anchor="end" '
            f'fill="{OKABE_ITO["vermillion"]}">{esc(label)}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)


def bar_chart(
    chart_id: str,
    title: str,
    x_label: str,
    styles: Mapping[str, Style],
    rows: Sequence[BarRow],
    *,
    y_label: str = "",
    description: str = "",
    width: int = 960,
    row_height: int = 18,
) -> str:
    """Horizontal 100 % stacked bars, one row per item, labelled on the left (monospace,
    shortened past 34 characters; `y_label` heads that column) with `note` on the right;
    a row links to `href`."""
    longest = max((min(len(r.label), 34) for r in rows), default=8)
    left = 16 + 7.3 * longest
    right = width - 150.0
    legend, legend_height = draw_legend(styles, left, 44, right - left)
    top = 44 + legend_height + 4
    bottom = top + max(len(rows), 1) * row_height
    height = int(bottom + 50)
    axis = Axis(x_label, 0.0, 100.0, (0.0, 25.0, 50.0, 75.0, 100.0))
    out = [open_svg(chart_id, title, description, width, height), legend]
    out.append(x_axis(axis, left, right, bottom, top))
    if y_label:
        out.append(
            f'<text class="axis-label" x="{at(left - 6)}" y="{at(top - 8)}" text-anchor="end" '
            f'font-size="13">{esc(y_label)}</text>'
        )
    for number, row in enumerate(rows):
        y0 = top + number * row_height
        label = row.label if len(row.label) <= 34 else row.label[:33] + "…"
        parts = [
            f'<text x="{at(left - 6)}" y="{at(y0 + row_height - 5)}" text-anchor="end" '
            f'font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12" '
            f'class="bar-label">{esc(label)}</text>'
        ]
        start = 0
        for key, amount in row.segments:
            if amount <= 0 or row.total <= 0:
                continue
            x0 = left + start / row.total * (right - left)
            w = amount / row.total * (right - left)
            parts.append(
                f'<rect x="{at(x0)}" y="{at(y0 + 2)}" width="{at(w)}" '
                f'height="{at(row_height - 4)}" fill="{styles[key].colour}"/>'
            )
            start += amount
        parts.append(
            f'<text x="{at(right + 6)}" y="{at(y0 + row_height - 5)}">{esc(row.note)}</text>'
        )
        out.append(linked("".join(parts), row.tooltip, row.href, "bar"))
    out.append("</svg>")
    return "".join(out)
