"""Batch workers die with the batch: a `kill -9` of the parent leaves no orphan grading.

A `ProcessPoolExecutor` worker lives on after its parent is killed with SIGKILL (no
Python code of the parent runs then), and would keep grading into `--out` beside the
next batch. `die_with_parent()`, called first in every worker, makes sure it does not:

- on Linux, `prctl(PR_SET_PDEATHSIG, SIGKILL)` asks the kernel to kill the worker the
  moment its parent thread exits (the pool is started from the batch's main thread);
- elsewhere (or if prctl is unavailable), a daemon thread checks once a second whether
  the worker's parent changed (the orphan was re-parented) and exits it then.

Either way, a parent that died before the call is noticed at once (`os.getppid()` is no
longer the pid the worker was started from).

Signals. `handle_signals()`, called by the `grader` command before any work, makes a
SIGTERM (`kill`, a scheduler's time limit, a container stopping) end the command as a
Ctrl-C does: `Terminated`, a `KeyboardInterrupt`, is raised where the program is, so the
same clean-up runs (temporary files removed, the lock given back, the workers stopped)
and the same sentence is said; the status is 143 (`EXIT_TERMINATED`, 128 + 15, as shells
report SIGTERM) where Ctrl-C's is 130. A second SIGINT or SIGTERM while that clean-up
runs (waiting for the workers' last submissions, say) does not interrupt the clean-up
half way, where it could hang at exit: the temporary files being written are removed
(`grader.system.atomic.in_progress`) and the process ends at once, with the first signal's
status. Workers ignore both signals: the batch stops them (and the kernel kills them
with it, above).
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 1.0


def _prctl_deathsig() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - no libc / no prctl
        return False


def _watch(parent: int) -> None:  # pragma: no cover - runs in a worker, until it dies
    import time

    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int | None = None) -> str:
    """Make this process die when `parent` (default: its parent now) does; returns how:
    "prctl" or "watchdog"."""
    parent = os.getppid() if parent is None else parent
    how = "prctl" if _prctl_deathsig() else "watchdog"
    if os.getppid() != parent:  # the parent died before we could ask
        os._exit(1)
    if how == "watchdog":
        import threading

        threading.Thread(target=_watch, args=(parent,), daemon=True, name="lifeline").start()
    return how


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where SIGINT raises `KeyboardInterrupt`, so it is handled alike."""


_received: list[int] = []


def _on_signal(signum: int, frame: object) -> None:
    if _received:  # the second: end now, without the clean-up the first one started
        from grader.system.atomic import in_progress

        for temporary in list(in_progress):
            try:  # noqa: SIM105 - contextlib is not imported by a cold check
                os.unlink(temporary)
            except OSError:
                pass
        os._exit(128 + _received[0])
    _received.append(signum)
    if signum == signal.SIGTERM:
        raise Terminated
    raise KeyboardInterrupt


def handle_signals() -> None:
    """SIGINT and SIGTERM handled as the module doc says (in the main thread only). A
    signal the process was started ignoring (SIGINT in a shell's background job, under
    `nohup`) stays ignored."""
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    for signum, default in defaults.items():
        if signal.getsignal(signum) is default:
            signal.signal(signum, _on_signal)


def ignore_signals() -> None:
    """A worker's: SIGINT and SIGTERM are the batch's to handle (sent to the whole
    process group by a terminal's Ctrl-C or a `kill -- -PGID`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
