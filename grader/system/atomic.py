"""Writing a file atomically, so a reader never sees half of it.

Used for every file the grader writes (`--output`, batch results, gradebook, report):
the data goes to a new file beside the target (mode 0666 less the umask, as `open`
would give it, not mkstemp's 0600, so the platform's other users can read it), then
`os.replace` swaps it in. If anything fails (a full disk, a read-only file system, an
interrupt), the temporary file is removed and the target is as it was: the old file or
none, never a part. Temporary files are named `.tmp-<random>.part`, so that one left by
a killed process is recognised and removed by the next batch into that folder.
"""

from __future__ import annotations

import os

TEMPORARY_PREFIX, TEMPORARY_SUFFIX = ".tmp-", ".part"
in_progress: set[str] = set()
"""The temporary files being written now, which a process ending at once (a second
Ctrl-C: `grader.system.lifeline`) removes first."""


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data`: a new file beside it (mode 0666 less the umask, as
    `open` would give), then `os.replace`; readers never see a partial file."""
    folder = os.path.dirname(os.path.abspath(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        name = f"{TEMPORARY_PREFIX}{os.urandom(8).hex()}{TEMPORARY_SUFFIX}"  # secrets.token_hex
        temporary = os.path.join(folder, name)
        try:
            handle = os.open(temporary, flags, 0o666)
            in_progress.add(temporary)
            break
        except FileExistsError:  # pragma: no cover - 64 random bits
            continue
    try:
        try:
            view = memoryview(data)
            while view:  # os.write may write less than asked (and raises ENOSPC)
                view = view[os.write(handle, view) :]
        finally:
            os.close(handle)  # a deferred write error (NFS, quotas) surfaces here
        os.replace(temporary, path)
    except BaseException:
        import contextlib  # only now: a cold check imports nothing else of it

        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    finally:
        in_progress.discard(temporary)
