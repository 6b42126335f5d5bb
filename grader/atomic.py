"""Writing a file atomically, so a reader never sees half of it.

Used for every file the grader writes (`--output`, batch results, gradebook, report):
the data goes to a new file beside the target (mode 0666 less the umask, as `open`
would give it, not mkstemp's 0600, so the platform's other users can read it), then
`os.replace` swaps it in.
"""

from __future__ import annotations

import contextlib
import os
import secrets


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data`: a new file beside it (mode 0666 less the umask, as
    `open` would give), then `os.replace`; readers never see a partial file."""
    folder = os.path.dirname(os.path.abspath(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        temporary = os.path.join(folder, f".tmp-{secrets.token_hex(8)}.part")
        try:
            handle = os.open(temporary, flags, 0o666)
            break
        except FileExistsError:  # pragma: no cover - 64 random bits
            continue
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
