"""`log.story`: the log's other lines tell the story its timing blocks tell.

A timing block says how many prompt tokens a task computed and how long it ran; the
lines around it say why and when (`checks.formats.llama_log_story`). A block rewritten
alone (a cache hit made a cold prefill, a cold prefill made a hit, a run-to-the-end
task made a cancel) leaves those lines telling the old story:

- `reuse`: where the log prints the part of a prompt kept from the cache (`kv cache rm
  [5, end)`, `memory_seq_rm [5, end)`), the block computed exactly the rest of the
  prompt's whole size (the `new prompt` line's, else the release's);
- `whole_recomputed`: a task the log says found its whole prompt in the cache (`need to
  evaluate at least 1 token`) computed 1 prompt token;
- `hit_unsaid`: a block of 1 prompt token out of a longer prompt has the line that says
  the rest came from the cache (every era prints one at its default verbosity);
- `slot`: every slot a line names is one of the slots the server started with, and no
  run picks more never-used slots (`t_last = -1`) than it started with;
- `cancel_tokens`: a cancelled task generated no more tokens (its release's count minus
  its prompt) than the time from its launch to its release allows at the run's own
  decode speed (its fastest plausible: the median over `max_speedup`);
- `release_clock`: a task's launch and release are stamped at least as far apart as its
  block says it ran.

A log that tells two stories is no record of one run: `log.intact`, and with it every
number the log would confirm, waits on this check.

Exact token counts have no tolerance: in every real capture and every era the grader
reads they agree to the token.
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING

from checks.formats.llama_log import Cancel, ServerLog
from checks.numbers import median
from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer, Number

if TYPE_CHECKING:
    from checks.formats.llama_log_story import Similarity


def _block_problem(log: ServerLog) -> Fail | None:
    """The first block whose prompt the story's lines tell otherwise."""
    story = log.story
    if not (story.kept or story.whole or log.timings):
        return None
    sizes, kept, whole = log.story_by_task
    for t, launch in zip(log.timings, log.timing_launches, strict=True):
        if t.task is None:
            continue
        after = launch.line if launch is not None else 0
        size_fact = sizes.last(t.task, t.line, after)
        full = size_fact.value if size_fact is not None else log.full_prompt_tokens(t)
        # the first: a prompt longer than the batch prints one line per batch, each from
        # where the last left off; the first says what the cache kept
        kept_fact = kept.first(t.task, t.line, after)
        whole_fact = whole.last(t.task, t.line, after)
        if kept_fact is not None and full is not None and t.prompt_n != full - kept_fact.value:
            return Fail(
                "reuse",
                expected=full - kept_fact.value,
                found=t.prompt_n,
                task=t.task,
                line=t.line,
                kept_line=kept_fact.line,
                kept=kept_fact.value,
                full=full,
            )
        if whole_fact is not None and t.prompt_n != 1:
            return Fail(
                "whole_recomputed",
                expected=1,
                found=t.prompt_n,
                task=t.task,
                line=t.line,
                whole_line=whole_fact.line,
            )
        if (
            t.prompt_n == 1
            and full is not None
            and full >= 2
            and whole_fact is None
            and (kept_fact is None or kept_fact.value != full - 1)
        ):
            return Fail("hit_unsaid", expected="—", found=t.prompt_n, task=t.task, line=t.line,
                        full=full)  # fmt: skip
    return None


def _slot_problem(log: ServerLog) -> Fail | None:
    """A slot id that no slot the server started with has, or more never-used slots
    picked in one server run than it started with."""
    for fact in log.story.slots:
        run = log.run_of(fact.line)
        slots = log.starts[run - 1].n_slots if run > 0 else None
        if slots is not None and fact.value >= slots:
            return Fail(
                "slot",
                expected=f"< {slots}",
                found=fact.value,
                line=fact.line,
                slot=fact.value,
                slots=slots,
                start=log.starts[run - 1].line,
            )
    fresh: dict[int, list[int]] = {}
    for line in log.story.fresh:
        fresh.setdefault(log.run_of(line), []).append(line)
    for run, lines in fresh.items():
        slots = log.starts[run - 1].n_slots if run > 0 else None
        if slots is not None and len(lines) > slots:
            return Fail(
                "unused_slots",
                expected=f"<= {slots}",
                found=len(lines),
                line=lines[slots],
                first=lines[0],
                slots=slots,
                start=log.starts[run - 1].line,
            )
    return None


