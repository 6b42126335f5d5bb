"""Scan a llama.cpp `llama-server` text log for what the grader needs, in every log era.

The lab asks students to save the server's log (`server.log`). The grader reads three things
from it, and each needs only a few line shapes, so this is a scanner, not a full log parser:

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
  `slot released` line with `n_past` and `id_task`/`task_id` fields.

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

Speed. Lines are not visited one by one: `str.find` jumps to the lines holding a keyword and
`str.count` numbers them, so Python code runs only for the lines read. Each pattern run on
many lines starts with a literal (no leading `\b` or lookbehind), which lets the regex engine
skip to that literal; no pattern can backtrack more than linearly in the line. The real
capture repeated to 10^6 lines (38% of them read) scans in about 3 s.

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

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

__all__ = ["Cancel", "Release", "ServerLog", "TaskTiming", "scan_log"]

# -- patterns ------------------------------------------------------------------------------

_ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI, e.g. colours "\x1b[32m"
    r"|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC, up to BEL or ST (never past a line end)
    r"|[@-Z\\-_])?"  # other two-byte escapes; a lone ESC is dropped too
)
"""ANSI escape sequences, removed from the lines this module reads (never past a line end)."""

_WRAPPER = re.compile(
    r"[ \t]*(?:"
    r"[A-Za-z0-9][\w.-]* +\| ?"  # docker compose: "llm-1  | ", "voice-llm_1  | "
    r"|[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \S+ [^\s\[\]:]+(?:\[\d+\])?: "
    # journald short: "Nov 30 12:00:01 pod llama-server[123]: "
    r"|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})? "
    r"(?:\S+ [^\s\[\]:]+(?:\[\d+\])?: )?"  # ISO timestamp, journald short-iso
    r"|\[pod/[^\]\s]+\] "  # kubectl logs --prefix
    r"|\d+\.\d{2}\.\d{3}\.\d{3} (?:[A-Z] )?"  # llama.cpp "0.53.596.284 I "
    r")"
)
"""One wrapper at the start of a line; applied repeatedly (wrappers nest)."""
_MAX_WRAPPERS = 8
"""More nested wrappers than any real setup; bounds the work on adversarial lines."""

# The patterns run on many lines start with a literal (no `\b`, no lookbehind first), so the
# regex engine jumps between occurrences of that literal like `str.find` instead of trying
# every position; measured 5-20 times faster on real lines.
_SLOT = re.compile(r"slot +([^\s:|]{1,64}): +id +-?\d{1,9} +\| +task +(-?\d{1,18}) +\|")
"""`slot print_timing: id  0 | task 65 |`, the `SLT_*` prefix; group 1 function, 2 task."""

_PROMPT = re.compile(
    r"prompt eval time\s*=\s*(\d{1,30}(?:\.\d{1,30})?)\s*ms\s*/\s*(\d{1,18})\s*tokens\b"
)
_EVAL = re.compile(
    r"eval time\s*=\s*(\d{1,30}(?:\.\d{1,30})?)\s*ms\s*/\s*(\d{1,18})\s*(?:tokens|runs)\b"
)
"""`eval time` and `generation eval time`; the caller rejects a match preceded by `prompt `."""
_PERF_TOTAL = re.compile(
    r"\b(?:llama_print_timings|llama_perf_context_print|common_perf_print)\s*:"
)
"""Library-wide totals printed at exit by other tools; not a task's timing."""

_CANCEL = re.compile(r"\bcancel task\b")
_ID_TASK = re.compile(r"_(?:task(?<=id_task)|id(?<=task_id))\"?\s*[:=]\s*(-?\d{1,18})(?!\d)")
"""`id_task = 12` (cancel line), `"id_task":12` (JSON), `id_task=12` (key=value), `task_id`."""
_STOP = re.compile(r"stop processing: n_(?:tokens|past) = (\d{1,18})(?!\d)")
_SLOT_RELEASED = re.compile(r"\bslot released\b")
_N_PAST = re.compile(r"\bn_past\"?\s*[:=]\s*(\d{1,18})(?!\d)")

