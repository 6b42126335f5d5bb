"""What a llama-server log says, as data: the types `checks.formats.llama_log` returns.

The events are slotted dataclasses: a near-cap log holds some 60,000 of
them, and a per-instance `__dict__` would double what they weigh.

Every event carries its 1-based line, the time its line was printed (`time_ms`, from the
`0.53.999.256 I ` time prefix llama.cpp's logger puts before every message, in ms since
the server started; None when the line has no such prefix) and whether the line carries
that prefix at all (`prefixed`): a log whose lines all carry one and a task line that
does not is a line somebody typed.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Generic, TypeVar

from checks.formats.llama_log_story import EMPTY as EMPTY_STORY
from checks.formats.llama_log_story import ByTask, Story

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from checks.evidence import Window

E = TypeVar("E", bound="Launch | Release")


@dataclass(frozen=True, slots=True)
class Figures:
    """What a timing line prints after `X ms / N tokens`: `(ms per token, tokens per
    second)`; None where the line prints none (or `inf`/`nan` for a zero time)."""

    per_token_ms: float | None = None
    per_second: float | None = None


@dataclass(frozen=True, slots=True)
class TaskTiming:
    """One task's `prompt eval time` line, with its `eval time` and `total time` lines.

    `prompt_n` counts only the prompt tokens the server computed: with the KV cache reused it
    is the uncached remainder (1 for a full hit), which is exactly what the lab measures.
    """

    task: int | None
    """id_task when known (from the line's prefix, a JSON field or the block it continues)."""
    line: int
    """1-based line of the `prompt eval time` line."""
    prompt_ms: float
    prompt_n: int
    eval_ms: float | None = None
    """From the `eval time` line of the same task, when present."""
    eval_n: int | None = None
    prompt_figures: Figures = Figures()
    eval_figures: Figures = Figures()
    total_ms: float | None = None
    """From the `total time` line of the same block, when present."""
    total_n: int | None = None
    """The `total time` line's token count (prompt + generated), where the era prints one."""
    time_ms: float | None = None
    """Time prefix of the block's first line."""
    prefixed: bool = False


@dataclass(frozen=True, slots=True)
class Cancel:
    """A `cancel task` line: the server saw the client close the connection."""

    line: int
    task: int | None
    """The `id_task` on that line; None when the line names none."""
    time_ms: float | None = None
    prefixed: bool = False


@dataclass(frozen=True, slots=True)
class Release:
    """A slot release (`stop processing`, or `slot released` in JSON logs)."""

    line: int
    task: int
    n_tokens: int
    """The slot's token count at release (`n_tokens`, `n_past` in older logs): the full
    prompt plus the generated tokens minus one."""
    time_ms: float | None = None
    prefixed: bool = False
    counter: str = "n_tokens"
    """The word the line counts with: `n_tokens` since llama.cpp PR 16818 (Oct 2025),
    `n_past` before; it dates the server."""
    form: str = "stop processing"
    """`stop processing` (text logs since late 2024, whose servers also log every cancel)
    or `slot released` (mid-2024 JSON and key=value logs, which log no cancel at all: a
    task cut off by its client is a release without a timing block)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """A slot starting a task (`launch_slot_: ... | task 65 | processing task`)."""

    line: int
    task: int
    time_ms: float | None = None
    prefixed: bool = False


@dataclass(frozen=True, slots=True)
class ServerStart:
    """The start-up lines of one server run: what the server said about itself.

    A field is None when the run's start-up lines do not print it (2026 builds print no
    build line, for instance).
    """

    line: int
    """Line of the first start-up line of the run."""
    build: int | None = None
    commit: str | None = None
    model: str | None = None
    """The model file the server loaded."""
    n_slots: int | None = None
    n_ctx_slot: int | None = None


Event = TaskTiming | Cancel | Release | Launch


@dataclass(frozen=True)
class ServerLog:
    """What `scan_log` found, in log order."""

    line_count: int
    """Lines scanned (at most `max_lines`)."""
    timings: tuple[TaskTiming, ...]
    cancels: tuple[Cancel, ...]
    releases: tuple[Release, ...]
    truncated: bool
    """True when scanning stopped early because `max_lines` was reached."""
    launches: tuple[Launch, ...] = ()
    starts: tuple[ServerStart, ...] = ()
    """One per server run, in log order (a log a server restarted into holds several)."""
    ends: tuple[int, ...] = ()
    """Lines of the end-of-run line (`cleaning up before exit`)."""
    story: Story = EMPTY_STORY
    """What the log says beside its timing blocks: prompt sizes, the part of each prompt
    kept from the cache, whole prompts found there, the slots used
    (`checks.formats.llama_log_story`)."""

    def run_of(self, line: int) -> int:
        """Which server run `line` belongs to: the number of runs started at or before it
        (0 for lines before any start-up line)."""
        return bisect.bisect_right(self._start_lines, line)

    @cached_property
    def _start_lines(self) -> list[int]:
        return [s.line for s in self.starts]

    def runs_in_order(self, events: Sequence[Event]) -> tuple[int, ...]:
        """`run_of` of each of `events`, which come in line order (as every tuple of the
        log's does)."""
        return self._runs_of_lines(list(map(attrgetter("line"), events)))

    def _runs_of_lines(self, lines: Sequence[int]) -> tuple[int, ...]:
        """`run_of` of each of `lines`, ascending. A run is a stretch of lines, so its
        lines are one slice of them, found by one bisection per start: a near-cap log has
        1,300 runs and 59,000 events, a bisection each cost 20 ms."""
        runs: list[int] = []
        for run, start in enumerate(self._start_lines):
            runs += [run] * (bisect.bisect_left(lines, start) - len(runs))
        runs += [len(self._start_lines)] * (len(lines) - len(runs))
        return tuple(runs)

    @cached_property
    def timing_runs(self) -> tuple[int, ...]:
        """The run of each timing block, in `timings`' order."""
        return self.runs_in_order(self.timings)

    @cached_property
    def launch_runs(self) -> tuple[int, ...]:
        """The run of each launch, in `launches`' order."""
        return self.runs_in_order(self.launches)

    @cached_property
    def cancel_runs(self) -> tuple[int, ...]:
        """The run of each cancel, in `cancels`' order."""
        return self.runs_in_order(self.cancels)

    @cached_property
    def release_runs(self) -> tuple[int, ...]:
        """The run of each release, in `releases`' order."""
        return self.runs_in_order(self.releases)

    @cached_property
    def event_runs(self) -> tuple[int, ...]:
        """The run of each of `events()`, in their order."""
        return self._runs_of_lines(self.event_lines)

    @cached_property
    def event_lines(self) -> tuple[int, ...]:
        """The line of each of `events()`, in their order: the runs and `log.intact`'s
        placement test both need them, and a near-cap log has 59,000 events."""
        return tuple(map(attrgetter("line"), self._events))

    @cached_property
    def complete_timings(self) -> tuple[TaskTiming, ...]:
        """The timing blocks that have their `eval time` line (a request's whole account),
        in log order: found once, for the ten checks that ask (of 18,000 blocks near the
        caps)."""
        return tuple([t for t in self.timings if t.eval_ms is not None and t.eval_n is not None])

    @cached_property
    def eval_window(self) -> Window:
        """`complete_timings` by their eval time (`checks.evidence.Window`), made once per
        log: sentence.in_log, ttft.in_log and the assignment ask, and a near-cap log has
        18,000 blocks to sort."""
        from checks.evidence import Window  # the evidence's comparisons import this module

        return Window(self.complete_timings, attrgetter("eval_ms"))

    @cached_property
    def prompt_window(self) -> Window:
        """`complete_timings` by their prompt time, as `eval_window`: prefill.in_log and
        cache.in_log (through `prefill.claimed`) ask."""
        from checks.evidence import Window

        return Window(self.complete_timings, attrgetter("prompt_ms"))

    @cached_property
    def story_by_task(self) -> tuple[ByTask, ByTask, ByTask]:
        """The story's sizes, kept counts and whole-prompt lines by task, made once per log
        for `checks.story`'s checks."""
        story = self.story
        return ByTask(story.sizes), ByTask(story.kept), ByTask(story.whole)

    def events(self) -> list[Event]:
        """Every task event (launch, timing, cancel, release), in line order."""
        return list(self._events)

    @cached_property
    def _events(self) -> tuple[Event, ...]:
        """The events in line order, sorted once: two checks walk them all."""
        merged: list[Event] = [*self.launches, *self.timings, *self.cancels, *self.releases]
        return tuple(sorted(merged, key=attrgetter("line")))

    @cached_property
    def _releases_by_task(self) -> _ByTask[Release]:
        return _ByTask(self.releases)

    @cached_property
    def _launches_by_task(self) -> _ByTask[Launch]:
        return _ByTask(self.launches)

    def release_of(self, task: int, *, near_line: int | None = None) -> Release | None:
        """The release of `task`: the first in the log, or the one nearest `near_line`.

        Task ids restart at 0 when the server restarts, and a log a student appended to may
        hold two runs, so a caller that knows where the task's other lines are should pass
        `near_line`; on a tie the earlier release wins.
        """
        index = self._releases_by_task
        first, end = index.of(task)
        if first == end:
            return None
        if near_line is None:
            return index.events[first]
        at = bisect.bisect_left(index.lines, near_line, first, end)
        if at == first:
            return index.events[first]
        if at == end:
            return index.events[end - 1]
        before, after = index.events[at - 1], index.events[at]
        return before if near_line - before.line <= after.line - near_line else after

    def launch_of(self, task: int, *, near_line: int) -> Launch | None:
        """The launch of `task` in the same server run, last before `near_line`."""
        index = self._launches_by_task
        first, end = index.of(task)
        at = bisect.bisect_right(index.lines, near_line, first, end)
        if at == first:
            return None
        # runs only move forward with the line: if the last launch before `near_line` is
        # in an earlier run, so is every one before it
        launch = index.events[at - 1]
        return launch if self.run_of(launch.line) == self.run_of(near_line) else None

    @cached_property
    def timing_launches(self) -> tuple[Launch | None, ...]:
        """`launch_of` each timing block (None for a block with no task), in `timings`'
        order: found in one walk of the launches beside the blocks, both in line order,
        instead of three look-ups per block (`log.intact` asks for all 18,000 of a
        near-cap log's)."""
        found: list[Launch | None] = []
        latest: dict[int, tuple[int, Launch]] = {}  # task: (run, its last launch so far)
        launches, launch_runs = self.launches, self.launch_runs
        at = 0
        for run, timing in zip(self.timing_runs, self.timings, strict=True):
            while at < len(launches) and launches[at].line <= timing.line:
                latest[launches[at].task] = (launch_runs[at], launches[at])
                at += 1
            last = latest.get(timing.task) if timing.task is not None else None
            found.append(last[1] if last is not None and last[0] == run else None)
        return tuple(found)

    def ended_tasks(self) -> frozenset[tuple[int, int | None]]:
        """(run, task) of every task the log shows ended: by its timing block (it
        finished) or by its `cancel task` line."""
        return self._ended

    def unfinished(self) -> list[Cancel | Release]:
        """The evidence of tasks that ended before they finished, in log order: the
        `cancel task` line of a task with no timing block in its run, and, in logs that
        print no cancel lines at all (`slot released` releases), the release of a task
        with no timing block. (Found once per log: four checks ask.)"""
        return list(self._unfinished)

    @cached_property
    def _finished(self) -> frozenset[tuple[int, int | None]]:
        """(run, task) of every timing block."""
        return frozenset(zip(self.timing_runs, map(attrgetter("task"), self.timings), strict=True))

    @cached_property
    def _ended(self) -> frozenset[tuple[int, int | None]]:
        """`ended_tasks`, found once: `unfinished` and `log.intact` both ask."""
        cancelled = zip(self.cancel_runs, map(attrgetter("task"), self.cancels), strict=True)
        return self._finished | frozenset(cancelled)

    @cached_property
    def _unfinished(self) -> tuple[Cancel | Release, ...]:
        """`unfinished`, found once (a tuple, which no caller can change)."""
        finished = self._finished
        found: list[Cancel | Release] = [
            c
            for run, c in zip(self.cancel_runs, self.cancels, strict=True)
            if (run, c.task) not in finished
        ]
        if any(r.form == "slot released" for r in self.releases):
            ended = self._ended
            found += [
                r
                for run, r in zip(self.release_runs, self.releases, strict=True)
                if r.form == "slot released" and (run, r.task) not in ended
            ]
        return tuple(sorted(found, key=attrgetter("line")))

    def full_prompt_tokens(self, timing: TaskTiming) -> int | None:
        """n_tokens of the task's release minus (eval_n - 1), i.e. the whole prompt size incl.
        cached part; None when unknown.

        The release used is the one of the same task nearest the timing line (the timing
        block and the release are adjacent; which comes first depends on the version).
        None when the timing has no task or no `eval time`, nothing was generated (the
        formula needs at least one generated token), the task has no release, or the result
        is below `prompt_n` (impossible for a consistent pair: a context shift or a release
        from another run).
        """
        if timing.task is None or timing.eval_n is None or timing.eval_n < 1:
            return None
        release = self.release_of(timing.task, near_line=timing.line)
        if release is None:
            return None
        full = release.n_tokens - (timing.eval_n - 1)
        return full if full >= timing.prompt_n else None


class _ByTask(Generic[E]):
    """Events (launches or releases) by task, for O(log n) look-ups by task and line:
    the events sorted by task (a stable sort, so each task's stay in line order), with
    their tasks and lines beside them; a task's events are one slice of them (`of`).

    Three lists for the whole log, not two lists and a tuple per task: a log whose tasks
    are all distinct (a server that ran long, 19,000 tasks near the caps) made 57,000
    small containers for two look-ups, 6 MiB of the grade's peak."""

    def __init__(self, events: Iterable[E]) -> None:
        self.events: list[E] = sorted(events, key=attrgetter("task"))
        self.tasks: list[int] = list(map(attrgetter("task"), self.events))
        self.lines: list[int] = list(map(attrgetter("line"), self.events))

    def of(self, task: int) -> tuple[int, int]:
        """Where `task`'s events are: `events[first:end]` (empty when it has none)."""
        first = bisect.bisect_left(self.tasks, task)
        return first, bisect.bisect_right(self.tasks, task, first)
