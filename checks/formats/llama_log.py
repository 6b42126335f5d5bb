"""Scan a llama.cpp `llama-server` text log for what the grader needs, in every log era.

The lab asks students to save the server's log (`server.log`). The grader reads a few things
from it, and each needs only a few line shapes, so this is a scanner, not a full log parser
(the types it returns are in `checks.formats.llama_log_model`, the line shapes it matches
in `checks.formats.llama_log_lines`):

- `cancel task`: the server noticed the client closed the connection (lab step "cancel").
  Its absence is mistake 3 of the lab ("stopped reading without closing").
- the per-task timing block (`prompt eval time = X ms / N tokens`, `eval time = ...`), the
  server's own account of each request, to compare with what the client recorded;
- the slot release (`stop processing: n_tokens = N`), whose N is the slot's token count when
  the task ended: full prompt + generated - 1 (the last sampled token is never decoded).
  With `eval time`'s token count it gives the *whole* prompt size of a task even when the
  KV cache made `prompt eval` count only the uncached remainder (mistake 2, "cache left on
  while measuring prefill"): see `ServerLog.full_prompt_tokens`.

Eras, and the evidence for each line shape (looked up in the llama.cpp sources; "repo@commit
path" is the stored version that was read):

- 2026 (the lab's build b1-0c1e570; real captures in `tests/data/real_*_server.log`).
  ggml-org/llama.cpp@0b42458e tools/server/server-queue.cpp, `server_response_reader::stop()`:
  `SRV_WRN("cancel task, id_task = %d\\n", id_task)`; with the `srv  %12.*s: ` prefix that is
  `srv          stop: cancel task, id_task = 774`. tools/server/server-context.cpp prints
  each timing line with its own `SLT_INF` (`slot %12.*s: id %2d | task %d | ` prefix) and
  releases with `"stop processing: n_tokens = %d, truncated = %d"` (`prompt.n_tokens()`).
  common/log.cpp prefixes every message with `"%d.%02d.%03d.%03d "` (minutes, seconds, ms,
  us) and a level letter (`I `, `W `, `E `, `D `), both wrapped in ANSI colours on a tty.
- 2024-25. ggml-org/llama.cpp@03d4bccb examples/server/server.cpp: `cancel_tasks()` logs
  `SRV_WRN("cancel task, id_task = %d\\n")`, i.e. `srv  cancel_tasks: cancel task, id_task
  = 12`; `server_slot::release()` logs `"stop processing: n_past = %d, truncated = %d"`;
  `print_timings()` is ONE `SLT_INF` whose format starts with `"\\n"`, so the log shows the
  prefix `slot print_timing: id  0 | task 0 | ` alone on a line and the `prompt eval time`,
  `eval time` and `total time` lines after it with no prefix at all (the log prefix and
  timestamp are printed once per message, not per line). Depending on the version the release
  line comes before or after the timing block (`slot.release(); slot.print_timings();` in
  some, the reverse in others), which is why releases are matched by nearness, not order.
- mid 2024, JSON lines. ggerganov/llama.cpp@0001ec37 examples/server/server.cpp:
  `print_timings()` logs `LOG_INFO("prompt eval time     = %10.2f ms / %5d tokens (...)",
  {id_slot, id_task, t_prompt_processing, n_prompt_tokens_processed, t_token,
  n_tokens_second})`, then `"generation eval time = %10.2f ms / %5d runs   (...)"` with
  `{id_slot, id_task, t_token_generation, n_decoded, ...}` and `"          total time = ..."`;
  `update_slots()` logs `LOG_INFO("slot released", {id_slot, id_task, n_ctx, n_past,
  n_system_tokens, n_cache_tokens, truncated})`. `server_log()` (examples/server/utils.hpp of
  that period) prints `{"tid", "timestamp", "level", "function", "line", "msg", ...extra}` as
  one JSON line, or with `--log-format text` `INFO [   print_timings] <msg> | key=value ...`.
  That era logs no cancel line at all (`request_cancel()` posts the task silently), so such
  a log can never show `cancel task`. Earlier (ggerganov/llama.cpp@011ea985
  examples/server/utils.hpp) the keys were `message`, `slot_id` and `task_id`; `task_id` is
  accepted too, and the oldest `print_timings: prompt eval time = ...` lines (no task id) give
  timings with `task=None`.

What is recognised, per line:

- a cancel is any line with the phrase `cancel task`; its task is the number after
  `id_task = ` (or `"id_task": ` / `id_task=`) on the same line, None when there is none;
- a timing is a `prompt eval time = X ms / N tokens` line; its task is the one named by the
  line's own `slot ...: id S | task T |` prefix, else by an `id_task`/`task_id` field (JSON or
  key=value), else, for a line with neither, by the prefix-only `print_timing` line whose
  block it continues (2024-25; the block ends at the first line that is neither blank nor one
  of its `... time =` lines), else None. `eval time` / `generation eval time` lines (`tokens`
  or `runs`) are attributed the same way and complete the latest open timing of that task;
- a release is `stop processing: n_tokens = N` or `n_past = N` with a slot prefix, or a
  `slot released` line with `n_past` and `id_task`/`task_id` fields;
- a launch is a `processing task` line with a slot prefix or an `id_task` field;
- a timing also keeps what its lines print beside `X ms / N tokens` (`ms per token`,
  `tokens per second`) and its `total time = X ms / N tokens` line, so that a check can
  redo the block's own arithmetic;
- every event keeps the time of llama.cpp's own time prefix (`0.53.999.256 I `: minutes,
  seconds, ms, us since the server started) and whether its line has one; a split block
  takes both from its prefix-only line;
- the start-up lines give, per server run, the build and commit (`build: 5415 (8733e0c1)`,
  or the JSON/key=value `build info`), the model file (`loading model '<path>'`, or the
  model loader's `loaded meta data ... from <path>`), `n_slots` and `n_ctx_slot`; a
  start-up line after a task or after the end-of-run line (`cleaning up before exit`)
  begins the next run.

Wrappers. Before llama.cpp's own text a line may carry a docker-compose prefix (`llm-1  | `,
`voice-llm_1  | `), a journald prefix (`Nov 30 12:00:01 pod llama-server[123]: `, or the
short-iso form), an ISO-8601 timestamp (`docker logs -t`), a kubectl `--prefix`
(`[pod/name/container] `) and the llama.cpp `0.53.596.284 I ` time/level prefix, nested in
any order, and ANSI colour codes. The patterns are *searched* in the line, not anchored at its
start, so no prefix, known or not, can hide a line; ANSI escapes are removed from every line
read. The known wrappers are matched (anchored at the line start) only where a line must be
seen as otherwise empty: a wrapped blank line does not end a 2024-25 timing block. Keywords
are found in the raw line, so an escape sequence *inside* `cancel task` would hide it;
llama.cpp colours only the time and level prefix (common/log.cpp), never the message.

Speed. Lines are not read one by one: a comprehension keeps the indexes of the lines holding
a keyword (`in` tests, a chunk of lines at a time), which give their numbers and, with the
chunk's running sum of line lengths, their offsets, so the scan's own Python code runs
only for the lines read. Each pattern run on
many lines starts with a literal (no leading `\b` or lookbehind), which lets the regex engine
skip to that literal; no pattern can backtrack more than linearly in the line. The five
task lines of the lab's build (launch, the three timing lines, the release: nine in ten of
the lines a 2026 log is read for) and the four each server run adds (a cancel, the model,
the slots, the end of the run) are recognised whole by one pattern (`TASK_LINE`, its
repeats possessive) and read from its groups, without unwrapping the line or trying the
other patterns; any other line, or one of them wrapped or coloured, goes the general way,
which reads it the same (a test says so).

Deliberate choices beyond "find the lines":

- Lines end at CRLF, a lone LF or a lone CR (as in `sse.py`), nothing else (unlike
  `str.splitlines()`, which also splits at U+000B, U+000C, U+001C-U+001E, U+0085, U+2028
  and U+2029, which a log line may contain). A final line without a line end is a line; a
  line end at the very end of the text does not start another one. One leading U+FEFF is
  ignored.
- Whole-context totals printed by the library, not the server (`llama_print_timings:`,
  `llama_perf_context_print:`, `common_perf_print:`), are not task timings and are skipped.
- Integers of more than 18 digits are not numbers this server prints; such a field is
  treated as absent (so `int()` never meets a huge string).
- `full_prompt_tokens` returns None rather than a number it cannot vouch for: no task, no
  `eval time`, no generated token, no release of that task, or a result smaller than the
  tokens actually evaluated (context shift, or a release from another run).

Every `str` scans without raising, in time linear in its length.
"""

