"""A run's fingerprint: what tells one real run from another, whatever its bytes.

A copy of a run can be re-encoded (JSON re-indented, new `chatcmpl` ids, log lines dropped
or added, a log appended to another) and rescaled (every duration times k) and still pass
every check that compares the files with each other. What it keeps is the run's *shape*,
the ratios between its own durations, which no two independent runs share:

- **the stream's rhythm**: the gaps between the content chunks of chunks.jsonl, each divided
  by their mean. Decoding speed jitters from token to token on a real pod; a copy rescaled
  by any factor keeps every gap's share exactly (correlation 1.000 with its source), two
  independent runs share little of it (measured: `scripts/measure_fingerprints.py`).
  It is hashed by random hyperplanes (SimHash): each bit is the sign of the centred shape's
  projection on a fixed pseudo-random direction, so a bit of two shapes differs with
  probability angle / pi; `GAP_BANDS` keys of `GAP_BITS` bits each, so a copy whose times
  were re-rounded (a few bits flip) still shares most of its keys.
- **the log's timing blocks**: per finished request, its token counts and its prompt and
  decode time in units of the run's own median decode time per token, on a logarithmic grid
  of `BLOCK_GRID` (two grids half a step apart, so a value near a cell's edge is in the
  same cell on one of them); `BLOCK_WINDOW` consecutive blocks make one key, so a dropped,
  added or appended block spoils only the keys whose window it is in.

A key is an opaque string; a submission has some 30 of them. Two runs that share
`MIN_SHARED` keys or more are one run (`scripts/measure_fingerprints.py` measures how far
real runs are from that). The engine sees only the keys (`PairSpec.keys`), never how they
are made.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from functools import cache
from itertools import pairwise
from operator import itemgetter

GAP_BANDS = 8
"""Keys made of the stream's rhythm."""
GAP_BITS = 24
"""Bits of one rhythm key: two independent rhythms (correlation r) share one with
probability (1 - acos(r) / pi) ** GAP_BITS."""
GAP_FLOOR = 0.25
"""The smallest share of the median gap a gap counts as (`gap_shape`)."""
MIN_GAPS = 16
"""Fewer gaps between content chunks make no rhythm key (too few to tell runs apart)."""
BLOCK_GRID = 0.04
"""The width of a cell of the block keys' logarithmic grid (≈4 %)."""
BLOCK_WINDOW = 4
"""Consecutive timing blocks in one block key."""
MIN_SHARED = 6
"""Two runs sharing this many keys are one run."""
_SEED = 24
"""The seed of the hyperplanes: fixed, so a key means the same in every grade."""


_MASK = (1 << 64) - 1


def _signs(seed: int, length: int) -> list[bool]:
    """`length` pseudo-random signs from `seed` (splitmix64: plain integer arithmetic, so
    a grade imports no hash library for it)."""
    out: list[bool] = []
    state = seed & _MASK
    while len(out) < length:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        out.extend(bool(z >> i & 1) for i in range(64))
    return out[:length]


@cache
def _plus(bit: int, length: int) -> Callable[[Sequence[float]], tuple[float, ...]]:
    """The fixed pseudo-random direction of one bit over `length` gaps, each coordinate
    +1 or -1 (a random sign projection is as good for the angle as a Gaussian one, and
    costs a few integer operations when a grade starts, not a random number per gap), as
    the getter of the gaps where it is +1: a shape's projection on it is twice their sum
    less the sum of the whole shape. Its first coordinates do not depend on `length`."""
    signs = _signs(_SEED * 1_000_003 + bit, length)
    plus = [i for i in range(length) if signs[i]]
    if len(plus) < 2:  # itemgetter of one index gives the value, not a tuple of it
        return lambda shape: tuple(shape[i] for i in plus)
    return itemgetter(*plus)


