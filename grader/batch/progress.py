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
        words: Callable[..., str] | None = None,
    ) -> None:
        self.total, self.stream, self.enabled, self.clock = total, stream, enabled, clock
        self.words = words  # say(message_id, **params), for the count, the rate and the ETA
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
        if self.words is None:
            return f"[{bar}] {self.done}/{self.total}  {rate:.1f}/s  ETA {eta}"
        said = self.words(
            "batch.progress.line", done=self.done, total=self.total, rate=f"{rate:.1f}", eta=eta
        )
        return f"[{bar}] {said}"

    def draw(self, now: float) -> None:
        """The line again over the last one, cut to the terminal's columns (a Japanese
        character takes two) and padded over what the last one left."""
        from grader.words.wrap import cells

        text = self.line(now)
        room = max(shutil.get_terminal_size((80, 20)).columns - 1, 10)
        while cells(text) > room:
            text = text[:-1]
        width = cells(text)
        self.stream.write("\r" + text + " " * max(self._width - width, 0))
        self.stream.flush()
        self._width = width

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\n")
            self.stream.flush()


def _clock_time(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