_KEYWORDS = ("eval time", "cancel task", "stop processing", "slot released")
"""Every line this module reads contains one of these, or ends with `|` (a prefix-only line)."""
_PREFIX_ONLY_END = re.compile(r"\|[ \t]*(?:\x1b\[[0-?]*[ -/]*[@-~][ \t]*)*$", re.MULTILINE)
"""A line ending with `|`, perhaps followed by colour resets."""


# -- result types --------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskTiming:
    """One task's `prompt eval time` line, with its `eval time` line when there is one.

    `prompt_n` counts only the prompt tokens the server computed: with the KV cache reused it
    is the uncached remainder (1 for a full hit), which is exactly what the lab measures.
    """

    task: int | None
    """id_task when known (from the line's prefix, a JSON field or the block it continues)."""
    line: int
    """1-based line of the `prompt eval time` line."""
    prompt_ms: float
    prompt_n: int
    eval_ms: float | None
    """From the `eval time` line of the same task, when present."""
    eval_n: int | None


@dataclass(frozen=True)
class Cancel:
    """A `cancel task` line: the server saw the client close the connection."""

    line: int
    task: int | None
    """The `id_task` on that line; None when the line names none."""


@dataclass(frozen=True)
class Release:
    """A slot release (`stop processing`, or `slot released` in JSON logs)."""

    line: int
    task: int
    n_tokens: int
    """The slot's token count at release (`n_tokens`, `n_past` in older logs): the full
    prompt plus the generated tokens minus one."""


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

    @cached_property
    def _releases_by_task(self) -> dict[int, tuple[list[int], list[Release]]]:
        """Per task, the release lines (ascending) and releases, for O(log n) look-ups."""
        index: dict[int, tuple[list[int], list[Release]]] = {}
        for release in self.releases:
            lines, found = index.setdefault(release.task, ([], []))
            lines.append(release.line)
            found.append(release)
        return index

    def release_of(self, task: int, *, near_line: int | None = None) -> Release | None:
        """The release of `task`: the first in the log, or the one nearest `near_line`.

        Task ids restart at 0 when the server restarts, and a log a student appended to may
        hold two runs, so a caller that knows where the task's other lines are should pass
        `near_line`; on a tie the earlier release wins.
        """
        entry = self._releases_by_task.get(task)
        if entry is None:
            return None
        lines, found = entry
        if near_line is None:
            return found[0]
        at = bisect.bisect_left(lines, near_line)
        if at == 0:
            return found[0]
        if at == len(lines):
            return found[-1]
        before, after = found[at - 1], found[at]
        return before if near_line - before.line <= after.line - near_line else after

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


# -- scanning ------------------------------------------------------------------------------


def _normalize(text: str, max_lines: int | None) -> tuple[str, int, bool]:
    """`text` with LF line ends only and no BOM, cut after `max_lines` lines.

    Returns the text, its number of lines and whether lines were cut off. Every step is one
    C-level pass over the text.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    truncated = False
    if max_lines is not None:
        parts = text.split("\n", max_lines)
        if len(parts) > max_lines:  # the last part is everything after line `max_lines`
            rest = parts[-1]
            truncated = rest != ""
            text = text[: len(text) - len(rest)]
    line_count = text.count("\n") + (0 if text == "" or text.endswith("\n") else 1)
    return text, line_count, truncated


def _candidate_starts(text: str) -> list[int]:
    """Start offsets, ascending, of the lines that contain a keyword or end with `|`.

    `str.find` skips the other lines at C speed (a real log is mostly lines this module does
    not read); after a hit the search resumes at the next line, so a long line is not
    searched twice for the same word.
    """
    starts: set[int] = set()
    find, rfind = text.find, text.rfind
    for word in _KEYWORDS:
        at = find(word)
        while at != -1:
            starts.add(rfind("\n", 0, at) + 1)
            end = find("\n", at)
            at = -1 if end == -1 else find(word, end)
    for match in _PREFIX_ONLY_END.finditer(text):
        starts.add(rfind("\n", 0, match.start()) + 1)
    return sorted(starts)


def _unwrap(line: str) -> str:
    """`line` without ANSI escapes and without the wrappers at its start."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    for _ in range(_MAX_WRAPPERS):
        match = _WRAPPER.match(line)
        if match is None:
            break
        line = line[match.end() :]
    return line