def gap_shape(times: Sequence[float]) -> list[float]:
    """The gaps between successive times as logarithms of their ratio to the median gap
    (a gap under `GAP_FLOOR` of the median counts as that: a burst of chunks delivered
    together is a burst, however its few microseconds were rounded), centred on their mean.
    A rescaled copy has exactly its source's shape. Empty when there are too few gaps or
    no time passed."""
    gaps = [b - a for a, b in pairwise(times)]
    if len(gaps) < MIN_GAPS:
        return []
    middle = sorted(gaps)[len(gaps) // 2]
    if not middle > 0 or not math.isfinite(middle) or not all(map(math.isfinite, gaps)):
        return []
    logs = [math.log(max(g / middle, GAP_FLOOR)) for g in gaps]
    mean = sum(logs) / len(logs)
    return [v - mean for v in logs]


def correlation(a: Sequence[float], b: Sequence[float]) -> float:
    """Pearson's correlation of two shapes over their common length (0 when flat)."""
    n = min(len(a), len(b))
    if n < 2:
        return 0.0
    x, y = a[:n], b[:n]
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((p - mx) * (q - my) for p, q in zip(x, y, strict=True))
    sxx = sum((p - mx) ** 2 for p in x)
    syy = sum((q - my) ** 2 for q in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


def _digest(kind: str, parts: object) -> str:
    return kind + ":" + hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def rhythm_keys(times: Sequence[float]) -> list[str]:
    """The keys of a stream's rhythm (`GAP_BANDS` of them, none for a short stream)."""
    shape = gap_shape(times)
    if not shape:
        return []
    keys = []
    total, length = sum(shape), len(shape)
    for band in range(GAP_BANDS):
        bits = tuple(
            2 * sum(_plus(band * GAP_BITS + bit, length)(shape)) >= total for bit in range(GAP_BITS)
        )
        keys.append(_digest(f"r{band}", (length, bits)))
    return keys


Block = tuple[int, float, int, float]
"""A finished request's timing block: (prompt tokens, prompt ms, generated tokens, eval ms)."""


def block_keys(blocks: Sequence[Block]) -> list[str]:
    """The keys of a log's timing blocks, in the log's order: each window of `BLOCK_WINDOW`
    consecutive blocks, their token counts and their times in units of the window's first
    decode time per token (so a key depends on its own blocks only: a block dropped, added
    or a log appended to another spoils only the windows it is in), on two grids."""
    usable = [b for b in blocks if b[0] > 0 and b[1] > 0 and b[2] > 0 and b[3] > 0]
    keys = set()
    for start in range(len(usable) - BLOCK_WINDOW + 1):
        window = usable[start : start + BLOCK_WINDOW]
        unit = window[0][3] / window[0][2]
        for grid, offset in enumerate((0.0, 0.5)):
            cells = tuple(
                (
                    prompt_n,
                    eval_n,
                    math.floor(math.log(prompt_ms / unit) / BLOCK_GRID + offset),
                    math.floor(math.log(eval_ms / eval_n / unit) / BLOCK_GRID + offset),
                )
                for prompt_n, prompt_ms, eval_n, eval_ms in window
            )
            keys.add(_digest(f"b{grid}", cells))
    return sorted(keys)


def run_keys(blocks: Sequence[Block], times: Sequence[float]) -> list[str]:
    """Every key of a run: its stream's rhythm and its log's timing blocks."""
    return rhythm_keys(times) + block_keys(blocks)


def shared(a: Sequence[str], b: Sequence[str]) -> int:
    """How many keys two runs share."""
    return len(set(a) & set(b))


def blocks_of(log: object) -> list[Block]:
    """The finished timing blocks of a scanned log (`ServerLog`), in its order."""
    out: list[Block] = []
    for t in getattr(log, "complete_timings", ()):
        if t.eval_ms is not None and t.eval_n is not None:
            out.append((t.prompt_n, t.prompt_ms, t.eval_n, t.eval_ms))
    return out


def times_of(records: Sequence[object]) -> list[float]:
    """The times of chunks.jsonl's records, in the file's order (non-numbers left out)."""
    out: list[float] = []
    for record in records:
        value = record.get("t_ms") if isinstance(record, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            out.append(float(value))
    return out


def keys_of_texts(log_text: str | None, chunks_text: str | None) -> list[str]:
    """A run's keys from its files' texts (for the registry's builder and the
    measurements; a check reads the parsed artifacts instead)."""
    import json

    from checks.formats.llama_log import scan_log

    blocks = blocks_of(scan_log(log_text)) if log_text else []
    records: list[object] = []
    for line in (chunks_text or "").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return run_keys(blocks, times_of(records))
