"""Specification of log.intact's arithmetic: a timing block adds up as llama-server prints it.

llama-server prints each figure with two decimals (`%10.2f ms / %5d tokens (%8.2f ms per
token, %8.2f tokens per second)`), so a block it printed agrees with itself up to that
rounding, and a figure somebody changed by more does not.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from checks.evidence import resolution
from checks.formats.llama_log import Figures, TaskTiming
from checks.log_intact import _block_problem

MS = st.integers(1_000, 10_000_000).map(lambda hundredths: hundredths / 100)  # 10.00 ms up
TOKENS = st.integers(1, 1_000)


def printed(ms: float, n: int) -> Figures:
    """The figures llama-server prints after `ms ms / n tokens`."""
    return Figures(float(f"{ms / n:.2f}"), float(f"{1000 * n / ms:.2f}"))


def block(prompt_ms: float, prompt_n: int, eval_ms: float, eval_n: int) -> TaskTiming:
    return TaskTiming(
        task=1,
        line=10,
        prompt_ms=prompt_ms,
        prompt_n=prompt_n,
        eval_ms=eval_ms,
        eval_n=eval_n,
        prompt_figures=printed(prompt_ms, prompt_n),
        eval_figures=printed(eval_ms, eval_n),
        total_ms=float(f"{prompt_ms + eval_ms:.2f}"),
        total_n=prompt_n + eval_n,
    )


@settings(max_examples=300, deadline=None)
@given(MS, TOKENS, MS, TOKENS)
def test_a_block_as_the_server_prints_it_has_no_problem(
    prompt_ms: float, prompt_n: int, eval_ms: float, eval_n: int
) -> None:
    assert _block_problem(block(prompt_ms, prompt_n, eval_ms, eval_n)) is None


@settings(max_examples=300, deadline=None)
@given(MS, TOKENS, MS, TOKENS, st.booleans())
def test_a_prompt_figure_changed_by_half_is_denied_by_its_ms_and_tokens(
    prompt_ms: float, prompt_n: int, eval_ms: float, eval_n: int, per_token: bool
) -> None:
    good = block(prompt_ms, prompt_n, eval_ms, eval_n)
    figures = good.prompt_figures
    changed = (
        Figures(figures.per_token_ms * 1.5 + 1, figures.per_second)  # type: ignore[operator]
        if per_token
        else Figures(figures.per_token_ms, figures.per_second * 1.5 + 1)  # type: ignore[operator]
    )
    bad = replace(good, prompt_figures=changed)
    problem = _block_problem(bad)
    assert problem is not None
    assert problem.key == "arithmetic"
    assert str(problem.params["unit"]) == ("ms_per_token" if per_token else "tokens_per_second")
    assert problem.params["line"] == 10


def test_a_total_that_is_not_prompt_plus_eval_is_denied() -> None:
    good = block(225.44, 33, 1415.71, 64)
    bad = replace(good, total_ms=1700.0)
    problem = _block_problem(bad)
    assert problem is not None
    assert (problem.key, problem.expected, problem.found) == ("total_ms", 1641.15, 1700.0)


def test_a_line_of_no_tokens_has_no_figure_to_deny() -> None:
    good = block(225.44, 33, 1415.71, 64)
    silent = replace(good, prompt_n=0, total_n=None)
    assert _block_problem(silent) is None


def test_an_eval_figure_of_one_token_fewer_stands() -> None:
    """b1-0c1e570 divides an `eval time` line's ms by its tokens less the first, which
    came with the prompt: `1415.71 ms / 64 tokens (22.47 ms per token, 44.50 tokens per
    second)`."""
    good = block(225.44, 33, 1415.71, 64)
    lab_build = replace(good, eval_figures=Figures(22.47, 44.50))
    assert _block_problem(lab_build) is None


def test_a_prompt_figure_of_one_token_fewer_is_denied() -> None:
    """Only the eval line may count one token fewer: the prompt line's figures divide by
    all its tokens."""
    good = block(225.44, 33, 1415.71, 64)
    shifted = replace(good, prompt_figures=printed(225.44, 32))
    problem = _block_problem(shifted)
    assert problem is not None
    assert (problem.key, str(problem.params["which"])) == ("arithmetic", "prompt_eval")
    assert problem.expected == round(225.44 / 33, 3)


FIGURE = st.one_of(st.none(), MS, st.floats(0, 1e6, allow_nan=False))
FIGURES = st.builds(Figures, FIGURE, FIGURE)


@settings(max_examples=500, deadline=None)
@given(MS, st.integers(0, 1_000), FIGURES, MS, st.integers(0, 1_000), FIGURES)
def test_a_figure_stands_exactly_when_one_divisor_of_its_era_agrees(
    prompt_ms: float,
    prompt_n: int,
    prompt_figures: Figures,
    eval_ms: float,
    eval_n: int,
    eval_figures: Figures,
) -> None:
    """The verdict is the plain rule, each divisor tried in turn: a figure stands when its
    ms over one of the divisors agrees within both numbers' rounding (the prompt line
    divides by its tokens, the eval line by its tokens or one fewer)."""
    t = TaskTiming(
        task=1,
        line=10,
        prompt_ms=prompt_ms,
        prompt_n=prompt_n,
        eval_ms=eval_ms,
        eval_n=eval_n,
        prompt_figures=prompt_figures,
        eval_figures=eval_figures,
    )
    expected = None
    if prompt_n > 0:
        unit = _plain_denied(prompt_ms, prompt_figures, (prompt_n,))
        expected = ("prompt_eval", unit) if unit is not None else None
    if expected is None and eval_n > 0:
        unit = _plain_denied(eval_ms, eval_figures, (eval_n, eval_n - 1) if eval_n > 1 else (1,))
        expected = ("eval", unit) if unit is not None else None
    problem = _block_problem(t)
    found = None if problem is None else (str(problem.params["which"]), str(problem.params["unit"]))
    assert found == expected


def _plain_denied(ms: float, figures: Figures, divisors: tuple[int, ...]) -> str | None:
    """The figure rule as written before it was made fast: every divisor in turn."""
    if ms <= resolution(ms):
        return None
    if figures.per_token_ms is not None and not any(
        abs(ms / d - figures.per_token_ms)
        <= resolution(figures.per_token_ms) + resolution(ms) / d + 1e-9
        for d in divisors
    ):
        return "ms_per_token"
    if figures.per_second is not None and not any(
        abs(1000 * d / ms - figures.per_second)
        <= resolution(figures.per_second) + 1000 * d * resolution(ms) / ms**2 + 1e-9
        for d in divisors
    ):
        return "tokens_per_second"
    return None


def _plain_problem(t: TaskTiming) -> tuple[str, ...] | None:
    """The whole block rule as written before it was made fast: each figure by
    `_plain_denied`, then the total's ms against all three numbers' rounding, then its
    tokens."""
    if t.prompt_n > 0:
        unit = _plain_denied(t.prompt_ms, t.prompt_figures, (t.prompt_n,))
        if unit is not None:
            return "arithmetic", "prompt_eval", unit
    if t.eval_ms is None:
        return None
    if t.eval_n is not None and t.eval_n > 0:
        divisors = (t.eval_n, t.eval_n - 1) if t.eval_n > 1 else (1,)
        unit = _plain_denied(t.eval_ms, t.eval_figures, divisors)
        if unit is not None:
            return "arithmetic", "eval", unit
    if t.total_ms is None:
        return None
    rounding = resolution(t.total_ms) + resolution(t.prompt_ms) + resolution(t.eval_ms)
    if abs(t.prompt_ms + t.eval_ms - t.total_ms) > rounding + 1e-9:
        return ("total_ms",)
    if t.total_n is not None and t.eval_n is not None and t.total_n != t.prompt_n + t.eval_n:
        return ("total_n",)
    return None


# ms of zero to three decimals, tiny ones too (at most a resolution, which has no figure)
ANY_MS = st.one_of(
    MS,
    st.integers(0, 10_000_000).map(lambda thousandths: thousandths / 1000),
    st.integers(0, 100_000).map(float),
    st.sampled_from([0.0, 0.001, 0.04, 0.05, 0.5, 0.51]),
)
# how far a printed figure or total is from the exact one: around every tolerance
OFF = st.sampled_from([0.0, 0.001, 0.004, 0.005, 0.0051, 0.01, 0.015, 0.05, 0.06, 0.5, 2.0])
ODD = st.sampled_from([float("inf"), float("nan"), 0.0, 1e-05])


@st.composite
def near_blocks(draw: st.DrawFn) -> TaskTiming:
    """Blocks whose figures and total lie about as far from their ms and tokens as the
    rounding allows: printed with two decimals (or one, or none), then moved by `OFF`
    either way, or odd (`inf`, `nan`, zero)."""
    prompt_ms, eval_ms = draw(ANY_MS), draw(ANY_MS)
    prompt_n, eval_n = draw(st.integers(0, 2_000)), draw(st.integers(0, 600))

    def figure(value: float) -> float | None:
        kind = draw(st.sampled_from(["printed"] * 8 + ["odd", "none"]))
        if kind == "none":
            return None
        if kind == "odd":
            return draw(ODD)
        if draw(st.integers(0, 3)):  # mostly as printed: the tests after it are reached
            return round(value, 2)
        digits = draw(st.sampled_from([0, 1, 2, 2, 2]))
        return max(0.0, round(value, digits) + draw(st.sampled_from([-1, 1])) * draw(OFF))

    def figures(ms: float, n: int) -> Figures:
        divisor = draw(st.sampled_from([n, n, n, n - 1])) if n > 1 else max(n, 1)
        if ms <= 0:
            return Figures(figure(0.0), figure(0.0))
        return Figures(figure(ms / divisor), figure(1000 * divisor / ms))

    total = round(prompt_ms + eval_ms, 2) + draw(st.sampled_from([-1, 1])) * draw(OFF)
    return TaskTiming(
        task=1,
        line=10,
        prompt_ms=prompt_ms,
        prompt_n=prompt_n,
        eval_ms=draw(st.one_of(st.none(), st.just(eval_ms))),
        eval_n=draw(st.one_of(st.none(), st.just(eval_n))),
        prompt_figures=figures(prompt_ms, prompt_n),
        eval_figures=figures(eval_ms, eval_n),
        total_ms=draw(st.one_of(st.none(), st.just(max(0.0, total)))),
        total_n=draw(st.one_of(st.none(), st.just(prompt_n + eval_n), st.integers(0, 3_000))),
    )


@settings(max_examples=3000, deadline=None)
@given(near_blocks())
def test_a_block_near_its_tolerances_is_judged_as_the_plain_rule_judges_it(t: TaskTiming) -> None:
    """The fast test leaves out a term only where the figure stands without it; near
    every tolerance, with odd figures, tiny times and missing lines, its verdict is the
    plain rule's."""
    problem = _block_problem(t)
    found = None
    if problem is not None:
        found = (problem.key,)
        if problem.key == "arithmetic":
            found += (str(problem.params["which"]), str(problem.params["unit"]))
    assert found == _plain_problem(t)
