"""Editing a real llama-server log's time prefixes (`0.53.596.284 I `: minutes, seconds,
ms, µs since the server started), as a loaded pod or a restart would have printed them."""

from __future__ import annotations

import re
from collections.abc import Callable

PREFIX = re.compile(r"^(\d{1,6})\.(\d{2})\.(\d{3})\.(\d{3}) ")


def prefix_ms(line: str) -> float | None:
    """The time prefix of `line` in ms, None without one."""
    found = PREFIX.match(line)
    if found is None:
        return None
    minutes, seconds, ms, us = (int(g) for g in found.groups())
    return (minutes * 60 + seconds) * 1000 + ms + us / 1000


def format_prefix(ms: float) -> str:
    us = round(ms * 1000)
    minutes, us = divmod(us, 60_000_000)
    seconds, us = divmod(us, 1_000_000)
    millis, us = divmod(us, 1000)
    return f"{minutes}.{seconds:02d}.{millis:03d}.{us:03d} "


def shift_lines(text: str, shift: Callable[[int, float], float]) -> str:
    """Every prefixed line's time replaced by `shift(index, ms)` (0-based line index)."""
    out = []
    for index, line in enumerate(text.splitlines(True)):
        ms = prefix_ms(line)
        if ms is not None:
            line = format_prefix(shift(index, ms)) + PREFIX.sub("", line, count=1)
        out.append(line)
    return "".join(out)


def delay_from(text: str, marker: str, delay_ms: float) -> str:
    """The log as if everything from the first line holding `marker` on had been printed
    `delay_ms` later (a slow prefill before that line)."""
    lines = text.splitlines(True)
    start = next(i for i, line in enumerate(lines) if marker in line)
    return shift_lines(text, lambda index, ms: ms + delay_ms if index >= start else ms)


def restarted_after_prefill(text: str) -> str:
    """The log a student saves who restarted the server after step 4 (prefill) and whose
    `voice-llm log` holds only the new server's run: the start-up, then steps 5 to 7.

    Made of the real capture's own lines: its start-up (up to `listening`), then its
    lines from the cache step's short request on, as the new server prints them: times
    since the new start (the same pause before the first request as the capture had),
    task ids from 0, the first slot chosen by LRU, graph counts from the new start."""
    return restarted_before(text, "/    25 tokens")


def restarted_before(text: str, first_block: str) -> str:
    """The log of a server restarted just before the request whose `prompt eval time`
    line holds `first_block` (e.g. "/    25 tokens", the cache step's short request;
    "/   120 tokens" on the eval line for the sentence), as `restarted_after_prefill`."""
    lines = text.splitlines(True)
    listening = next(i for i, line in enumerate(lines) if "listening on" in line)
    first_request = next(i for i, line in enumerate(lines) if "launch_slot_" in line)
    hi = next(i for i, line in enumerate(lines) if "eval time" in line and first_block in line)
    restart_at = max(i for i in range(hi) if "get_availabl" in lines[i])
    task = int(re.search(r"\| task (\d+) \|", lines[hi]).group(1))  # type: ignore[union-attr]
    graphs = [
        int(m.group(1)) for m in (re.search(r"graphs reused = +(\d+)", x) for x in lines[:hi]) if m
    ]
    first_after = prefix_ms(lines[first_request - 1]) or 0.0
    pause = first_after - (prefix_ms(lines[listening]) or 0.0)
    shift = (prefix_ms(lines[restart_at]) or 0.0) - (prefix_ms(lines[listening]) or 0.0) - pause
    kept = lines[: listening + 1]
    for index, line in enumerate(lines[restart_at:]):
        ms = prefix_ms(line)
        if ms is not None:
            line = format_prefix(ms - shift) + PREFIX.sub("", line, count=1)
        line = re.sub(
            r"(\| task |id_task = )(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) - task}", line
        )
        line = re.sub(
            r"(graphs reused = +)(\d+)",
            lambda m: f"{m.group(1)}{int(m.group(2)) - graphs[-1]}",
            line,
        )
        if index == 0:
            line = re.sub(r"selected slot by .*$", "selected slot by LRU, t_last = -1", line)
        kept.append(line)
    return "".join(kept)
