"""`log.intact`: the log is what llama-server wrote during this run.

Everything a student measured is corroborated by `server.log` (see `checks.evidence`), so
the log itself must first be shown to be the server's own record: it has timing blocks,
every block adds up (ms / tokens is the printed ms per token, prompt + eval is the total),
a task's lines are stamped as far apart as the task ran, task ids and time stamps only
grow, and no task line stands where a server cannot print one (after the end-of-run line,
or without the time prefix every other task line carries). A log with no timing block
confirms nothing. The log's other checks are in `checks.log`.
"""

from __future__ import annotations

import bisect
from operator import attrgetter
from typing import TYPE_CHECKING

from checks.evidence import blocks, resolution, task_label
from checks.formats.llama_log import Figures, Launch, ServerLog, TaskTiming
from grader.engine.api import Context, Fail, check
from grader.engine.params import Number
from grader.words.problems import Term

if TYPE_CHECKING:
    from typing import Any


def _agrees(printed: float, exact: float, share: float) -> bool:
    """A printed figure agrees with the quotient `exact` of its line's ms and tokens when
    it is off by no more than its own resolution plus `share`, what the rounding of the
    line's ms can move the quotient."""
    return abs(exact - printed) <= resolution(printed) + share + 1e-9


def _denied_figure(ms: float, n: int, fewer: int, figures: Figures) -> str | None:
    """Which printed figure (`ms_per_token`, `tokens_per_second`) its own ms and tokens
    deny, if either: one that agrees (`_agrees`) with `n` or with `fewer` tokens stands.

    `n`: the line's tokens, positive; `fewer`: the other count the era may divide by,
    positive. The prompt line divides by its tokens, so there `fewer` is `n`; an `eval
    time` line by its tokens in some eras and by one fewer in others (b1-0c1e570 prints
    `1415.71 ms / 64 tokens (22.47 ms per token, 44.50 tokens per second)`: the first token
    came with the prompt, so 63 were decoded in that time). A time within its own
    rounding of zero has no rate to deny. Only the verdict: a denied figure's message is
    `_figure_problem`'s. The scan reads at most 30 digits on either side of a number's
    point, so no term here can overflow.
    """
    ms_resolution = resolution(ms)
    if ms <= ms_resolution:
        return None
    printed = figures.per_token_ms
    if printed is not None and not (
        _agrees(printed, ms / n, ms_resolution / n)
        or _agrees(printed, ms / fewer, ms_resolution / fewer)
    ):
        return "ms_per_token"
    printed = figures.per_second
    if printed is not None and not (
        _agrees(printed, 1000 * n / ms, 1000 * n * ms_resolution / ms**2)
        or _agrees(printed, 1000 * fewer / ms, 1000 * fewer * ms_resolution / ms**2)
    ):
        return "tokens_per_second"
    return None


def _figure_problem(t: TaskTiming, which: str, unit: str) -> Fail:
    """The message for a printed figure of `t`'s `which` line (`prompt_eval`, `eval`)
    that its own ms and tokens deny (`unit`: `_denied_figure`'s verdict)."""
    prompt = which == "prompt_eval"
    ms = t.prompt_ms if prompt else t.eval_ms
    n = t.prompt_n if prompt else t.eval_n
    figures = t.prompt_figures if prompt else t.eval_figures
    per_token = unit == "ms_per_token"
    return Fail(
        "arithmetic",
        expected=round(ms / n if per_token else 1000 * n / ms, 3),  # type: ignore[operator]
        found=figures.per_token_ms if per_token else figures.per_second,
        line=t.line,
        which=Term(which),
        unit=Term(unit),
        ms=ms,
        n=n,
    )


def _block_problem(t: TaskTiming) -> Fail | None:
    """The first way a timing block disagrees with itself, if any. (A line of no tokens
    has no figure to deny.)

    The total is off when it is off by more than all three numbers' rounding together."""
    prompt_ms, prompt_n = t.prompt_ms, t.prompt_n
    if prompt_n > 0:
        unit = _denied_figure(prompt_ms, prompt_n, prompt_n, t.prompt_figures)
        if unit is not None:
            return _figure_problem(t, "prompt_eval", unit)
    eval_ms, eval_n = t.eval_ms, t.eval_n
    if eval_ms is None:
        return None  # no eval figure to deny, no total to add up
    if eval_n is not None and eval_n > 0:
        fewer = eval_n - 1 if eval_n > 1 else eval_n
        unit = _denied_figure(eval_ms, eval_n, fewer, t.eval_figures)
        if unit is not None:
            return _figure_problem(t, "eval", unit)
    total_ms = t.total_ms
    if total_ms is None:
        return None
    parts = prompt_ms + eval_ms
    if abs(parts - total_ms) > (
        resolution(total_ms) + resolution(prompt_ms) + resolution(eval_ms) + 1e-9
    ):
        return Fail(
            "total_ms", expected=round(parts, 2), found=total_ms, line=t.line, task=task_label(t)
        )
    total_n = t.total_n
    if total_n is not None and eval_n is not None and total_n != prompt_n + eval_n:
        return Fail(
            "total_n", expected=prompt_n + eval_n, found=total_n, line=t.line, task=task_label(t)
        )
    return None