def _keeps_block_open(gap: str) -> bool:
    """Whether lines between a prefix-only `print_timing` line and the next line read may
    belong to its block: only blank lines and its `total time` line may."""
    return all("total time" in line or not _unwrap(line).strip() for line in gap.split("\n")[:-1])


def _field_task(line: str) -> int | None:
    """The `id_task`/`task_id` named by a JSON or key=value field, if any."""
    match = _ID_TASK.search(line)
    return int(match.group(1)) if match else None


def scan_log(text: str, *, max_lines: int | None = None) -> ServerLog:
    """Scan a llama-server log; never raises on a `str`, linear in its length.

    `max_lines` bounds the work on a huge upload: only the first `max_lines` lines are
    scanned and `truncated` says whether anything was left. It must not be negative.
    """
    if max_lines is not None and max_lines < 0:
        raise ValueError(f"max_lines must be >= 0 or None, not {max_lines}")
    text, line_count, truncated = _normalize(text, max_lines)

    prompts: list[tuple[int | None, int, float, int]] = []  # task, line, prompt ms and n
    evals: dict[int, tuple[float, int]] = {}  # index in `prompts` -> eval ms and n
    open_timing: dict[int | None, int] = {}  # task -> index of its timing still without eval
    cancels: list[Cancel] = []
    releases: list[Release] = []
    pending: int | None = None  # task of a prefix-only `print_timing` line (2024-25 era)
    has_pending = False

    number, previous, last_end = 1, 0, -1
    for start in _candidate_starts(text):
        number += text.count("\n", previous, start)
        previous = start
        if has_pending and start > last_end + 1:
            has_pending = _keeps_block_open(text[last_end + 1 : start])
        last_end = text.find("\n", start)
        if last_end == -1:
            last_end = len(text)
        line = text[start:last_end]
        if "\x1b" in line:
            line = _ANSI.sub("", line)

        slot = _SLOT.search(line)
        own_task = int(slot.group(2)) if slot is not None else _field_task(line)
        continuation = False

        if "eval time" in line and not ("_print" in line and _PERF_TOTAL.search(line)):
            continuation = own_task is None
            task = pending if continuation and has_pending else own_task
            prompt = _PROMPT.search(line)
            if prompt is not None:
                open_timing[task] = len(prompts)
                prompts.append((task, number, float(prompt.group(1)), int(prompt.group(2))))
            else:
                evaluated = _EVAL.search(line)
                if evaluated is not None and line.endswith("prompt ", 0, evaluated.start()):
                    evaluated = None  # a malformed `prompt eval time` line
                at = open_timing.pop(task, None) if evaluated is not None else None
                if evaluated is not None and at is not None:
                    evals[at] = (float(evaluated.group(1)), int(evaluated.group(2)))

        if "cancel task" in line and _CANCEL.search(line) is not None:
            cancels.append(Cancel(line=number, task=_field_task(line)))

        if own_task is not None:
            count = None
            if "stop processing" in line:
                count = _STOP.search(line)
            elif "slot released" in line and _SLOT_RELEASED.search(line) is not None:
                count = _N_PAST.search(line)
            if count is not None:
                releases.append(Release(line=number, task=own_task, n_tokens=int(count.group(1))))

        if (
            slot is not None
            and slot.group(1).startswith("print_timing")
            and not line[slot.end() :].strip()
        ):
            pending, has_pending = own_task, True  # the block's lines follow, unprefixed
        elif has_pending and not continuation and _unwrap(line).strip():
            has_pending = False

    return ServerLog(
        line_count=line_count,
        timings=tuple(
            TaskTiming(task, line, prompt_ms, prompt_n, *evals.get(i, (None, None)))
            for i, (task, line, prompt_ms, prompt_n) in enumerate(prompts)
        ),
        cancels=tuple(cancels),
        releases=tuple(releases),
        truncated=truncated,
    )
