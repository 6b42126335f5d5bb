"""The batch's progress bar: one line on a terminal with the count, the rate and the time left."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """A one-line progress bar on a terminal: count/total, rate and time left."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        enabled: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.stream, self.enabled, self.clock = total, stream, enabled, clock
        self.done = 0
        self.start = clock()
        self._last = -1.0
        self._width = 0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self.draw(now)

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        fraction = self.done / self.total if self.total else 1.0
        size = 24
        filled = int(fraction * size)
        bar = "#" * filled + "-" * (size - filled)
        eta = _clock_time(left) if left is not None else "--:--"
        return f"[{bar}] {self.done}/{self.total}  {rate:.1f}/s  ETA {eta}"

    def draw(self, now: float) -> None:
        text = self.line(now)
        columns = shutil.get_terminal_size((80, 20)).columns
        text = text[: max(columns - 1, 10)]
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\n")
            self.stream.flush()


def _clock_time(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
