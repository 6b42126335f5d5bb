"""When the grader can't write its own output: one sentence, never a traceback.

A full disk, a read-only `--out`, `--output` into a folder that does not exist: these
are faults of the set-up, not of a submission and not bugs, so they end the command with
exit 2 and a sentence that says which file and why, in the user's language
(`[fault]` in grader/messages). `OutputError` carries the path and the errno (it
pickles, so a batch worker can hand it to its parent); `write_output` is
`write_atomic` with that translation.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from grader.system.atomic import write_atomic

if TYPE_CHECKING:
    from typing import Any

    from grader.words.i18n import Catalog

STDOUT = "-"  # the path an OutputError names when standard output failed

_REASONS = {
    errno.ENOSPC: "fault.disk_full",
    getattr(errno, "EDQUOT", -1): "fault.disk_full",
    errno.EROFS: "fault.read_only",
    errno.EACCES: "fault.permission",
    errno.EPERM: "fault.permission",
    errno.ENOENT: "fault.no_folder",
    errno.ENOTDIR: "fault.not_a_folder",
    errno.EISDIR: "fault.is_a_folder",
}


class OutputError(Exception):
    """Writing `path` failed with `errno` / `strerror` (an OSError, made plain)."""

    def __init__(self, path: str, error_number: int | None, strerror: str) -> None:
        super().__init__(path, error_number, strerror)
        self.path, self.errno, self.strerror = path, error_number, strerror

    @classmethod
    def of(cls, path: str, error: OSError) -> OutputError:
        return cls(path, error.errno, error.strerror or str(error))

    @property
    def disk_full(self) -> bool:
        return _REASONS.get(self.errno or 0) == "fault.disk_full"

    def reason(self, catalog: Catalog) -> str:
        key = _REASONS.get(self.errno or 0, "fault.other")
        return catalog.text(key, {"error": self.strerror}) or self.strerror

    def text(self, catalog: Catalog) -> str:
        """ "Can't write PATH: the disk is full." in the catalog's language."""
        path = (catalog.text("fault.stdout") or "stdout") if self.path == STDOUT else self.path
        params = {"path": path, "reason": self.reason(catalog)}
        return catalog.text("fault.cant_write", params) or f"can't write {self.path}"

    def __str__(self) -> str:
        return f"can't write {self.path}: {self.strerror}"


def read_failure(error: OSError) -> Any:
    """Why a file could not be read (a `Worded`): permission denied, a folder, ... in the
    reader's words; the system's own text for a rarer reason."""
    from grader.words.worded import Worded

    key = _REASONS.get(error.errno or 0, "fault.other")
    if key == "fault.no_folder":  # ("its folder does not exist" is what a write says)
        key = "fault.no_file"
    elif key not in ("fault.permission", "fault.is_a_folder", "fault.not_a_folder"):
        key = "fault.other"
    return Worded(key, error=error.strerror or str(error))


def write_output(path: str, data: bytes) -> None:
    """`write_atomic`, with any OSError turned into `OutputError` naming `path`."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise OutputError.of(path, exc) from None
