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
    """Caps applied while loading (and, for archives, while listing and extracting);
    every cap is checked before the work it bounds."""

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
    # Archives given to `grader batch` (a real class archive: 30-300 submissions of about
    # 100 KB of lab files each, with whatever else students zip: venvs, videos).
    archive_members: int = 100_000  # members listed in one archive (a class of 300: ~4,000)
    archive_bytes: int = 2 * 1024**3  # uncompressed bytes one archive may declare (read, not
    # written: only the lab's files are extracted)
    archive_submissions: int = 1_000  # submission rows in one archive (real: up to ~300)
    batch_archive_bytes: int = 2 * 1024**3  # bytes extracted from all of a batch's archives
    # together (~20,000 real submissions)


DEFAULT_LIMITS = Limits()
