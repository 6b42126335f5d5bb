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
import html
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from grader.numbers import quantile
from grader.visible import visible

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}
INK = "#222222"
GRID = "#DDDDDD"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans CJK JP', sans-serif"


def clean(text: object) -> str:
    """`text` as a string that is safe to show: C0/C1 controls (but tab and newline), the
    bidirectional overrides and isolates (which would let a student id display as
    something else) and undecodable bytes become visible escapes (`grader.visible`),
    so the instructor sees what the student's file held."""
    return visible(str(text), keep_newlines=True)


def esc(text: object) -> str:
    """Escape for HTML/SVG text and attribute values (both quotes too)."""
    return html.escape(clean(text), quote=True)


def fmt(value: float) -> str:
    """A number as a tick or tooltip shows it: 0.93, 12.3, 192.8, 9336, 1e+99."""
    if not math.isfinite(value):
        return str(value)
    magnitude = abs(value)
    if magnitude >= 1e7 or (0 < magnitude < 0.01):
        return f"{value:.3g}"
    if float(value).is_integer():
        return str(int(value))
    if magnitude >= 1000:
        text = f"{value:.0f}"
    elif magnitude >= 100:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _c(value: float) -> str:
    """A coordinate: one decimal, no `-0.0`."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


# --------------------------------------------------------------------------- axes


@dataclass(frozen=True)
class Axis:
    """A numeric axis: its label (with the unit), its range and its ticks."""

    label: str
    lo: float
    hi: float
    ticks: tuple[float, ...]
    log: bool = False

    def contains(self, value: float) -> bool:
        return math.isfinite(value) and self.lo <= value <= self.hi

    def fraction(self, value: float, *, clamp: bool = True) -> float:
        """Where `value` falls, 0 at `lo` and 1 at `hi` (clamped to [0, 1] unless not
        `clamp`: reference lines run past the plot and are clipped by it)."""
        if not math.isfinite(value):
            return 1.0 if value > 0 else 0.0
        if self.log:
            if value <= 0:
                return 0.0
            span = math.log10(self.hi) - math.log10(self.lo)
            share = (math.log10(value) - math.log10(self.lo)) / span
        else:
            share = (value - self.lo) / (self.hi - self.lo)
        return min(max(share, 0.0), 1.0) if clamp else share


def _nice_step(raw: float) -> float:
    exponent = math.floor(math.log10(raw))
    base = 10.0**exponent
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * base * (1 + 1e-9):
            return factor * base
    return 10 * base  # pragma: no cover - the loop ends at 10


def _typical(values: Sequence[float], spread: float) -> tuple[float, float]:
    """(lowest, highest) of the positive `values` without absurd outliers: a value more than
    `spread` times above (or below) the median is left out of the range (and drawn at the
    edge), so one hostile 1e99 does not squash the whole class into a corner."""
    ordered = sorted(values)
    middle = quantile(ordered, 0.5)
    kept = [v for v in ordered if middle / spread <= v <= middle * spread] or ordered
    return kept[0], kept[-1]


def linear_axis(
    label: str,
    values: Sequence[float],
    *,
    include_zero: bool = True,
    count: int = 5,
    spread: float = 20.0,
) -> Axis:
    """A linear axis over `values` with round ticks (a far outlier is left off it)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Axis(label, 0.0, 1.0, (0.0, 0.5, 1.0))
    positive = [v for v in finite if v > 0]
    low, high = _typical(positive, spread) if positive else (min(finite), max(finite))
    low = min(low, min(finite))
    if include_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if high <= low:
        high = low + 1.0
    step = _nice_step((high - low) / count)
    lo = math.floor(low / step + 1e-9) * step
    hi = math.ceil(high / step - 1e-9) * step
    if hi <= lo:
        hi = lo + step
    steps = round((hi - lo) / step)
    ticks = tuple(round(lo + i * step, 10) for i in range(steps + 1))
    return Axis(label, ticks[0], ticks[-1], ticks)


