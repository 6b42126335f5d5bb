"""Scan a llama.cpp `llama-server` text log for what the grader needs, in every log era.

The lab asks students to save the server's log (`server.log`). The grader reads a few things
from it, and each needs only a few line shapes, so this is a scanner, not a full log parser
(the types it returns are in `checks.formats.llama_log_model`, the line shapes it matches
in `checks.formats.llama_log_lines`, how it reads the text's lines in `llama_log_text`, how
it builds its events in `llama_log_events`):

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

from checks.formats.llama_log_events import (
    OpenTiming,
    Starts,
    figures_after,
    fill_eval,
    fill_total,
    finished_timings,
    open_timing,
    printed_figures,
    start_up,
)
from checks.formats.llama_log_lines import (
    CANCEL,
    END,
    EVAL,
    N_PAST,
    PERF_TOTAL,
    PROCESSING,
    PROMPT,
    SLOT,
    SLOT_RELEASED,
    STOP,
    TASK_LINE,
    TOTAL,
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
from checks.formats.llama_log_story import scan_story
from checks.formats.llama_log_text import (
    Lines,
    field_task,
    keeps_block_open,
    normalize,
    prefix_ms,
    unwrap,
)

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


def scan_log(text: str, *, max_lines: int | None = None) -> ServerLog:
    """Scan a llama-server log; never raises on a `str`, linear in its length.

    `max_lines` bounds the work on a huge upload: only the first `max_lines` lines are
    scanned and `truncated` says whether anything was left. It must not be negative.
    """
    if max_lines is not None and max_lines < 0:
        raise ValueError(f"max_lines must be >= 0 or None, not {max_lines}")
    text = normalize(text)
    lines = Lines(text, max_lines)

    # each timing as its fields while its eval or total line may still come
    timings: list[OpenTiming | TaskTiming] = []
    open_eval: dict[int | None, int] = {}  # task -> its timing still without an eval line
    open_total: dict[int | None, int] = {}  # task -> its timing still without a total line
    cancels: list[Cancel] = []
    releases: list[Release] = []
    launches: list[Launch] = []
    ends: list[int] = []
    starts = Starts()
    # the task and time of a prefix-only `print_timing` line (2024-25) whose block is open
    pending: tuple[int | None, float | None] | None = None
    task: int | None  # a line's task and time prefix, when it has them
    time_ms: float | None

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
                figures = printed_figures(prompt_per_token, prompt_per_second)
                time_ms = prefix_ms(minutes, seconds, ms, us)
                timings.append(
                    open_timing(
                        task, number, float(prompt_ms), int(prompt_n), figures, time_ms, True
                    )
                )
                starts.close()
            elif eval_ms is not None:
                at = open_eval.pop(int(timing_task), None)
                if at is not None:
                    figures = printed_figures(eval_per_token, eval_per_second)
                    fill_eval(timings, at, float(eval_ms), int(eval_n), figures)
            elif total_ms is not None:
                at = open_total.pop(int(timing_task), None)
                if at is not None:
                    fill_total(timings, at, float(total_ms), int(total_n) if total_n else None)
            elif counter is not None:
                time_ms = prefix_ms(minutes, seconds, ms, us)
                releases.append(
                    Release(
                        number, int(slot_task), int(n_tokens), time_ms, True, counter,
                        "stop processing",
                    )
                )  # fmt: skip
                starts.close()
            elif slot_task is not None:
                time_ms = prefix_ms(minutes, seconds, ms, us)
                launches.append(Launch(number, int(slot_task), time_ms, True))
                starts.close()
            elif cancel_task is not None:
                time_ms = prefix_ms(minutes, seconds, ms, us)
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
        if pending is not None and gap and not keeps_block_open(text[last_end + 1 : start]):
            pending = None
        last_end = text.find("\n", start)
        if last_end == -1:
            last_end = len(text)
        line, time_ms = unwrap(text[start:last_end])
        prefixed = time_ms is not None

        slot = SLOT.search(line)
        own_task = int(slot.group(2)) if slot is not None else field_task(line)
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
                    open_timing(
                        task,
                        number,
                        float(prompt.group(1)),
                        int(prompt.group(2)),
                        figures_after(line, prompt.end()),
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
                    fill_eval(timings, at, ms, n, figures_after(line, evaluated.end()))
            elif (total := TOTAL.search(line)) is not None:
                at = open_total.pop(task, None)
                if at is not None:
                    total_n = total.group(2)
                    fill_total(
                        timings, at, float(total.group(1)), int(total_n) if total_n else None
                    )

        if "cancel task" in line and CANCEL.search(line) is not None:
            cancels.append(Cancel(number, field_task(line), time_ms, prefixed))
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
        elif (facts := start_up(line)) and not continuation and (own_task is None or own_task < 0):
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
        timings=finished_timings(timings),
        cancels=tuple(cancels),
        releases=tuple(releases),
        truncated=lines.truncated,
        launches=tuple(launches),
        starts=starts.result(),
        ends=tuple(ends),
        story=scan_story(text, lines.count),
    )
