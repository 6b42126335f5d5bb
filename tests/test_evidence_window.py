"""Specification of `checks.evidence.Window` and `match(near=...)`: the same answers as trying
every block, found among the few near a client's number.

A near-cap log holds 18,000 timing blocks; the checks that match a client's numbers to
them look only at the blocks a `Window` names. The property tests draw logs whose numbers
repeat and lie equally far on both sides of a client's (the ties the greedy choice breaks
by position), and compare with the plain scan.
"""

from __future__ import annotations

import math
from operator import attrgetter

from hypothesis import given, settings
from hypothesis import strategies as st

from checks.evidence import Window, agree, match
from checks.formats.llama_log import TaskTiming

# few distinct numbers, so that blocks repeat and ties are common
NUMBERS = st.sampled_from([99.5, 99.75, 100.0, 100.25, 100.5, 101.0, 140.0, 1e-05, 625])
CLIENT = st.sampled_from([99.5, 99.9, 100.0, 100.25, 100.3, 100.5, 101, 120.0, 625.0])
NOISE = st.sampled_from([0.0, 0.25, 0.5, 40.0])


def blocks(numbers: list[float]) -> list[TaskTiming]:
    return [
        TaskTiming(task=i, line=10 + i, prompt_ms=n, prompt_n=1 + i % 3, eval_ms=n, eval_n=1)
        for i, n in enumerate(numbers)
    ]


@settings(max_examples=400, deadline=None)
@given(st.lists(NUMBERS, max_size=30), CLIENT, st.floats(0, 50))
def test_nearest_names_every_candidate_within_the_distance_nearest_first(
    numbers: list[float], value: float, distance: float
) -> None:
    found = list(Window(blocks(numbers), attrgetter("eval_ms")).nearest(value, distance))
    within = {j for j, n in enumerate(numbers) if abs(value - n) <= distance}
    assert within <= set(found)
    bound = distance + 1e-6 + 1e-9 * abs(value)  # the bound's own rounding, as documented
    assert all(abs(value - numbers[j]) <= bound for j in found)
    assert len(found) == len(set(found))
    assert found == sorted(found, key=lambda j: (abs(value - numbers[j]), j))


def test_a_number_that_is_not_finite_is_in_no_window() -> None:
    window = Window(blocks([100.0, float("inf"), float("nan")]), attrgetter("eval_ms"))
    assert list(window.nearest(100.0, 1e9)) == [0]
    assert list(window.nearest(float("nan"), 1e9)) == []


@settings(max_examples=400, deadline=None)
@given(
    st.lists(NUMBERS, max_size=30),
    st.lists(CLIENT, min_size=1, max_size=5),
    NOISE,
    st.booleans(),
)
def test_match_near_a_window_finds_what_matching_every_candidate_finds(
    numbers: list[float], clients: list[float], noise: float, with_cost: bool
) -> None:
    candidates = blocks(numbers)
    window = Window(candidates, attrgetter("eval_ms"))

    def fits(client: float, t: TaskTiming) -> bool:  # a second condition, as the checks have
        return t.prompt_n != 3 and agree(client, t.eval_ms, noise)  # type: ignore[arg-type]

    def cost(client: float, t: TaskTiming) -> float:
        return abs(client - t.eval_ms)  # type: ignore[operator]

    def near(client: float):  # type: ignore[no-untyped-def]
        return window.agreeing(client, noise)

    chosen_cost = cost if with_cost else None
    assert match(clients, candidates, fits, chosen_cost, near) == match(
        clients, candidates, fits, chosen_cost
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(NUMBERS, max_size=30), CLIENT, NOISE)
def test_agreeing_names_every_candidate_that_agrees(
    numbers: list[float], value: float, noise: float
) -> None:
    found = set(Window(blocks(numbers), attrgetter("eval_ms")).agreeing(value, noise))
    assert {j for j, n in enumerate(numbers) if agree(value, n, noise)} <= found


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(NUMBERS, st.none(), st.sampled_from([float("inf"), -float("inf"), 1.7e308])),
        max_size=30,
    )
)
def test_a_window_keeps_exactly_the_finite_numbers_in_order(numbers: list[float | None]) -> None:
    """Found in one pass for the usual log (every number finite); with an infinity, a
    nan, a missing number or a sum that overflows, the same as testing each."""
    numbers = [float("nan") if n == 99.75 else n for n in numbers]  # nan too
    window = Window(blocks(numbers), attrgetter("eval_ms"))  # type: ignore[arg-type]
    kept = [j for j, n in enumerate(numbers) if n is not None and math.isfinite(n)]
    order = sorted(kept, key=lambda j: numbers[j])  # type: ignore[arg-type, return-value]
    assert list(window.nearest(100.0, 1.79e308)) == sorted(
        order,
        key=lambda j: (abs(100.0 - numbers[j]), j),  # type: ignore[operator]
    )


def test_at_most_4096_resolutions_are_remembered() -> None:
    """A process that grades many logs remembers at most 4,096 resolutions; what it
    computes after forgetting is the same."""
    from checks.evidence import resolution

    resolution.cache_clear()
    assert [resolution(i + 0.5) for i in range(5000)] == [0.05] * 5000
    assert resolution.cache_info().currsize == 4096
    assert resolution(0.25) == 0.005 and resolution.cache_info().currsize == 4096
    assert resolution(624.9) == 0.05 and resolution(625) == 0.5
