"""The batch's `--out` folder: one batch at a time, and no leftovers of a killed one.

Two batches writing into one folder would interleave results and overwrite each other's
gradebook, so `claim(out)` takes an exclusive lock on `out/.lock` (`flock` on POSIX,
`msvcrt.locking` on Windows) for the whole batch; a second batch is refused at once
(`OutLocked`, which names the holder's process id). The lock belongs to an open file,
so the kernel releases it when its process dies, even by `kill -9`: a stale lock never
blocks the next run. The lock file is removed at the end, safely: a waiter that locked
the old file sees it is no longer the file at that path and tries again.

Once the lock is held, nobody else can be using the folder's temporary files, so
`claim` removes what a killed batch left: `.extracted-*` folders (extracted archives)
and `.tmp-*.part` files (half-written results) in `out` and `out/results`.

Taking the lock is the batch's first write, so a read-only or full `--out` is found
before any grading (as an `OutputError`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from grader.system.atomic import TEMPORARY_PREFIX, TEMPORARY_SUFFIX
from grader.system.faults import OutputError

if TYPE_CHECKING:
    from grader.words.i18n import Catalog

LOCK_NAME = ".lock"
EXTRACTED_PREFIX = ".extracted-"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class OutLocked(Exception):
    """Another batch holds `out`'s lock; `pid` is its process id when it wrote it."""

    def __init__(self, out: str, pid: str) -> None:
        super().__init__(out, pid)
        self.out, self.pid = out, pid


def _try_lock(fd: int) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt  # pragma: no cover - Windows

    try:  # pragma: no cover - Windows
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:  # pragma: no cover - Windows
        return False
    return True  # pragma: no cover - Windows


def _holder(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read(32).strip() or "?"
    except OSError:
        return "?"


def _acquire(out: str) -> int:
    path = os.path.join(out, LOCK_NAME)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise OutputError.of(path, exc) from None
        if not _try_lock(fd):
            os.close(fd)
            raise OutLocked(out, _holder(path))
        try:  # the file we locked must still be the one at `path` (see the docstring)
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    except OSError as exc:
        os.close(fd)
        raise OutputError.of(path, exc) from None
    return fd


def remove_leftovers(out: str) -> list[str]:
    """Remove the temporary files and folders a killed batch left in `out` (and its
    results/); returns their names. Call it only while holding `out`'s lock."""
    removed = []
    for folder in (out, os.path.join(out, "results")):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(EXTRACTED_PREFIX) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            elif name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            else:
                continue
            removed.append(os.path.join(folder, name))
    return removed


@contextlib.contextmanager
def claim(out: str) -> Iterator[list[str]]:
    """Hold `out`'s lock for the body, after removing a killed batch's leftovers (the
    body gets their names). Raises `OutLocked` or `OutputError`."""
    fd = _acquire(out)
    try:
        yield remove_leftovers(out)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(out, LOCK_NAME))
        os.close(fd)


def inside(path: str, folder: str) -> bool:
    """`path` is `folder` or below it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def writes_into(output: str, folder: str, files: Iterable[str] = ()) -> bool:
    """`grader check --output` would write inside the submission `folder` (or onto it, or
    above it), or onto one of the files graded from elsewhere (`--server-log`): the
    grader never writes into what it grades."""
    real, top = os.path.realpath(output), os.path.realpath(folder)
    graded = {os.path.realpath(f) for f in files}
    return inside(real, top) or inside(top, real) or real in graded


def output_refused(output: str, folder: str, files: Iterable[str], catalog: Catalog) -> bool:
    """Say so and return True when `--output` `writes_into` the submission."""
    if not writes_into(output, folder, files):
        return False
    from grader.system.output import say

    params = {"output": output, "folder": folder}
    say(catalog.text("cli.output_in_submission", params) or "--output: inside the submission")
    return True
