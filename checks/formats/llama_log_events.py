"""The events `checks.formats.llama_log.scan_log` builds as it reads a log: the figures a
timing line prints, each timing block filled line by line until it is whole, and the
start-up facts grouped into server runs."""

from __future__ import annotations

from typing import Any

from checks.formats.llama_log_lines import BUILD, FIGURES, MODEL, N_CTX_SLOT, N_SLOTS
from checks.formats.llama_log_model import Figures, ServerStart, TaskTiming

NO_FIGURES = Figures()
"""What a timing line without `(... ms per token, ... tokens per second)` prints; one
shared instance (the type is frozen) rather than one per line."""


def figures_after(line: str, after: int) -> Figures:
    match = FIGURES.search(line, after)
    if match is None:
        return NO_FIGURES
    return printed_figures(match.group(1), match.group(2))


def printed_figures(per_token: str | None, per_second: str | None) -> Figures:
    """The figures a timing line prints after its ms and tokens (both None when it prints
    none), each None for `inf` / `nan` (a division by a zero time). Read for 36,000 lines
    of a near-cap log: each figure inline, not by a call of its own."""
    if per_token is None:
        return NO_FIGURES
    return Figures(
        None if per_token[-1] in "fn" else float(per_token),
        None if per_second[-1] in "fn" else float(per_second),  # type: ignore[index,arg-type]
    )


class Starts:
    """The start-up lines seen so far, grouped into server runs.

    A run's start-up lines come before its first task; a start-up line after a task or an
    end-of-run line begins the next run. The first value of each field in a run is kept.
    """

    def __init__(self) -> None:
        self.runs: list[dict[str, object]] = []
        self.open = False

    def note(self, line: int, **values: object) -> None:
        if not self.open:
            self.runs.append({"line": line})
            self.open = True
        run = self.runs[-1]
        for key, value in values.items():
            if value is not None and run.get(key) is None:
                run[key] = value

    def close(self) -> None:
        self.open = False

    def result(self) -> tuple[ServerStart, ...]:
        return tuple(ServerStart(**run) for run in self.runs)  # type: ignore[arg-type]


def start_up(line: str) -> dict[str, object]:
    """The start-up facts `line` states (build, commit, model, n_slots, n_ctx_slot)."""
    found: dict[str, object] = {}
    if "build" in line and (build := BUILD.search(line)) is not None:
        found["build"] = int(build.group(1))
        found["commit"] = build.group(2) or build.group(3)
    if "loading model" in line or "loaded meta data" in line:
        model = MODEL.search(line)
        if model is not None:
            found["model"] = model.group(1) or model.group(2)
    if "n_slots" in line and (slots := N_SLOTS.search(line)) is not None:
        found["n_slots"] = int(slots.group(1))
    if "n_ctx_slot" in line and (ctx := N_CTX_SLOT.search(line)) is not None:
        found["n_ctx_slot"] = int(ctx.group(1))
    return found


OpenTiming = list[Any]
"""A timing whose `eval time` or `total time` line may still come: `TaskTiming`'s fields
as a list, in its field order (`open_timing`), filled in place by `fill_eval` and
`fill_total`. A list built positionally costs a third of a dict of keywords, and the
`TaskTiming` is then made from it positionally (a near-cap log has 18,000 blocks)."""
_EVAL_MS, _EVAL_N, _EVAL_FIGURES, _TOTAL_MS, _TOTAL_N = 4, 5, 7, 8, 9
"""Where an open timing holds what its `eval time` and `total time` lines add."""


def open_timing(
    task: int | None,
    line: int,
    prompt_ms: float,
    prompt_n: int,
    figures: Figures,
    time_ms: float | None,
    prefixed: bool,
) -> OpenTiming:
    """A `prompt eval time` line's timing, as `TaskTiming`'s fields in order, with its
    defaults where the eval and total lines have not said yet."""
    return [task, line, prompt_ms, prompt_n, None, None, figures, NO_FIGURES, None, None,
            time_ms, prefixed]  # fmt: skip


def fill_eval(
    timings: list[OpenTiming | TaskTiming], at: int, ms: float, n: int, figures: Figures
) -> None:
    """Add an `eval time` line to the open timing at `at` (see `fill_total`)."""
    fields = timings[at]
    fields[_EVAL_MS], fields[_EVAL_N], fields[_EVAL_FIGURES] = ms, n, figures  # type: ignore[index]
    if fields[_TOTAL_MS] is not None:  # type: ignore[index]
        timings[at] = TaskTiming(*fields)  # type: ignore[misc]


def fill_total(timings: list[OpenTiming | TaskTiming], at: int, ms: float, n: int | None) -> None:
    """Add a `total time` line to the open timing at `at`; once it has its eval line too
    it becomes its `TaskTiming` (both lines were popped from the open ones, so nothing
    will add to it): a near-cap log's 18,000 blocks are not all held as lists, beside
    their events, until the end of the scan."""
    fields = timings[at]
    fields[_TOTAL_MS], fields[_TOTAL_N] = ms, n  # type: ignore[index]
    if fields[_EVAL_MS] is not None:  # type: ignore[index]
        timings[at] = TaskTiming(*fields)  # type: ignore[misc]


def finished_timings(found: list[OpenTiming | TaskTiming]) -> tuple[TaskTiming, ...]:
    """The timings, those still open (no `eval time` or no `total time` line) built from
    their fields, each list dropped as soon as its timing exists."""
    for index, fields in enumerate(found):
        if isinstance(fields, list):
            found[index] = TaskTiming(*fields)
    return tuple(found)  # type: ignore[arg-type]