def log_axis(
    label: str, values: Sequence[float], *, floor: float = 0.01, spread: float = 1e6
) -> Axis:
    """A logarithmic axis in whole decades over the positive `values` (at least `floor`);
    zeros and far outliers are left off it (drawn at the edge)."""
    positive = [v for v in values if math.isfinite(v) and v > 0]
    if not positive:
        return Axis(label, 1.0, 1000.0, (1.0, 10.0, 100.0, 1000.0), log=True)
    low, high = _typical(positive, spread)
    low = max(low, floor)
    high = max(high, low)
    first = math.floor(math.log10(low) + 1e-9)
    last = math.ceil(math.log10(high) - 1e-9)
    if last <= first:
        last = first + 1
    every = 1 if last - first <= 7 else 2
    ticks: list[float] = []
    for exponent in range(first, last + 1, every):
        ticks.append(10.0**exponent)
        if last - first <= 2 and exponent < last:
            ticks.extend((2 * 10.0**exponent, 5 * 10.0**exponent))
    return Axis(label, 10.0**first, 10.0**last, tuple(sorted(ticks)), log=True)


# --------------------------------------------------------------------------- marks


@dataclass(frozen=True)
class Style:
    """How one kind of mark looks, and its legend text."""

    label: str
    colour: str
    shape: str = "circle"  # circle, triangle, square, diamond
    dash: str = ""  # stroke-dasharray of the joining line, "" for solid
    line_width: float = 1.2
    opacity: float = 0.75


@dataclass(frozen=True)
class Mark:
    """One student's mark: one point, or several joined by a line in the given order."""

    points: tuple[tuple[float, float], ...]
    style: str
    tooltip: str
    href: str = ""


@dataclass(frozen=True)
class Guide:
    """A reference line in data coordinates, e.g. y = x, with a short label at its end."""

    points: tuple[tuple[float, float], ...]
    label: str


@dataclass(frozen=True)
class StripMark:
    """One value on a strip chart, in one of its rows; `key` seeds the vertical jitter."""

    value: float
    row: str
    tooltip: str
    key: str
    href: str = ""


@dataclass(frozen=True)
class Bin:
    """One histogram bar: [lo, hi) (the last bin includes hi) and its count."""

    lo: float
    hi: float
    count: int
    tooltip: str = ""
    href: str = ""


@dataclass(frozen=True)
class BarRow:
    """One horizontal stacked bar: segments (style, amount) out of `total`."""

    label: str
    segments: tuple[tuple[str, int], ...]
    total: int
    note: str
    tooltip: str
    href: str = ""


def _shape(shape: str, x: float, y: float, colour: str, hollow: bool, size: float = 4.2) -> str:
    fill = "#FFFFFF" if hollow else colour
    paint = f'fill="{fill}" stroke="{colour}" stroke-width="1.3"'
    if shape == "triangle":
        h = size * 1.25
        pts = f"{_c(x)},{_c(y - h)} {_c(x - h)},{_c(y + h * 0.8)} {_c(x + h)},{_c(y + h * 0.8)}"
        return f'<polygon points="{pts}" {paint}/>'
    if shape == "square":
        s = size * 0.9
        return (
            f'<rect x="{_c(x - s)}" y="{_c(y - s)}" width="{_c(2 * s)}" height="{_c(2 * s)}" '
            f"{paint}/>"
        )
    if shape == "diamond":
        d = size * 1.3
        pts = f"{_c(x)},{_c(y - d)} {_c(x + d)},{_c(y)} {_c(x)},{_c(y + d)} {_c(x - d)},{_c(y)}"
        return f'<polygon points="{pts}" {paint}/>'
    return f'<circle cx="{_c(x)}" cy="{_c(y)}" r="{_c(size)}" {paint}/>'


def _linked(inner: str, tooltip: str, href: str, css: str = "mark") -> str:
    body = f"<title>{esc(tooltip)}</title>{inner}"
    if href:
        return f'<a class="{css}" href="{esc(href)}">{body}</a>'
    return f'<g class="{css}">{body}</g>'


def _open(chart_id: str, title: str, description: str, width: int, height: int) -> str:
    cid = esc(chart_id)
    return (
        f'<svg class="chart" id="{cid}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-labelledby="{cid}-title {cid}-desc" font-family="{esc(FONT)}" font-size="12" '
        f'fill="{INK}">'
        f'<title id="{cid}-title">{esc(title)}</title>'
        f'<desc id="{cid}-desc">{esc(description or title)}</desc>'
        f'<text x="12" y="22" font-size="15" font-weight="bold">{esc(title)}</text>'
    )


def text_width(text: str, size: float = 12.0) -> float:
    """About how wide `text` is drawn at font `size`: East Asian wide characters take about
    a full em, others a bit more than half of one (no font metrics without a browser)."""
    ems = sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.56 for ch in text)
    return ems * size


