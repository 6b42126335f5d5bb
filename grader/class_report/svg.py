"""The drawing pieces of the class report's SVG charts: text, numbers, axes, marks.

`grader.class_report.charts` draws whole charts with these; a lab's own report section
(its charts) uses both. Every text is escaped here (`esc`): students choose their ids and
some of the message text. Same input, same bytes: coordinates are printed with one
decimal (`at`) and nothing is random.
"""

from __future__ import annotations

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


def at(value: float) -> str:
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


def shape(shape: str, x: float, y: float, colour: str, hollow: bool, size: float = 4.2) -> str:
    fill = "#FFFFFF" if hollow else colour
    paint = f'fill="{fill}" stroke="{colour}" stroke-width="1.3"'
    if shape == "triangle":
        h = size * 1.25
        pts = f"{at(x)},{at(y - h)} {at(x - h)},{at(y + h * 0.8)} {at(x + h)},{at(y + h * 0.8)}"
        return f'<polygon points="{pts}" {paint}/>'
    if shape == "square":
        s = size * 0.9
        return (
            f'<rect x="{at(x - s)}" y="{at(y - s)}" width="{at(2 * s)}" height="{at(2 * s)}" '
            f"{paint}/>"
        )
    if shape == "diamond":
        d = size * 1.3
        pts = f"{at(x)},{at(y - d)} {at(x + d)},{at(y)} {at(x)},{at(y + d)} {at(x - d)},{at(y)}"
        return f'<polygon points="{pts}" {paint}/>'
    return f'<circle cx="{at(x)}" cy="{at(y)}" r="{at(size)}" {paint}/>'


def linked(inner: str, tooltip: str, href: str, css: str = "mark") -> str:
    body = f"<title>{esc(tooltip)}</title>{inner}"
    if href:
        return f'<a class="{css}" href="{esc(href)}">{body}</a>'
    return f'<g class="{css}">{body}</g>'


def open_svg(chart_id: str, title: str, description: str, width: int, height: int) -> str:
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


def draw_legend(styles: Mapping[str, Style], x: float, y: float, width: float) -> tuple[str, float]:
    """Legend entries in rows starting at (x, y); returns the SVG and the height used."""
    parts: list[str] = []
    cx, cy = x, y
    for style in styles.values():
        item = 34 + text_width(style.label) + 18
        if cx > x and cx + item > x + width:
            cx, cy = x, cy + 18
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        line = (
            f'<line x1="{at(cx)}" y1="{at(cy)}" x2="{at(cx + 24)}" y2="{at(cy)}" '
            f'stroke="{style.colour}" stroke-width="{style.line_width + 0.6:.1f}"{dash}/>'
            if style.line_width > 0
            else ""
        )
        parts.append(
            line
            + shape(style.shape, cx + 12, cy, style.colour, False)
            + f'<text x="{at(cx + 30)}" y="{at(cy + 4)}">{esc(style.label)}</text>'
        )
        cx += item
    return "".join(parts), cy - y + 18


def clip_end(
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


def x_axis(axis: Axis, left: float, right: float, bottom: float, top: float) -> str:
    out = []
    for tick in axis.ticks:
        x = left + axis.fraction(tick) * (right - left)
        out.append(
            f'<line x1="{at(x)}" y1="{at(top)}" x2="{at(x)}" y2="{at(bottom)}" stroke="{GRID}"/>'
            f'<text x="{at(x)}" y="{at(bottom + 16)}" text-anchor="middle">{esc(fmt(tick))}</text>'
        )
    out.append(
        f'<line x1="{at(left)}" y1="{at(bottom)}" x2="{at(right)}" y2="{at(bottom)}" '
        f'stroke="{INK}"/>'
        f'<text class="axis-label" x="{at((left + right) / 2)}" y="{at(bottom + 38)}" '
        f'text-anchor="middle" font-size="13">{esc(axis.label)}</text>'
    )
    return "".join(out)


def y_axis(axis: Axis, left: float, right: float, bottom: float, top: float) -> str:
    out = []
    for tick in axis.ticks:
        y = bottom - axis.fraction(tick) * (bottom - top)
        out.append(
            f'<line x1="{at(left)}" y1="{at(y)}" x2="{at(right)}" y2="{at(y)}" stroke="{GRID}"/>'
            f'<text x="{at(left - 6)}" y="{at(y + 4)}" text-anchor="end">{esc(fmt(tick))}</text>'
        )
    middle = (top + bottom) / 2
    out.append(
        f'<line x1="{at(left)}" y1="{at(top)}" x2="{at(left)}" y2="{at(bottom)}" stroke="{INK}"/>'
        f'<text class="axis-label" x="16" y="{at(middle)}" text-anchor="middle" font-size="13" '
        f'transform="rotate(-90 16 {at(middle)})">{esc(axis.label)}</text>'
    )
    return "".join(out)
