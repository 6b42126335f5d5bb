"""Every size limit the grader applies to a submission, in one place.

A submission is untrusted input: each limit turns "too big" into a clear message on the
artifact it concerns instead of a hang or an out-of-memory kill. The defaults are far
above anything a real capture reaches (the largest real artifact, `sse_raw.txt`, is
about 20 KB; a real server log of the whole lab is about 15 KB).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps applied while loading; every cap is checked before the work it bounds."""

    file_bytes: int = 16 * 1024 * 1024
    log_bytes: int = 64 * 1024 * 1024
    submission_bytes: int = 256 * 1024 * 1024
    json_depth: int = 64
    number_digits: int = 100
    sse_events: int = 100_000
    log_lines: int = 2_000_000
    jsonl_records: int = 100_000


DEFAULT_LIMITS = Limits()