def _legend(styles: Mapping[str, Style], x: float, y: float, width: float) -> tuple[str, float]:
    """Legend entries in rows starting at (x, y); returns the SVG and the height used."""
    parts: list[str] = []
    cx, cy = x, y
    for style in styles.values():
        item = 34 + text_width(style.label) + 18
        if cx > x and cx + item > x + width:
            cx, cy = x, cy + 18
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        line = (
            f'<line x1="{_c(cx)}" y1="{_c(cy)}" x2="{_c(cx + 24)}" y2="{_c(cy)}" '
            f'stroke="{style.colour}" stroke-width="{style.line_width + 0.6:.1f}"{dash}/>'
            if style.line_width > 0
            else ""
        )
        parts.append(
            line
            + _shape(style.shape, cx + 12, cy, style.colour, False)
            + f'<text x="{_c(cx + 30)}" y="{_c(cy + 4)}">{esc(style.label)}</text>'
        )
        cx += item
    return "".join(parts), cy - y + 18


def _clip_end(
    start: tuple[float, float], end: tuple[float, float], box: tuple[float, float, float, float]
) -> tuple[float, float] | None:
    """The last point of the segment start→end inside box (left, top, right, bottom), or
    None when the segment misses the box (Liang–Barsky)."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    left, top, right, bottom = box
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0:
            if q < 0:
                return None
            continue
        r = q / p
        if p < 0:
            low = max(low, r)
        else:
            high = min(high, r)
        if low > high:
            return None
    return x0 + high * dx, y0 + high * dy


def _x_axis(axis: Axis, left: float, right: float, bottom: float, top: float) -> str:
    out = []
    for tick in axis.ticks:
        x = left + axis.fraction(tick) * (right - left)
        out.append(
            f'<line x1="{_c(x)}" y1="{_c(top)}" x2="{_c(x)}" y2="{_c(bottom)}" stroke="{GRID}"/>'
            f'<text x="{_c(x)}" y="{_c(bottom + 16)}" text-anchor="middle">{esc(fmt(tick))}</text>'
        )
    out.append(
        f'<line x1="{_c(left)}" y1="{_c(bottom)}" x2="{_c(right)}" y2="{_c(bottom)}" '
        f'stroke="{INK}"/>'
        f'<text class="axis-label" x="{_c((left + right) / 2)}" y="{_c(bottom + 38)}" '
        f'text-anchor="middle" font-size="13">{esc(axis.label)}</text>'
    )
    return "".join(out)


def _y_axis(axis: Axis, left: float, right: float, bottom: float, top: float) -> str:
    out = []
    for tick in axis.ticks:
        y = bottom - axis.fraction(tick) * (bottom - top)
        out.append(
            f'<line x1="{_c(left)}" y1="{_c(y)}" x2="{_c(right)}" y2="{_c(y)}" stroke="{GRID}"/>'
            f'<text x="{_c(left - 6)}" y="{_c(y + 4)}" text-anchor="end">{esc(fmt(tick))}</text>'
        )
    middle = (top + bottom) / 2
    out.append(
        f'<line x1="{_c(left)}" y1="{_c(top)}" x2="{_c(left)}" y2="{_c(bottom)}" stroke="{INK}"/>'
        f'<text class="axis-label" x="16" y="{_c(middle)}" text-anchor="middle" font-size="13" '
        f'transform="rotate(-90 16 {_c(middle)})">{esc(axis.label)}</text>'
    )
    return "".join(out)


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
    legend, legend_height = _legend(styles, 74, 44, width - 90)
    left, right = 74.0, width - 30.0
    top, bottom = 44 + legend_height + 6, height - 52.0
    out = [_open(chart_id, title, description, width, height), legend]
    out.append(_x_axis(x, left, right, bottom, top) + _y_axis(y, left, right, bottom, top))
    clip = esc(f"{chart_id}-clip")
    out.append(
        f'<clipPath id="{clip}"><rect x="{_c(left)}" y="{_c(top)}" '
        f'width="{_c(right - left)}" height="{_c(bottom - top)}"/></clipPath>'
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
        coords = " ".join(f"{_c(a)},{_c(b)}" for a, b in pts)
        label = ""
        end = _clip_end(pts[-2], pts[-1], (left, top, right, bottom)) if len(pts) > 1 else None
        if end is not None:  # the label runs along the line, ending where it leaves the plot
            (ax, ay), (ex, ey) = pts[-2], end
            angle = math.degrees(math.atan2(ey - ay, ex - ax))
            label = (
                f'<text x="{_c(ex)}" y="{_c(ey)}" dx="-6" dy="-5" text-anchor="end" '
                f'transform="rotate({angle:.1f} {_c(ex)} {_c(ey)})" fill="#444444">'
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
                coords = " ".join(f"{_c(a)},{_c(b)}" for a, b in pts)
                dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
                inner.append(
                    f'<polyline points="{coords}" fill="none" stroke="{style.colour}" '
                    f'stroke-width="{style.line_width}" stroke-opacity="{style.opacity}"{dash}/>'
                )
            for (px, py), (sx, sy) in zip(mark.points, pts, strict=True):
                hollow = not (x.contains(px) and y.contains(py))
                inner.append(_shape(style.shape, sx, sy, style.colour, hollow))
            out.append(_linked("".join(inner), mark.tooltip, mark.href))
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
    out = [_open(chart_id, title, description, width, height)]
    out.append(_x_axis(x, left, right, bottom, top))
    for number, (key, style) in enumerate(rows.items()):
        band = top + number * (row_height + 18)
        out.append(
            _shape(style.shape, left + 6, band + 12, style.colour, False)
            + f'<text x="{_c(left + 16)}" y="{_c(band + 16)}" font-weight="bold">'
            f"{esc(style.label)}</text>"
        )
        lane_top, lane_height = band + 26, row_height - 14
        for mark in (m for m in marks if m.row == key):
            sx = left + x.fraction(mark.value) * (right - left)
            sy = lane_top + _jitter(mark.key) * lane_height
            dot = _shape(style.shape, sx, sy, style.colour, not x.contains(mark.value))
            out.append(_linked(dot, mark.tooltip, mark.href))
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
    out = [_open(chart_id, title, description, width, height)]
    out.append(_y_axis(y, left, right, bottom, top) + _x_axis(x, left, right, bottom, top))
    for b in bins:
        x0 = left + x.fraction(b.lo) * (right - left)
        x1 = left + x.fraction(b.hi) * (right - left)
        h = y.fraction(b.count) * (bottom - top)
        if b.count:
            bar = (
                f'<rect x="{_c(x0 + 1)}" y="{_c(bottom - h)}" width="{_c(max(x1 - x0 - 2, 1))}" '
                f'height="{_c(h)}" fill="{style.colour}"/>'
                f'<text x="{_c((x0 + x1) / 2)}" y="{_c(bottom - h - 4)}" text-anchor="middle" '
                f'font-size="11">{b.count}</text>'
            )
            out.append(_linked(bar, b.tooltip, b.href, "bar"))
    for value, label in markers:
        mx = left + x.fraction(value) * (right - left)
        out.append(
            f'<g class="guide"><line x1="{_c(mx)}" y1="{_c(top)}" x2="{_c(mx)}" y2="{_c(bottom)}" '
            f'stroke="{OKABE_ITO["vermillion"]}" stroke-width="1.5" stroke-dasharray="5 3"/>'
            f'<text x="{_c(mx - 4)}" y="{_c(top + 12)}" text-anchor="end" '
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
    legend, legend_height = _legend(styles, left, 44, right - left)
    top = 44 + legend_height + 4
    bottom = top + max(len(rows), 1) * row_height
    height = int(bottom + 50)
    axis = Axis(x_label, 0.0, 100.0, (0.0, 25.0, 50.0, 75.0, 100.0))
    out = [_open(chart_id, title, description, width, height), legend]
    out.append(_x_axis(axis, left, right, bottom, top))
    if y_label:
        out.append(
            f'<text class="axis-label" x="{_c(left - 6)}" y="{_c(top - 8)}" text-anchor="end" '
            f'font-size="13">{esc(y_label)}</text>'
        )
    for number, row in enumerate(rows):
        y0 = top + number * row_height
        label = row.label if len(row.label) <= 34 else row.label[:33] + "…"
        parts = [
            f'<text x="{_c(left - 6)}" y="{_c(y0 + row_height - 5)}" text-anchor="end" '
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
                f'<rect x="{_c(x0)}" y="{_c(y0 + 2)}" width="{_c(w)}" '
                f'height="{_c(row_height - 4)}" fill="{styles[key].colour}"/>'
            )
            start += amount
        parts.append(
            f'<text x="{_c(right + 6)}" y="{_c(y0 + row_height - 5)}">{esc(row.note)}</text>'
        )
        out.append(_linked("".join(parts), row.tooltip, row.href, "bar"))
    out.append("</svg>")
    return "".join(out)
