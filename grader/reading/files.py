"""Read a submission's files without trusting them.

Decisions, each because a submission is controlled by a student:
- A file is opened by its name inside the submission folder with `O_NOFOLLOW`, so a
  symbolic link is refused (never followed, whether it points inside or outside):
  "copy the file instead of linking it" is the message. Names come from the lab, never
  from the submission, so no path can escape the folder.
- `O_NONBLOCK` makes opening a FIFO return at once; `fstat` on the open descriptor then
  refuses anything that is not a regular file (FIFO, socket, device, directory) before a
  single byte is read, and refuses a file over its size cap before reading it.
- A submission's files are opened relative to one descriptor of its folder, taken once
  (`open_folder`): the folder as the user named it, then each folder below it that the
  search found, opened relative to the one above with `O_NOFOLLOW`. A folder swapped
  for a link while it is graded is refused (or, once open, no longer matters: every
  file is read from the folder that was opened), never followed out of the submission.
- Nothing is ever written inside the submission.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from grader.system.sandbox import _state as sandbox_state
from grader.words.problems import Problem, Term

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True)
class RawFile:
    """The bytes of one artifact as read, with the facts the result reports about it."""

    name: str
    data: bytes
    sha256: str
    size: int


def without_bytes(raw: RawFile) -> RawFile:
    """The same file's facts with its bytes let go (`data` empty; `size` still says how
    many bytes were read): what the result and the input digest keep once the bytes are
    decoded into text and hashed."""
    return RawFile(name=raw.name, data=b"", sha256=raw.sha256, size=raw.size)


class Refused(Exception):
    """The file exists but was not read; `problem` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message_id)
        self.problem = problem


def _kind(mode: int) -> Term:
    if stat.S_ISDIR(mode):
        return Term("directory")
    if stat.S_ISFIFO(mode):
        return Term("fifo")
    if stat.S_ISSOCK(mode):
        return Term("socket")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Term("device")
    return Term("special")


def open_at(dir_fd: int, name: str, flags: int) -> int:
    """`os.open(name, flags, dir_fd=dir_fd)` for a plain `name` (one component, no
    separator), allowed while confined (`grader.system.sandbox`'s hook lets exactly this name
    through): `dir_fd` is a folder opened by its path, which the hook checked then; the
    name alone can't leave it (and `O_NOFOLLOW` in `flags` keeps a link from leaving it)."""
    if not name or os.sep in name or (os.altsep and os.altsep in name) or name in (".", ".."):
        raise ValueError(f"not a plain file name: {name!r}")
    state = sandbox_state
    state.at_name = name
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    finally:
        state.at_name = None


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def open_folder(top: str, inner: Sequence[str] = ()) -> int | None:
    """A descriptor of the folder `top`/`inner`: `top` opened as the user named it (a link
    there is what they asked for), then each part of `inner` (found by a search that
    never follows links) relative to the one above, with `O_NOFOLLOW`, so a part swapped
    for a link since is refused (OSError), never followed. None where descriptors of
    folders can't be used (Windows): files are then opened by their paths."""
    if os.open not in os.supports_dir_fd or not getattr(os, "O_DIRECTORY", 0):
        return None  # pragma: no cover - Windows
    fd = os.open(top, _DIR_FLAGS)
    try:
        for part in inner:
            below = os.open(part, _DIR_FLAGS | getattr(os, "O_NOFOLLOW", 0), dir_fd=fd)
            os.close(fd)
            fd = below
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(
    path: str, max_bytes: int, *, follow: bool = False, dir_fd: int | None = None
) -> RawFile | None:
    """Read `path` if it is a regular file of at most `max_bytes`.

    Returns None when the file does not exist, raises `Refused` when it exists but must
    not be read. `follow=True` is for paths the user typed on the command line (such as
    `--server-log`), where following a link is what the user asked for. With `dir_fd`
    (`open_folder`), `path` is a file name in that folder.
    """
    name = os.path.basename(path)
    flags = _OPEN_FLAGS & ~(0 if not follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags) if dir_fd is None else open_at(dir_fd, path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(Problem("file.symlink", {"file": name})) from None
        if exc.errno == errno.EISDIR:
            raise Refused(
                Problem("file.not_regular", {"file": name, "kind": Term("directory")})
            ) from None
        raise _unreadable(name, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(Problem("file.not_regular", {"file": name, "kind": _kind(info.st_mode)}))
        if info.st_size > max_bytes:
            raise Refused(
                Problem("file.too_big", {"file": name, "size": info.st_size, "limit": max_bytes})
            )
        chunks: list[bytes] = []
        remaining = max_bytes + 1  # one byte more than allowed tells a growing file apart
        # the first read asks for the whole file as stat sized it (one chunk, which
        # `join` returns as is: no second copy of a big file); later ones, for a file
        # still growing, go on in 1 MiB steps up to the cap
        step = info.st_size + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, step))
            step = 1 << 20
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise _unreadable(name, exc) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise Refused(
            Problem("file.too_big", {"file": name, "size": len(data), "limit": max_bytes})
        )
    return RawFile(name=name, data=data, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _unreadable(name: str, error: OSError) -> Refused:
    """`file.unreadable`, with why in the reader's words (`grader.system.faults.read_failure`)."""
    from grader.system.faults import read_failure

    return Refused(Problem("file.unreadable", {"file": name, "error": read_failure(error)}))
