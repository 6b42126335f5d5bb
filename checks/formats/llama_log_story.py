"""What a llama-server log says beside its timing blocks: how each task's prompt met the
slot's cache, and which slots the server used (`checks.formats.llama_log.scan_log` adds
it to its `ServerLog` as `story`).

A timing block says how many prompt tokens a task *computed*; the lines before it say
why. Each era prints them in its own words (looked up in the llama.cpp sources named in
`llama_log`'s docstring, and in the real runs of `tests/data/eras/real_runs/`):

- the prompt's whole size: `new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens =
  1366` (late 2024 to 2025, `update_slots`), `new prompt, ..., task.n_tokens = 1366`
  (2026 builds with `-v`);
- the part kept from the slot's cache: `kv cache rm [5, end)` (2024-25: positions from 5
  on are removed, so 5 were kept), `kv cache rm [p0, end) ... "p0":5` (mid-2024 JSON and
  key=value), `memory_seq_rm [5, end)` (2026 with `-v`);
- a whole prompt found in the cache: `need to evaluate at least 1 token ... n_past =
  1366, n_prompt_tokens = 1366` (2024-25), `need to evaluate at least 1 token for each
  active slot (n_past = 1366, task.n_tokens() = 1366)` (2026, printed at the default
  verbosity), `we have to evaluate at least 1 token to generate logits` (mid 2024). The
  server then recomputes the prompt's last token: the block says 1 token;
- the slots other than slot 0 a line names: `slot launch_slot_: id  1 | task 0 | ...`
  (the `SLT_*` prefix of every slot line), `"id_slot":1` (mid-2024 fields);
- a slot no task had used yet (2026): `selected slot by LRU, t_last = -1`, once per slot
  in each server run;
- how a slot was chosen for a task (2026): `selected slot by LCP similarity, f_sim_best =
  0.111 (> 0.100 thold), f_keep = 0.032`: the common prefix of the new prompt and the
  slot's tokens, as a share of the new prompt (`f_sim_best`) and of the slot's tokens
  (`f_keep`), each printed with three decimals. With the slot's tokens (the previous
  task's release) it gives the new prompt's whole size even for a task that printed no
  timing block (a cancelled one).

Each fact keeps its 1-based line and its task (None where the line names none). The
scan looks for the few words these lines hold with `str.find`, so its cost is that of
the lines that hold them; a line past the scan's `max_lines` is not read.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from checks.formats.llama_log_lines import ANSI, SLOT
from checks.formats.llama_log_text import field_task

SIZE = re.compile(r"(?:n_prompt_tokens|task\.n_tokens)\"?\s*[:=]\s*(\d{1,18})(?!\d)")
"""The whole prompt's size on a `new prompt` line."""
KEPT = re.compile(
    r"(?:kv cache rm|memory_seq_rm) \[(?:(\d{1,18})|p0), end\)"
    r"(?:.{0,4096}?\bp0\"?\s*[:=]\s*(\d{1,18})(?!\d))?"
)
"""`kv cache rm [5, end)`, `memory_seq_rm [5, end)`, or `[p0, end)` with a `p0` field."""
WHOLE = re.compile(r"evaluate at least 1 token\b.{0,4096}?\bn_past\s*=\s*(\d{1,18})(?!\d)")
"""The 2024-26 lines of a whole prompt found in the cache, with its `n_past`."""
WHOLE_OLD = re.compile(r"we have to evaluate at least 1 token to generate logits")
"""The mid-2024 line of a whole prompt found in the cache (it prints no `n_past`)."""
SLOT_ID = re.compile(r"slot +[^\s:|]{1,64}: +id +(\d{1,9}) +\|")
"""The slot a line names in the `SLT_*` prefix."""
SLOT_FIELD = re.compile(r"id_slot\"?\s*[:=]\s*(\d{1,9})(?!\d)")
"""The slot a mid-2024 line names in its `id_slot` field."""
SIMILARITY = re.compile(
    r"selected slot by (?:LCP|lcs|LCS|lcp) similarity, f_sim_best\s*=\s*(\d{1,3}\.\d{1,9})"
    r".{0,200}?f_keep\s*=\s*(\d{1,3}\.\d{1,9})"
)
"""A 2026 slot selection by the prompt's common prefix with the slot's tokens."""
FRESH = re.compile(r"selected slot by LRU, t_last = -1(?![0-9])")
"""A 2026 slot selection of a slot no task has used yet."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One line of the story: its line, its task (None when it names none) and the number
    it states (a size, a kept count, the slot's n_past; 0 where it states none)."""

    line: int
    task: int | None
    value: int


@dataclass(frozen=True, slots=True)
class Similarity:
    """A `selected slot by LCP similarity` line: the slot it chose, with the shares of
    the common prefix it prints."""

    line: int
    slot: int | None
    f_sim: float
    f_keep: float


@dataclass(frozen=True, slots=True)
class Story:
    """What the log says of its prompts and slots, each kind in line order."""

    sizes: tuple[Fact, ...] = ()
    """`new prompt` lines: the whole prompt's size."""
    kept: tuple[Fact, ...] = ()
    """`kv cache rm` / `memory_seq_rm` lines: the prompt tokens kept from the cache."""
    whole: tuple[Fact, ...] = ()
    """Lines saying the whole prompt was in the cache (`value`: their n_past, 0 if none)."""
    slots: tuple[Fact, ...] = ()
    """The first line naming each slot id other than 0 (`value`: the slot id)."""
    similarities: tuple[Similarity, ...] = ()
    fresh: tuple[int, ...] = ()
    """Lines of slot selections that picked a slot no task had used yet (`selected slot
    by LRU, t_last = -1`, 2026): one per slot at most in each server run."""


