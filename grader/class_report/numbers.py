"""Small numeric helpers shared by the batch's summary and the class report."""

from __future__ import annotations

from collections.abc import Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks of sorted `values` (numpy's default,
    'inclusive'); `values` must not be empty."""
    position = (len(values) - 1) * q
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)
