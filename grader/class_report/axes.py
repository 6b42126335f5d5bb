"""The class report's numeric axes: a range with round ticks over the values a class
shows (a far outlier left off the range, drawn at its edge, so one hostile number does
not squash everyone into a corner), linear or in decades, and how each is drawn."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from grader.class_report.numbers import quantile
from grader.class_report.svg import GRID, INK, at, esc, fmt


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


def bucket(axis: Axis, value: float, resolution: int = 160) -> int:
    """Where `value` falls on `axis`, to 1/`resolution` of its length: values in one
    bucket are drawn as one place (one mark for the students there)."""
    return round(axis.fraction(value) * resolution)


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