from __future__ import annotations

import itertools

from checks.formats.llama_log_lines import (
    ANSI,
    BUILD,
    CANCEL,
    END,
    EVAL,
    FIGURES,
    ID_TASK,
    MAX_WRAPPERS,
    MODEL,
    N_CTX_SLOT,
    N_PAST,
    N_SLOTS,
    PERF_TOTAL,
    PREFIX_ONLY_END,
    PROCESSING,
    PROMPT,
    SLOT,
    SLOT_RELEASED,
    STOP,
    TASK_LINE,
    TOTAL,
    WRAPPER,
)
from checks.formats.llama_log_model import (
    Cancel,
    Figures,
    Launch,
    Release,
    ServerLog,
    ServerStart,
    TaskTiming,
)

TYPE_CHECKING = False  # typing is for type checkers only: a check never imports it
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "Cancel",
    "Figures",
    "Launch",
    "Release",
    "ServerLog",
    "ServerStart",
    "TaskTiming",
    "scan_log",
]

# -- scanning ------------------------------------------------------------------------------


def _normalize(text: str) -> str:
    """`text` with LF line ends only and no BOM. Every step is one C-level pass over the
    text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


_CHUNK = 1 << 16
"""Characters of the text split into lines at a time by `_Lines.candidates` (a whole
near-cap log's lines would weigh half as much again as its text). The scan makes its
events from one chunk's lines before the next chunk is split, so a chunk's lines are
freed among those events: 64 KiB of them leave less memory behind than 1 MiB do
(measured: peak growth 3.75x the bytes read against 3.87x at 1 MiB, near the caps)."""


class _Lines:
    """A text's lines (LF line ends), read a chunk at a time, up to `max_lines` of them;
    once read, how many lines there were (`count`, at most `max_lines`) and whether any
    was left unread after the cut (`truncated`).

    The lines are counted as the chunks are split, not by a pass of its own over the
    text (134 M instructions on a 16 MB log), and a text over the cap is not split
    whole to be cut.
    """

    def __init__(self, text: str, max_lines: int | None) -> None:
        self.text, self.max_lines = text, max_lines
        self.count, self.truncated = 0, False

    def candidates(self) -> Iterator[list[tuple[int, int]]]:
        """The start offset and 1-based number, ascending, of each line this module reads:
        those that contain a keyword of the lines it reads, or end with `|` (a prefix-only
        line); a chunk's lines as one list (the caller chains them in C,
        `chain.from_iterable`, rather than resuming this generator for each of a near-cap
        log's 100,000 lines read).

        The text is split into lines a chunk at a time and every line tested with `in`, at
        C speed (a real log is mostly lines this module does not read): about twice as fast
        as jumping from keyword to keyword with `str.find`, and no set of offsets to sort.
        The keywords are tried in the order of the lab build's lines, the most frequent
        first, and two that share a word only after that word (`processing`, `load`): a
        line the scan does not read (a third of a near-cap log) fails ten tests, not
        twelve, and a launch line is found by the fourth, not the sixth.
        Most slot lines hold a `|`; one without an escape sequence ends as `PREFIX_ONLY_END`
        says exactly when it ends with `|` but for spaces and tabs, which `rstrip` tells
        without starting the regex engine.
        A line's number is its index in the chunk's lines, and its offset comes from the
        chunk's running sum of line lengths (`accumulate` over `map(len, ...)`, in C): no
        counting of line ends between one line read and the next.
        """
        text, max_lines = self.text, self.max_lines
        begin, first = 0, 1  # the chunk's offset in the text and its first line's number
        while begin < len(text):
            end = text.find("\n", begin + _CHUNK)
            end = len(text) if end == -1 else end + 1  # chunks end at a line end
            lines = text[begin:end].split("\n")  # lines[i] is line first + i
            # the last piece is "" but at the end of a text without a final line end
            cut = max_lines is not None and first + len(lines) - 2 >= max_lines
            if cut:  # line `max_lines` ends in this chunk: the lines after it are unread
                keep = max_lines - first + 1  # type: ignore[operator]
                rest = lines[keep:]  # what follows line `max_lines`'s end, as pieces
                self.truncated = len(rest) > 1 or rest[0] != "" or end < len(text)
                lines = [*lines[:keep], ""]
            found = [
                index
                for index, line in enumerate(lines)
                if "eval time" in line
                or (
                    "processing" in line
                    and ("stop processing" in line or "processing task" in line)
                )
                or "total time" in line
                or "cancel task" in line
                or "slot released" in line
                or ("load" in line and ("loading model" in line or "loaded meta data" in line))
                or "n_slots" in line
                or "n_ctx_slot" in line
                or "build" in line
                or "cleaning up" in line
                or (
                    "|" in line  # a prefix-only line: `|` last but for blanks and colour resets
                    and (
                        PREFIX_ONLY_END.search(line) is not None
                        if "\x1b" in line
                        else line.rstrip(" \t").endswith("|")
                    )
                )
            ]
            # before[i]: the characters of the chunk's lines before line i, less their ends
            before = list(itertools.accumulate(map(len, lines), initial=0))
            read = [(begin + before[i] + i, first + i) for i in found]
            begin, first = end, first + len(lines) - 1  # the last piece is the next chunk's
            del lines, before  # not alive beside the events the scan makes of this chunk
            yield read
            if cut:
                self.count = max_lines  # type: ignore[assignment]
                return
        self.count = first - 1 + (0 if text == "" or text.endswith("\n") else 1)


def _unwrap(line: str) -> tuple[str, float | None]:
    """`line` without ANSI escapes and the wrappers at its start, and the time of its
    llama.cpp time prefix (ms since the server started) if it has one."""
    if "\x1b" in line:
        line = ANSI.sub("", line)
    time_ms = None
    for _ in range(MAX_WRAPPERS):
        match = WRAPPER.match(line)
        if match is None:
            break
        if match.group("m") is not None:
            time_ms = _prefix_ms(*match.group("m", "s", "ms", "us"))
        line = line[match.end() :]
    return line, time_ms


def _prefix_ms(minutes: str, seconds: str, ms: str, us: str) -> float:
    """The time of llama.cpp's `0.53.999.256` prefix, in ms since the server started.

    It is read for some 60,000 lines of a near-cap log. Each field is read by `int`, which
    takes half the time `float` does on a short string (though more instructions): the
    whole ms are an exact integer, and only `us / 1000` and the last sum round, as when
    the fields were read as floats, so the result is the very float it was then.
    """
    return (int(minutes) * 60 + int(seconds)) * 1000 + int(ms) + int(us) / 1000


def _keeps_block_open(gap: str) -> bool:
    """Whether lines between a prefix-only `print_timing` line and the next line read may
    belong to its block: only blank lines and its `total time` line may."""
    return all(
        "total time" in line or not _unwrap(line)[0].strip() for line in gap.split("\n")[:-1]
    )


def _field_task(line: str) -> int | None:
    """The `id_task`/`task_id` named by a JSON or key=value field, if any."""
    match = ID_TASK.search(line)
    return int(match.group(1)) if match else None


_NO_FIGURES = Figures()
"""What a timing line without `(... ms per token, ... tokens per second)` prints; one
shared instance (the type is frozen) rather than one per line."""


def _figures(line: str, after: int) -> Figures:
    match = FIGURES.search(line, after)
    if match is None:
        return _NO_FIGURES
    return _printed_figures(match.group(1), match.group(2))


def _printed_figures(per_token: str | None, per_second: str | None) -> Figures:
    """The figures a timing line prints after its ms and tokens (both None when it prints
    none), each None for `inf` / `nan` (a division by a zero time). Read for 36,000 lines
    of a near-cap log: each figure inline, not by a call of its own."""
    if per_token is None:
        return _NO_FIGURES
    return Figures(
        None if per_token[-1] in "fn" else float(per_token),
        None if per_second[-1] in "fn" else float(per_second),  # type: ignore[index,arg-type]
    )


class _Starts:
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


def _start_up(line: str) -> dict[str, object]:
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


_OpenTiming = list
"""A timing whose `eval time` or `total time` line may still come: `TaskTiming`'s fields
as a list, in its field order (`_open_timing`), filled in place by `_fill_eval` and
`_fill_total`. A list built positionally costs a third of a dict of keywords, and the
`TaskTiming` is then made from it positionally (a near-cap log has 18,000 blocks)."""
_EVAL_MS, _EVAL_N, _EVAL_FIGURES, _TOTAL_MS, _TOTAL_N = 4, 5, 7, 8, 9
"""Where an open timing holds what its `eval time` and `total time` lines add."""


def _open_timing(
    task: int | None,
    line: int,
    prompt_ms: float,
    prompt_n: int,
    figures: Figures,
    time_ms: float | None,
    prefixed: bool,
) -> _OpenTiming:
    """A `prompt eval time` line's timing, as `TaskTiming`'s fields in order, with its
    defaults where the eval and total lines have not said yet."""
    return [task, line, prompt_ms, prompt_n, None, None, figures, _NO_FIGURES, None, None,
            time_ms, prefixed]  # fmt: skip


def _fill_eval(
    timings: list[_OpenTiming | TaskTiming], at: int, ms: float, n: int, figures: Figures
) -> None:
    """Add an `eval time` line to the open timing at `at` (see `_fill_total`)."""
    fields = timings[at]
    fields[_EVAL_MS], fields[_EVAL_N], fields[_EVAL_FIGURES] = ms, n, figures  # type: ignore[index]
    if fields[_TOTAL_MS] is not None:  # type: ignore[index]
        timings[at] = TaskTiming(*fields)  # type: ignore[misc]


def _fill_total(timings: list[_OpenTiming | TaskTiming], at: int, ms: float, n: int | None) -> None:
    """Add a `total time` line to the open timing at `at`; once it has its eval line too
    it becomes its `TaskTiming` (both lines were popped from the open ones, so nothing
    will add to it): a near-cap log's 18,000 blocks are not all held as lists, beside
    their events, until the end of the scan."""
    fields = timings[at]
    fields[_TOTAL_MS], fields[_TOTAL_N] = ms, n  # type: ignore[index]
    if fields[_EVAL_MS] is not None:  # type: ignore[index]
        timings[at] = TaskTiming(*fields)  # type: ignore[misc]


def _timings(found: list[_OpenTiming | TaskTiming]) -> tuple[TaskTiming, ...]:
    """The timings, those still open (no `eval time` or no `total time` line) built from
    their fields, each list dropped as soon as its timing exists."""
    for index, fields in enumerate(found):
        if isinstance(fields, list):
            found[index] = TaskTiming(*fields)
    return tuple(found)  # type: ignore[arg-type]


def scan_log(text: str, *, max_lines: int | None = None) -> ServerLog:
    """Scan a llama-server log; never raises on a `str`, linear in its length.

    `max_lines` bounds the work on a huge upload: only the first `max_lines` lines are
    scanned and `truncated` says whether anything was left. It must not be negative.
    """
    if max_lines is not None and max_lines < 0:
        raise ValueError(f"max_lines must be >= 0 or None, not {max_lines}")
    text = _normalize(text)
    lines = _Lines(text, max_lines)

    # each timing as its fields while its eval or total line may still come
    timings: list[_OpenTiming | TaskTiming] = []
    open_eval: dict[int | None, int] = {}  # task -> its timing still without an eval line
    open_total: dict[int | None, int] = {}  # task -> its timing still without a total line
    cancels: list[Cancel] = []
    releases: list[Release] = []
    launches: list[Launch] = []
    ends: list[int] = []
    starts = _Starts()
    # the task and time of a prefix-only `print_timing` line (2024-25) whose block is open
    pending: tuple[int | None, float | None] | None = None

    last_end = -1
    for start, number in itertools.chain.from_iterable(lines.candidates()):
        task_line = TASK_LINE.match(text, start)
        if task_line is not None:
            # one of the lab's build's five task lines or four run lines (`TASK_LINE`):
            # what the general path below makes of it, without unwrapping the line or
            # trying every pattern; its groups in one call (`TASK_LINE_GROUPS`, the
            # pattern's order); the time prefix is read only for the lines whose event
            # keeps it (an eval or total line adds to the timing its prompt line made)
            pending = None  # and, so, the general path's next line reads no gap
            (minutes, seconds, ms, us, timing_task, prompt_ms, prompt_n, prompt_per_token,
             prompt_per_second, eval_ms, eval_n, eval_per_token, eval_per_second, total_ms,
             total_n, slot_task, counter, n_tokens, cancel_task, model, n_slots,
             n_ctx_slot) = task_line.groups()  # fmt: skip
            if prompt_ms is not None:
                task = int(timing_task)
                open_eval[task] = open_total[task] = len(timings)
                figures = _printed_figures(prompt_per_token, prompt_per_second)
                time_ms = _prefix_ms(minutes, seconds, ms, us)
                timings.append(
                    _open_timing(
                        task, number, float(prompt_ms), int(prompt_n), figures, time_ms, True
                    )
                )
                starts.close()
            elif eval_ms is not None:
                at = open_eval.pop(int(timing_task), None)
                if at is not None:
                    figures = _printed_figures(eval_per_token, eval_per_second)
                    _fill_eval(timings, at, float(eval_ms), int(eval_n), figures)
            elif total_ms is not None:
                at = open_total.pop(int(timing_task), None)
                if at is not None:
                    _fill_total(timings, at, float(total_ms), int(total_n) if total_n else None)
            elif counter is not None:
                time_ms = _prefix_ms(minutes, seconds, ms, us)
                releases.append(
                    Release(
                        number, int(slot_task), int(n_tokens), time_ms, True, counter,
                        "stop processing",
                    )
                )  # fmt: skip
                starts.close()
            elif slot_task is not None:
                time_ms = _prefix_ms(minutes, seconds, ms, us)
                launches.append(Launch(number, int(slot_task), time_ms, True))
                starts.close()
            elif cancel_task is not None:
                time_ms = _prefix_ms(minutes, seconds, ms, us)
                cancels.append(Cancel(number, int(cancel_task), time_ms, True))
                starts.close()
            elif model is not None:
                starts.note(number, model=model)
            elif n_slots is not None:
                starts.note(number, n_slots=int(n_slots), n_ctx_slot=int(n_ctx_slot))
            else:  # the end of a server run
                ends.append(number)
                starts.close()
            continue
        gap = start > last_end + 1
        if pending is not None and gap and not _keeps_block_open(text[last_end + 1 : start]):
            pending = None
        last_end = text.find("\n", start)
        if last_end == -1:
            last_end = len(text)
        line, time_ms = _unwrap(text[start:last_end])
        prefixed = time_ms is not None

        slot = SLOT.search(line)
        own_task = int(slot.group(2)) if slot is not None else _field_task(line)
        continuation = False
        task_event = False

        if ("eval time" in line or "total time" in line) and not (
            "_print" in line and PERF_TOTAL.search(line)
        ):
            continuation = own_task is None and pending is not None
            task = pending[0] if continuation and pending is not None else own_task
            block_time, block_prefixed = (
                (pending[1], pending[1] is not None)
                if continuation and pending
                else (time_ms, prefixed)
            )
            prompt = PROMPT.search(line)
            if prompt is not None:
                open_eval[task] = open_total[task] = len(timings)
                timings.append(
                    _open_timing(
                        task,
                        number,
                        float(prompt.group(1)),
                        int(prompt.group(2)),
                        _figures(line, prompt.end()),
                        block_time,
                        block_prefixed,
                    )
                )
                task_event = True
            elif (evaluated := EVAL.search(line)) is not None and not line.endswith(
                "prompt ", 0, evaluated.start()
            ):
                at = open_eval.pop(task, None)
                if at is not None:
                    ms, n = float(evaluated.group(1)), int(evaluated.group(2))
                    _fill_eval(timings, at, ms, n, _figures(line, evaluated.end()))
            elif (total := TOTAL.search(line)) is not None:
                at = open_total.pop(task, None)
                if at is not None:
                    total_n = total.group(2)
                    _fill_total(
                        timings, at, float(total.group(1)), int(total_n) if total_n else None
                    )

        if "cancel task" in line and CANCEL.search(line) is not None:
            cancels.append(Cancel(number, _field_task(line), time_ms, prefixed))
            task_event = True

        if own_task is not None:
            count, form = None, "stop processing"
            if "stop processing" in line:
                count = STOP.search(line)
            elif "slot released" in line and SLOT_RELEASED.search(line) is not None:
                count, form = N_PAST.search(line), "slot released"
            if count is not None:
                n_tokens, counter = int(count.group(2)), count.group(1)
                releases.append(
                    Release(number, own_task, n_tokens, time_ms, prefixed, counter, form)
                )
                task_event = True
            elif "processing task" in line and own_task >= 0 and PROCESSING.search(line):
                launches.append(Launch(number, own_task, time_ms, prefixed))
                task_event = True

        if task_event:
            starts.close()
        elif (facts := _start_up(line)) and not continuation and (own_task is None or own_task < 0):
            # a slot line of a real task (2025: "new prompt, n_ctx_slot = 4096, ...") is
            # no start-up line; the start-up ones name task -1, or none
            starts.note(number, **facts)
        if "cleaning up" in line and END.search(line) is not None:
            ends.append(number)
            starts.close()

        if (
            slot is not None
            and slot.group(1).startswith("print_timing")
            and not line[slot.end() :].strip()
        ):
            pending = (own_task, time_ms)  # the block's lines follow, unprefixed
        elif pending is not None and not continuation and line.strip():
            pending = None

    return ServerLog(
        line_count=lines.count,
        timings=_timings(timings),
        cancels=tuple(cancels),
        releases=tuple(releases),
        truncated=lines.truncated,
        launches=tuple(launches),
        starts=starts.result(),
        ends=tuple(ends),
    )
