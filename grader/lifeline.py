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
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

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
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="lifeline").start()
    return how