def _cancel_prompt(
    log: ServerLog, cancel: Cancel, launch_line: int, lines: tuple[list[int], list[int]]
) -> int | None:
    """The whole prompt of a cancelled task, the most it can be: its `new prompt` line's
    size, else what its slot selection's shares give with the slot's tokens before it
    (the previous release), each share as printed, 3 decimals (so the most it can be)."""
    sizes, _, _ = log.story_by_task
    size_fact = sizes.last(cancel.task, cancel.line + 1, launch_line)
    if size_fact is not None:
        return size_fact.value
    similarities, (similarity_lines, release_lines) = log.story.similarities, lines
    at = bisect.bisect_right(similarity_lines, launch_line)
    chosen: Similarity | None = similarities[at - 1] if at > 0 else None
    if chosen is None or launch_line - chosen.line > 3 or chosen.f_sim <= 0.0005:
        return None
    if log.story.slots:  # several slots: the release before need not be the chosen slot's
        return None
    before = bisect.bisect_left(release_lines, chosen.line)
    previous = log.releases[before - 1] if before > 0 else None
    if previous is None or log.run_of(previous.line) != log.run_of(launch_line):
        return None
    common = (chosen.f_keep + 0.0005) * previous.n_tokens
    return math.floor(common / (chosen.f_sim - 0.0005) + 1e-9)


def _cancel_problem(
    log: ServerLog, factor: float, min_eval: int, shares: list[float] | None = None
) -> Fail | None:
    """A cancelled task that generated more tokens than its time allows (`shares`, when
    given, gets each cancelled task's time over its tokens at the median speed)."""
    rates = [
        t.eval_ms / t.eval_n
        for t in log.complete_timings
        if t.eval_n is not None and t.eval_n >= min_eval and t.eval_ms is not None
    ]
    if not rates:
        return None
    fastest = median(rates) / factor
    lines = ([s.line for s in log.story.similarities], [r.line for r in log.releases])
    for cancel in log.unfinished():
        if not isinstance(cancel, Cancel) or cancel.task is None:
            continue
        launch = log.launch_of(cancel.task, near_line=cancel.line)
        release = log.release_of(cancel.task, near_line=cancel.line)
        if launch is None or release is None or None in (launch.time_ms, release.time_ms):
            continue
        prompt = _cancel_prompt(log, cancel, launch.line, lines)
        if prompt is None:
            continue
        generated = release.n_tokens - prompt + 1
        took = release.time_ms - launch.time_ms  # type: ignore[operator]
        if shares is not None and generated > 0:
            shares.append(took / (generated * fastest * factor))
        if generated > 0 and generated * fastest > took:
            return Fail(
                "cancel_tokens",
                expected=f"<= {math.floor(took / fastest)}",
                found=generated,
                task=cancel.task,
                line=release.line,
                took=round(took, 3),
                rate=round(fastest, 3),
            )
    return None


def _clock_problem(log: ServerLog, slack: float, margins: list[float] | None = None) -> Fail | None:
    """A task released sooner after its launch than its block says it ran (`margins`,
    when given, gets each task's time from launch to release minus what it ran)."""
    for t, launch in zip(log.timings, log.timing_launches, strict=True):
        if launch is None or launch.time_ms is None or t.eval_ms is None or t.task is None:
            continue
        release = log.release_of(t.task, near_line=t.line)
        if release is None or release.time_ms is None or release.line < launch.line:
            continue
        if log.run_of(release.line) != log.run_of(launch.line):
            continue
        ran = t.prompt_ms + t.eval_ms
        took = release.time_ms - launch.time_ms
        if margins is not None:
            margins.append(took - ran)
        if took < ran - slack:
            return Fail(
                "release_clock",
                expected=f">= {round(ran, 2)}",
                found=round(took, 3),
                task=t.task,
                line=release.line,
                launch_line=launch.line,
            )
    return None


@check(
    "log.story",
    reads=("log",),
    confirmed_by=("submission.original",),
    params={
        "max_speedup": Number(1, 1_000),
        "min_eval_tokens": Integer(1, 1_000_000),
        "clock_slack_ms": Number(0, 60_000),
    },
)
def story(ctx: Context) -> None:
    """The lines beside the timing blocks tell their story: what each prompt kept from
    the cache, the slots the server has, what a cancelled task generated, how long each
    task held its slot."""
    log: ServerLog = ctx["log"]
    shares: list[float] = []
    margins: list[float] = []
    problem = (
        _block_problem(log)
        or _slot_problem(log)
        or _cancel_problem(log, ctx.param("max_speedup"), ctx.param("min_eval_tokens"), shares)
        or _clock_problem(log, ctx.param("clock_slack_ms"), margins)
    )
    if problem is not None:
        problem.at = ctx.at("log", line=int(problem.params["line"]))  # type: ignore[arg-type]
        raise problem
    ctx.record(
        kept_lines=len(log.story.kept),
        whole_lines=len(log.story.whole),
        slots=sorted({fact.value for fact in log.story.slots}),
        cancel_time_share=round(min(shares), 3) if shares else None,
        release_margin_ms=round(min(margins), 3) if margins else None,
    )