EMPTY = Story()


def _task_of(line: str) -> int | None:
    slot = SLOT.search(line)
    return int(slot.group(2)) if slot is not None else field_task(line)


OTHER_SLOT = re.compile(
    r"id +([1-9][0-9]{0,8}) +\| +task|id_slot\"?\s*[:=]\s*([1-9][0-9]{0,8})(?![0-9])"
)
"""A slot other than slot 0, as a line names it: `SLT_*` prints `id %2d | task`, the
mid-2024 fields `"id_slot":N` and `id_slot=N` (both start with `id`, which the regex
engine jumps to)."""


def _other_slots(text: str) -> dict[int, int]:
    """Each slot id other than 0 that a line names, with the offset of the first line
    naming it: one search in C over the text, whose matches a log of one slot has none of
    (the prefix form counts only on a slot line, `SLOT_ID`)."""
    found: dict[int, int] = {}
    for match in OTHER_SLOT.finditer(text):
        slot = int(match.group(1) or match.group(2))
        if slot in found:
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        if match.group(1) is not None:
            end = text.find("\n", match.start())
            line = SLOT_ID.search(text, start, end if end != -1 else len(text))
            if line is None or line.group(1) != match.group(1):
                continue
        found[slot] = start
    return found


def scan_story(text: str, line_count: int) -> Story:
    """The story lines of `text` (LF line ends, as `scan_log` has made them) among its
    first `line_count` lines. Linear in the text: each keyword is found by `str.find`,
    and the lines found are numbered in one pass over their offsets."""
    starts: set[int] = set()
    for word in ("n_prompt_tokens", "task.n_tokens", "cache rm", "memory_seq_rm",
                 "at least 1 token", "f_sim_best", "t_last = -1"):  # fmt: skip
        at = text.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            starts.add(start)
            end = text.find("\n", at)
            if end == -1:
                break
            at = text.find(word, end)
    slot_lines = _other_slots(text)
    offsets = sorted(starts | set(slot_lines.values()))
    numbers: dict[int, int] = {}
    counted, previous = 1, 0
    for offset in offsets:
        counted += text.count("\n", previous, offset)
        previous = offset
        if counted > line_count:
            break
        numbers[offset] = counted

    sizes: list[Fact] = []
    kept: list[Fact] = []
    whole: list[Fact] = []
    similarities: list[Similarity] = []
    fresh: list[int] = []
    for offset in sorted(starts):
        number = numbers.get(offset)
        if number is None:
            break
        end = text.find("\n", offset)
        line = text[offset : end if end != -1 else len(text)]
        if "\x1b" in line:  # llama.cpp colours its prefixes; the patterns search the rest
            line = ANSI.sub("", line)
        task = _task_of(line)
        if "new prompt" in line and (size := SIZE.search(line)) is not None:
            sizes.append(Fact(number, task, int(size.group(1))))
        if (found := KEPT.search(line)) is not None and (found.group(1) or found.group(2)):
            kept.append(Fact(number, task, int(found.group(1) or found.group(2))))
        if (full := WHOLE.search(line)) is not None:
            whole.append(Fact(number, task, int(full.group(1))))
        elif WHOLE_OLD.search(line) is not None:
            whole.append(Fact(number, task, 0))
        if "t_last = -1" in line and FRESH.search(line) is not None:
            fresh.append(number)
        if (similar := SIMILARITY.search(line)) is not None:
            slot = SLOT_ID.search(line)
            similarities.append(
                Similarity(
                    number,
                    int(slot.group(1)) if slot is not None else None,
                    float(similar.group(1)),
                    float(similar.group(2)),
                )
            )
    slots = sorted(
        (Fact(numbers[at], None, slot) for slot, at in slot_lines.items() if at in numbers),
        key=lambda fact: fact.line,
    )
    if not (sizes or kept or whole or slots or similarities or fresh):
        return EMPTY
    return Story(
        tuple(sizes), tuple(kept), tuple(whole), tuple(slots), tuple(similarities), tuple(fresh)
    )


class ByTask:
    """Facts by task, for the last one of a task on a line in a range: one dict of lists
    made once, a bisection per look-up (a near-cap log asks for every block's)."""

    def __init__(self, facts: tuple[Fact, ...]) -> None:
        self._facts: dict[int | None, list[Fact]] = {}
        for fact in facts:
            self._facts.setdefault(fact.task, []).append(fact)
        self._lines = {task: [f.line for f in found] for task, found in self._facts.items()}

    def last(self, task: int | None, before: int, after: int = 0) -> Fact | None:
        """The last fact of `task` on a line in [after, before)."""
        lines = self._lines.get(task)
        if task is None or lines is None:
            return None
        at = bisect.bisect_left(lines, before)
        if at == 0 or lines[at - 1] < after:
            return None
        return self._facts[task][at - 1]

    def first(self, task: int | None, before: int, after: int = 0) -> Fact | None:
        """The first fact of `task` on a line in [after, before)."""
        lines = self._lines.get(task)
        if task is None or lines is None:
            return None
        at = bisect.bisect_left(lines, after)
        if at == len(lines) or lines[at] >= before:
            return None
        return self._facts[task][at]
