"""Small numeric helpers the checks share: tolerant equality and the lab's median."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def close(a: float, b: float, abs_tol: float, rel_tol: float = 0.0) -> bool:
    """Equal within rounding: a student may round 222.796 to 222.8 or 223."""
    return abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b)))


def duration_noise(duration_ms: float, noise_ms: float, noise_share: float) -> float:
    """The noise allowed between a duration the client measured and the server's record
    of it: `noise_ms` (scheduling on a quiet pod) plus `noise_share` of the duration.

    Noise grows with the duration, and the duration shows the pod's speed: a 64-token
    answer at 21 ms per token (1.35 s) gets 40 + 13.5 ms with the rubric's 1 %; a
    120-token answer at 137 ms per token on a loaded pod with `-v` logging (16.5 s), whose
    client and log differed by 111 ms (0.7 %), gets 40 + 165 ms. A negative or absurd
    duration adds nothing."""
    if not 0 < duration_ms < 1e12:
        return noise_ms
    return noise_ms + noise_share * duration_ms


def medians(values: Sequence[float]) -> list[float]:
    """Every value a careful student may call the median of `values`.

    The lab defines p50 as the 3rd of 5 sorted values (the middle one); with an even
    count either middle value or their mean is accepted.
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return []
    if n % 2:
        return [ordered[n // 2]]
    low, high = ordered[n // 2 - 1], ordered[n // 2]
    return [low, high, (low + high) / 2]


def median(values: Iterable[float]) -> float:
    """The median as `statistics.median` gives it (the mean of the middle two for an even
    count), without importing statistics (and fractions, decimal, random) on every run."""
    return medians(sorted(values))[-1]


def entry_for(entries: Sequence[dict[str, Any]], docs: int) -> tuple[int, dict[str, Any]] | None:
    """Index and entry of prefill.json for `docs` documents, if there is one."""
    for index, entry in enumerate(entries):
        if entry.get("docs") == docs:
            return index, entry
    return None
