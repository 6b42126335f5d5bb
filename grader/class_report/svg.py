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

from grader.words.visible import visible

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
THRESHOLD = ("#000000", "2 3")
"""A rubric threshold's line (colour, dashes): black and dotted, unlike any data series
(the series take Okabe–Ito's colours, solid or dashed) and unlike a plain reference."""
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans CJK JP', sans-serif"


def clean(text: object) -> str:
    """`text` as a string that is safe to show: C0/C1 controls (but tab and newline), the
    bidirectional overrides and isolates (which would let a student id display as
    something else) and undecodable bytes become visible escapes (`grader.words.visible`),
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
    count: int = 1
    """How many students it stands for (students at the same values are one mark,
    drawn larger, with their number beside it)."""


@dataclass(frozen=True)
class Guide:
    """A reference line in data coordinates, e.g. y = x, with a short label at its end."""

    points: tuple[tuple[float, float], ...]
    label: str
    colour: str = "#666666"
    dash: str = "6 4"
    """A threshold of the rubric is drawn in colour; a plain reference (y = x) in grey."""


@dataclass(frozen=True)
class StripMark:
    """One value on a strip chart, in one of its rows; `key` seeds the vertical jitter."""

    value: float
    row: str
    tooltip: str
    key: str
    href: str = ""
    count: int = 1
    """How many students it stands for (one mark, larger, with their number)."""


@dataclass(frozen=True)
class Bin:
    """One histogram bar: [lo, hi) (the last bin includes hi) and its count."""

    lo: float
    hi: float
    count: int
    tooltip: str = ""
    href: str = ""
    label: str = ""
    """The bar's own label, under it (a histogram of one bar per value)."""
    gap: bool = False
    """A run of empty bins drawn as a break in the axis."""


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


def mark_size(count: int, size: float = 4.2) -> float:
    """A mark's size for `count` students at one place: area growing with the count's
    logarithm, so 150 students are plainly more than 3 and still leave room."""
    return size * (1 + math.log10(max(count, 1)))


class CountLabels:
    """Where the count labels of one chart went, so that none is drawn over another:
    each label tries a few places around its mark and takes the first that is free (none
    free: no label; the mark's tooltip still says the number)."""

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def block(self, x: float, y: float, size: float) -> None:
        """A mark at (x, y): no label may cover it."""
        self.boxes.append((x - size, y - size, x + size, y + size))

    def place(self, count: int, x: float, y: float, size: float) -> str:
        if count <= 1:
            return ""
        text = str(count)
        w, h = text_width(text, 11), 11.0
        # right of the mark, else above or below it (centred: whose it is can't be
        # mistaken), and only then left, where it would sit beside a neighbour's mark
        for dx, dy in ((size + 3, 4), (-w / 2, -size - 3), (-w / 2, size + 12), (-size - 3 - w, 4)):
            box = (x + dx - 1, y + dy - h, x + dx + w + 1, y + dy + 2)
            if all(
                box[2] < b[0] or box[0] > b[2] or box[3] < b[1] or box[1] > b[3] for b in self.boxes
            ):
                self.boxes.append(box)
                return (
                    f'<text x="{at(x + dx)}" y="{at(y + dy)}" font-size="11" font-weight="bold" '
                    f'stroke="#FFFFFF" stroke-width="3" paint-order="stroke">{text}</text>'
                )
        return ""


def many(ids: Sequence[str], text: str, more: str, limit: int = 12) -> str:
    """A tooltip naming the students a mark stands for: `text`, then the first `limit`
    ids and `more` (a word for how many others) when there are more."""
    shown = ", ".join(ids[:limit])
    return f"{text}\n{shown}" + (f" {more}" if len(ids) > limit else "")


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
        f'<desc id="{cid}-desc">{esc(description or title)}</desc>' + _title(title, width)
    )


def _title(title: str, width: int) -> str:
    """The chart's title in 15 px, smaller when it would run past the chart's edge (a
    long translation), down to 11 px; longer still, squeezed to the width (`textLength`)."""
    room, wide = width - 24.0, text_width(title, 15)
    size = 15.0 if wide <= room else max(11.0, 15 * room / wide)
    fit = f' textLength="{at(room)}" lengthAdjust="spacingAndGlyphs"'
    squeeze = fit if text_width(title, size) > room else ""
    return (
        f'<text x="12" y="22" font-size="{fmt(size)}" font-weight="bold"{squeeze}>'
        f"{esc(title)}</text>"
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
