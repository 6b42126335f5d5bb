"""A llama-server log's text, as `checks.formats.llama_log.scan_log` reads it: its line
ends, the lines worth reading (found a chunk of lines at a time), and what wraps a line
(ANSI colours, docker/journald/kubectl prefixes, llama.cpp's own time prefix)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from checks.formats.llama_log_lines import ANSI, ID_TASK, MAX_WRAPPERS, PREFIX_ONLY_END, WRAPPER

if TYPE_CHECKING:
    from collections.abc import Iterator


def normalize(text: str) -> str:
    """`text` with LF line ends only and no BOM. Every step is one C-level pass over the
    text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


CHUNK = 1 << 16
"""Characters of the text split into lines at a time by `Lines.candidates` (a whole
near-cap log's lines would weigh half as much again as its text). The scan makes its
events from one chunk's lines before the next chunk is split, so a chunk's lines are
freed among those events: 64 KiB of them leave less memory behind than 1 MiB do
(measured: peak growth 3.75x the bytes read against 3.87x at 1 MiB, near the caps)."""


class Lines:
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
            end = text.find("\n", begin + CHUNK)
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


def unwrap(line: str) -> tuple[str, float | None]:
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
            time_ms = prefix_ms(*match.group("m", "s", "ms", "us"))
        line = line[match.end() :]
    return line, time_ms


def prefix_ms(minutes: str, seconds: str, ms: str, us: str) -> float:
    """The time of llama.cpp's `0.53.999.256` prefix, in ms since the server started.

    It is read for some 60,000 lines of a near-cap log. Each field is read by `int`, which
    takes half the time `float` does on a short string (though more instructions): the
    whole ms are an exact integer, and only `us / 1000` and the last sum round, as when
    the fields were read as floats, so the result is the very float it was then.
    """
    return (int(minutes) * 60 + int(seconds)) * 1000 + int(ms) + int(us) / 1000


def keeps_block_open(gap: str) -> bool:
    """Whether lines between a prefix-only `print_timing` line and the next line read may
    belong to its block: only blank lines and its `total time` line may."""
    return all("total time" in line or not unwrap(line)[0].strip() for line in gap.split("\n")[:-1])


def field_task(line: str) -> int | None:
    """The `id_task`/`task_id` named by a JSON or key=value field, if any."""
    match = ID_TASK.search(line)
    return int(match.group(1)) if match else None
