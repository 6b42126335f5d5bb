"""Every size limit the grader applies to a submission, in one place.

A submission is untrusted input: each limit turns "too big" into a clear message on the
artifact it concerns instead of a hang or an out-of-memory kill. The defaults are at
least 60 times what the real captures reach (the comment on each says how much that
is) and low enough that the worst file under every cap still grades in about a second.
An instructor can change any of them in the rubric's `[limits]` table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps applied while loading; every cap is checked before the work it bounds."""

    file_bytes: int = 4 * 1024 * 1024  # any JSON or SSE artifact (largest real: 19 KB)
    source_bytes: int = 256 * 1024  # sse.py (real: 4 KB); ast.parse is slow on huge input
    log_bytes: int = 16 * 1024 * 1024  # the server log (real: 13 KB for the whole lab)
    submission_bytes: int = 64 * 1024 * 1024  # all artifacts together
    json_depth: int = 64  # real: 4
    number_digits: int = 100  # real: 17
    sse_events: int = 4_096  # real: 67 (max_tokens 64); even max_tokens 4000 fits
    log_lines: int = 200_000  # real: 116
    jsonl_records: int = 4_096  # real: 64
    problems_per_file: int = 20  # reading stops there: the first problems explain the file


DEFAULT_LIMITS = Limits()