def _print_delay(t: TaskTiming, launch: Launch | None) -> float | None:
    """How much later than its own duration a block was printed after its launch (its
    lines' time stamps minus what the block says it ran); None without time stamps."""
    if t.time_ms is None or t.eval_ms is None or launch is None or launch.time_ms is None:
        return None
    ran = t.total_ms if t.total_ms is not None else t.prompt_ms + t.eval_ms
    return t.time_ms - launch.time_ms - ran


def _clock_problem(t: TaskTiming, launch: Launch | None, delay: float) -> Fail:
    """The message for a block whose own duration does not fit between its launch and
    its print time (`delay`: its `_print_delay`, outside the rubric's window)."""
    ran = t.total_ms if t.total_ms is not None else t.prompt_ms + (t.eval_ms or 0)
    return Fail(
        "clock",
        expected=round(ran, 2),
        found=round(ran + delay, 3),
        task=t.task,
        line=t.line,
        launch_line=launch.line if launch is not None else "?",
    )


def _order_problem(log: ServerLog) -> Fail | None:
    """Task ids that go back within a server run, or time stamps that do.

    The launches and the events come in line order, so their runs only grow: what came
    before in the same run is what came just before, if that was in the same run. (Each
    event's time is read once: the events are of four kinds, so reading an attribute of
    one is a look-up that no specialization of the loop saves, and a near-cap log has
    59,000 of them.)"""
    before: Any = None
    before_run = -1
    for run, launch in zip(log.launch_runs, log.launches, strict=True):
        if run == before_run and launch.task <= before.task:
            return Fail(
                "task_order",
                expected=f"> {before.task}",
                found=launch.task,
                line=launch.line,
                previous=before.task,
                previous_line=before.line,
            )
        before, before_run = launch, run
    before, before_time, before_run = None, 0.0, -1
    for run, event in zip(log.event_runs, log.events(), strict=True):
        time_ms = event.time_ms
        if time_ms is None:
            continue
        if run == before_run and time_ms < before_time:
            return Fail(
                "time_order",
                expected=f">= {before_time}",
                found=time_ms,
                line=event.line,
                previous_line=before.line,
            )
        before, before_time, before_run = event, time_ms, run
    return None


def _kind(event: object) -> Term:
    return Term("log_" + type(event).__name__.lower())


def _placement_problem(log: ServerLog) -> Fail | None:
    """Task lines a server cannot have printed: without the time prefix all the others
    carry, or after the end-of-run line of their run."""
    events = log.events()
    prefixed = sum(map(attrgetter("prefixed"), events))
    if len(events) > prefixed and prefixed * 2 > len(events):
        for event in events:
            if not event.prefixed:
                return Fail(
                    "unprefixed",
                    expected="0.00.000.000 I",
                    found="—",
                    line=event.line,
                    what=_kind(event),
                    others=prefixed,
                )
    lines, runs = log.event_lines, log.event_runs
    for end in log.ends:
        # runs only move forward with the line: the first event after the end is the one
        # to look at; if it is in a later run, no event of this run follows the end
        at = bisect.bisect_right(lines, end)
        if at < len(events) and runs[at] == log.run_of(end):
            event = events[at]
            return Fail("after_end", found=event.line, line=event.line, end=end, what=_kind(event))
    return None


def _unaccounted_release(log: ServerLog) -> Fail | None:
    """A task the server released with neither a timing block nor a cancel: a finished
    request whose timing lines are gone."""
    accounted = log.ended_tasks()
    released = zip(log.release_runs, map(attrgetter("task"), log.releases), strict=True)
    if accounted.issuperset(released):
        return None  # the usual case, found in one pass: every release is accounted for
    for run, release in zip(log.release_runs, log.releases, strict=True):
        if release.form != "stop processing":
            continue  # a log that prints no cancel line: a cut-off task is a bare release
        if (run, release.task) not in accounted:
            return Fail("no_block", found=release.task, task=release.task, line=release.line)
    return None


@check(
    "log.intact",
    reads=("log",),
    confirmed_by=("submission.original", "log.story"),
    params={"clock_slack_ms": Number(0, 60_000), "max_print_delay_ms": Number(0, 3_600_000)},
)
def intact(ctx: Context) -> None:
    """The log is llama-server's own record: complete, consistent, in order."""
    log: ServerLog = ctx["log"]
    if not blocks(log):
        raise Fail("no_timings", expected=">= 1", found=0, count=log.line_count, at=ctx.at("log"))
    problem = None
    for t in log.timings:
        problem = _block_problem(t)
        if problem is not None:
            break
    slack, delay = ctx.param("clock_slack_ms"), ctx.param("max_print_delay_ms")
    # each block's delay once: the clock test and the record both need it
    launches = log.timing_launches
    delays = [_print_delay(t, launch) for t, launch in zip(log.timings, launches, strict=True)]
    if problem is None:  # the verdict in the loop, the message only for a block that fails
        for t, launch, print_delay in zip(log.timings, launches, delays, strict=True):
            if print_delay is not None and not -slack <= print_delay <= delay:
                problem = _clock_problem(t, launch, print_delay)
                break
    problem = problem or _order_problem(log) or _placement_problem(log) or _unaccounted_release(log)
    if problem is not None:
        problem.at = ctx.at("log", line=int(problem.params["line"]))  # type: ignore[arg-type]
        raise problem
    known = [d for d in delays if d is not None]
    ctx.record(
        requests=len(blocks(log)),
        runs=max(len(log.starts), 1),
        print_delay_ms=[round(min(known), 3), round(max(known), 3)] if known else None,
    )
