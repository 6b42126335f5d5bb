"""The lab's physics of each student, read from the measurements their result carries:
the prefill line, the KV cache's first request and its repeat, the slot after a cancel.

`checks.measures` keeps the numbers of every prefill.json, cache.json and cancel.json that
passed its schema, as the `data` of its `.schema` check, and `cancel.slot_freed` records
the idle share it judged. A result is untrusted input like any file: a measurement of the
wrong shape, a negative time or an absurd count is no mark, never an error. The class
report's section (`checks.report_physics`) draws what this module reads.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from checks.measures import CACHE_RUNS, CANCEL_KEYS, PREFILL_ENTRIES
from grader.class_report.results import Student

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


T = TypeVar("T")


class _Bad(ValueError):
    """A measurement of the wrong shape (a result is untrusted input)."""


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**12:
        raise _Bad("not a count")
    return value


def _ms(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad("not a number")
    if not math.isfinite(value) or value < 0:
        raise _Bad("not a time")
    return float(value)


def _measured(student: Student, artifact: str) -> Any:
    """The measurements the result keeps of `artifact` (its passed `.schema` check's)."""
    row = student.check(f"{artifact}.schema")
    return row.data if row is not None and row.status == "passed" and row.data else None


def _read(parse: Callable[[Any], T], data: Any) -> T | None:
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
    share: float | None = None
    """The idle time as a share of the time generating the rest would have taken, as
    `cancel.slot_freed` judged it (None when it did not run)."""


def _share(student: Student) -> float | None:
    row = student.check(CANCEL_CHECK)
    value = row.data.get("idle_share") if row is not None else None
    try:
        return _ms(value) if value is not None else None
    except _Bad:
        return None


def cancel_points(students: Sequence[Student]) -> list[CancelPoint]:
    """Every graded student with cancel measurements: its idle time, the idle share
    `cancel.slot_freed` judged, and whether it passed (freed), failed (busy) or did not
    judge (other)."""
    out = []
    for s in students:
        run = physics_of(s).cancel if s.gradable else None
        if run is not None:
            status = {"passed": "freed", "failed": "busy"}.get(
                s.status(CANCEL_CHECK) or "", "other"
            )
            out.append(CancelPoint(s.id, run, status, _share(s)))
    return out
