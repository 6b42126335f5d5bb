"""Corroboration: how a number a student wrote is compared with the server's own record.

The server log prints every finished request's timing block with two decimals; the
stream's `timings` carry three; a student may round to 0.1 ms or to whole ms. Two
numbers *agree* when they differ by no more than the rounding of each as written (half
a unit of its last digit: 624.9 agrees with 624.87, and 625 does too) plus, for a time
the client measured itself, the noise of the pod (rubric: `noise_ms`).

The digits a student wrote are recovered from the number itself: the shortest repr of
a float has at most as many decimals as were written (224.80 reads back as 224.8), so
the tolerance is never tighter than the student's own rounding.

Matching is one-to-one: five ttft runs must be five different requests of the log, not
one request five times; `match` finds such an assignment when one exists (a small
bipartite matching; a lab has at most a few dozen requests).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, TypedDict, cast

from checks.formats.llama_log import Cancel, Release, ServerLog, TaskTiming

if TYPE_CHECKING:
    from typing import TypeGuard, TypeVar

    Item = TypeVar("Item")


@lru_cache(maxsize=4096)
def resolution(value: float | int) -> float:
    """Half a unit of the last written digit of `value`: 0.05 for 624.9, 0.5 for 625.

    Remembered (a near-cap log asks some 370,000 times, for a few hundred to 24,000
    distinct figures), up to 4,096 values, so a process that grades many logs holds no
    more than that; equal numbers (1 and 1.0 too) have equal resolutions."""
    if isinstance(value, int) or float(value).is_integer():
        return 0.5
    text = repr(float(value))
    if "e" in text or "E" in text:  # 1e-05: as precise as it gets
        mantissa, _, exponent = text.lower().partition("e")
        decimals = len(mantissa.partition(".")[2]) - int(exponent)
        return 0.5 * 10.0 ** (-decimals)
    return 0.5 * 10.0 ** (-len(text.partition(".")[2]))


def agree(a: float, b: float, noise: float = 0.0) -> bool:
    """`a` and `b` are the same quantity, each rounded as written, up to `noise`."""
    return abs(a - b) <= resolution(a) + resolution(b) + noise + 1e-9


def match(
    items: Sequence[Item],
    candidates: Sequence[TaskTiming],
    fits: Callable[[Item, TaskTiming], bool],
    cost: Callable[[Item, TaskTiming], float] | None = None,
    near: Callable[[Item], Iterable[int]] | None = None,
) -> tuple[list[TaskTiming] | None, int]:
    """Give every item its own candidate that `fits` it, if that is possible.

    With `cost`, the closest pairs are taken first (so each run gets the request it
    really was, not merely one within tolerance); when that greedy choice leaves an item
    without a candidate, any assignment is searched for (Kuhn's augmenting paths: items x
    candidates is tiny). Returns (the candidate of each item, -1), or (None, index of an
    item for which no assignment exists: the first one that fits no candidate at all,
    else the first that cannot get one of its own).

    `near`, when given, names for an item the positions of the candidates worth trying:
    every one that can fit it (and maybe more), nearest first by `cost`, equally near ones
    in candidate order (a `Window`'s `nearest`). With `cost`, the greedy choice then tries
    only the len(items) nearest that fit each item, which is exact: the other items hold
    at most len(items) - 1 candidates, so no item ever gets past its len(items)-th. A
    near-cap log has 18,000 blocks, thousands of which fit a client's run.
    """
    limit = len(items) if cost is not None and near is not None else None

    def fitting(index: int, most: int | None) -> list[int]:
        """The positions of the candidates that fit item `index`, ascending; with
        `most`, only the `most` nearest."""
        item = items[index]
        if near is None:
            return [j for j in range(len(candidates)) if fits(item, candidates[j])]
        found: list[int] = []
        for j in near(item):
            if fits(item, candidates[j]):
                found.append(j)
                if len(found) == most:
                    break
        return sorted(found)

    options: list[list[int]] = []
    for index in range(len(items)):
        found = fitting(index, limit)
        if not found:
            return None, index
        options.append(found)
    if cost is not None:
        pairs = sorted(
            (cost(items[i], candidates[j]), i, j) for i, found in enumerate(options) for j in found
        )
        greedy: dict[int, int] = {}
        for _, i, j in pairs:
            if i not in greedy and j not in greedy.values():
                greedy[i] = j
        if len(greedy) == len(items):
            return [candidates[greedy[i]] for i in range(len(items))], -1
        if limit is not None:  # the search below needs every candidate of every item
            options = [fitting(index, None) for index in range(len(items))]
    owner: dict[int, int] = {}

    def place(index: int, seen: set[int]) -> bool:
        for j in options[index]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or place(owner[j], seen):
                owner[j] = index
                return True
        return False

    for index in range(len(items)):
        if not place(index, set()):
            return None, index
    chosen: list[TaskTiming | None] = [None] * len(items)
    for j, index in owner.items():
        chosen[index] = candidates[j]
    return [c for c in chosen if c is not None], -1


_INF = math.inf


def _all_finite(numbers: list[float | None]) -> bool:
    """Whether every one of `numbers` is a finite number, found in one pass in C (the
    checks build a `Window` of a near-cap log's 18,000 blocks six times): an infinity or
    a nan makes the sum one, and None makes it raise. A sum of finite numbers that
    overflows only sends them to be tested one at a time."""
    try:
        total = sum(numbers)  # type: ignore[arg-type]
    except (TypeError, OverflowError):
        return False
    return -_INF < total < _INF


class Window:
    """Candidates sorted by one of their numbers, for those whose number lies near a value,
    nearest first: what can `agree` with a client's number, found by one bisection and a
    walk outwards instead of a test of every block.

    A candidate whose number is not finite agrees with nothing, and is in no window.
    """

    def __init__(
        self, candidates: Sequence[TaskTiming], number: Callable[[TaskTiming], float | None]
    ):
        numbers = list(map(number, candidates))
        if _all_finite(numbers):  # the usual case: every candidate is kept
            kept: Sequence[int] = range(len(numbers))
        else:  # nan compares false, so it is left out with the infinities
            kept = [
                j for j, value in enumerate(numbers) if value is not None and -_INF < value < _INF
            ]
        values = cast("list[float]", numbers)  # at the positions kept, never None
        self._order = sorted(kept, key=values.__getitem__)  # stable: equal ones by position
        self._numbers = list(map(values.__getitem__, self._order))

    def nearest(self, value: float, distance: float) -> Iterator[int]:
        """Positions of the candidates whose number is within `distance` of `value`
        (widened by the rounding of the bound itself), nearest first by
        `abs(value - number)`, equally near ones in candidate order."""
        if not finite(value):
            return
        numbers, order = self._numbers, self._order
        limit = distance + 1e-6 + 1e-9 * abs(value)
        right = bisect.bisect_left(numbers, value)
        left = right - 1
        while True:
            gap = min(
                abs(value - numbers[left]) if left >= 0 else math.inf,
                abs(value - numbers[right]) if right < len(numbers) else math.inf,
            )
            if gap > limit:
                return
            tied: list[int] = []
            while left >= 0 and abs(value - numbers[left]) == gap:
                tied.append(order[left])
                left -= 1
            while right < len(numbers) and abs(value - numbers[right]) == gap:
                tied.append(order[right])
                right += 1
            yield from sorted(tied)

    def agreeing(self, value: float, noise: float = 0.0) -> Iterator[int]:
        """`nearest` within what `agree(value, number, noise)` allows for any candidate's
        number: every candidate that can agree with `value` is named (and maybe more)."""
        return self.nearest(value, resolution(value) + MAX_RESOLUTION + noise)


MAX_RESOLUTION = 0.5
"""The most `resolution` gives (a whole number's): the widest a candidate's rounding can
make `agree`."""


def match_in_order(
    items: Sequence[Item],
    candidates: Sequence[TaskTiming],
    fits: Callable[[Item, TaskTiming], bool],
) -> tuple[list[TaskTiming] | None, int]:
    """Like `match`, for items the lab sends one after another: each item's candidate
    comes later in the log than the one before's. Taking the earliest that fits is
    optimal (it leaves the most room for the items after it)."""
    chosen: list[TaskTiming] = []
    after = -1
    for index, item in enumerate(items):
        found = next((c for c in candidates if c.line > after and fits(item, c)), None)
        if found is None:
            return None, index
        chosen.append(found)
        after = found.line
    return chosen, -1


def blocks(log: ServerLog) -> tuple[TaskTiming, ...]:
    """The finished requests of the log that can corroborate a number: those whose
    timing block has its `eval time` line (a request's whole account)."""
    return log.complete_timings


def nearest(
    candidates: Sequence[TaskTiming], tokens: int | None, generated_ms: float
) -> TaskTiming | None:
    """The request whose `eval time` comes closest to `generated_ms`, among those that
    generated `tokens` tokens (any count when None): what a message shows as the nearest
    evidence."""
    pool = [t for t in candidates if tokens is None or t.eval_n == tokens]
    return min(pool, key=lambda t: abs((t.eval_ms or 0) - generated_ms), default=None)


def task_label(timing: TaskTiming) -> str:
    """How a message names a block's task: its id, "?" in the oldest logs (no id)."""
    return str(timing.task) if timing.task is not None else "?"


class RequestParams(TypedDict):
    """A request of the log in a message's parameters (`request_params`)."""

    task: int | str
    line: int


def request_params(timing: TaskTiming | Cancel | Release) -> RequestParams:
    """How a message names a request of the log: its task id ("?" in the oldest logs,
    which print none) and the line of its timing block."""
    return {"task": timing.task if timing.task is not None else "?", "line": timing.line}


def request_data(timing: TaskTiming | Cancel | Release) -> dict[str, int | str]:
    """`request_params` as a check records it: a JSON object (to a type checker, a
    `TypedDict` is none)."""
    params = request_params(timing)
    return {"task": params["task"], "line": params["line"]}


def first_token_fits(ttft_ms: float, timing: TaskTiming, overhead_ms: float) -> bool:
    """A client's first token comes after the server computed the prompt, and not much
    later: the HTTP round trip and the chat template, never a second prefill."""
    lower = timing.prompt_ms - resolution(timing.prompt_ms) - resolution(ttft_ms)
    return lower - 1e-9 <= ttft_ms <= timing.prompt_ms + overhead_ms + resolution(ttft_ms)


def generation_fits(client_ms: float, timing: TaskTiming, noise_ms: float) -> bool:
    """The client's time from first token to end agrees with the server's `eval time`."""
    return timing.eval_ms is not None and agree(client_ms, timing.eval_ms, noise_ms)


def finite(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
