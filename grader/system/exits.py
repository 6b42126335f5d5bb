"""Exit statuses, one table for every command: what failed, the student or the grader.

A platform runs the grader unattended and must tell three things apart from the status
alone: the student's work did not pass, the grader could not grade (the input or the
set-up is unusable, nobody's work is judged), and the grader itself failed (a bug: the
score is not the student's). So:

- 0: `check` every check passed; `batch` every submission graded; `report` written.
- 1: `check` some check failed or was skipped (the student's work); `batch` some
  submission could not be graded (its files: no lab files, a refused archive).
- 2: could not grade, nobody's work judged: bad usage, no such folder, unusable rubric,
  output that can't be written (full disk, read-only, missing folder), `--out` locked by
  another batch.
- 3: the grader itself failed: a check crashed (status `error`), a batch worker died,
  an internal error. The score, if any, is not the student's: report it.

A higher status wins: a run with a crashed check and a failed one exits 3. The README's
exit-status table is this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.engine.result import Result

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_NOT_GRADED = 2
EXIT_GRADER_ERROR = 3
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT
EXIT_TERMINATED = 143  # SIGTERM, as shells report it (grader.system.lifeline)


def interrupted_status(exc: BaseException) -> int:
    """The status of a command a signal ended: 143 for SIGTERM, 130 for Ctrl-C."""
    from grader.system.lifeline import Terminated

    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def check_status(result: Result) -> int:
    """The exit status of `grader check` for a `Result`."""
    if result.grader_error:
        return EXIT_GRADER_ERROR
    if not result.gradable:
        return EXIT_NOT_GRADED
    return EXIT_PASSED if result.summary.passed == len(result.checks) else EXIT_FAILED
