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
