"""A mutant's files: each artifact's path holds bytes, a special file, or nothing.

`load_seeds` reads the seed submissions (a lab's real captures), `write_submission` and
`put_file` make a folder hold a mutant, whatever it held before.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Special:
    """A file that is not a regular file: a directory, a symbolic link or a FIFO."""

    kind: str
    target: str = ""


State = bytes | Special | None
"""What one artifact's path holds in a mutant: bytes (a regular file), a `Special`, or
None (the file is absent)."""


def load_seeds(
    root: Path, filenames: Iterable[str], skip: Iterable[str] = ()
) -> dict[str, dict[str, State]]:
    """The seed submissions: every folder directly in `root` (but those named in `skip`)
    holding at least one of `filenames`, as its files' bytes."""
    names, skipped = tuple(filenames), set(skip)
    seeds: dict[str, dict[str, State]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in skipped):
        files: dict[str, State] = {}
        for name in names:
            path = folder / name
            files[name] = path.read_bytes() if path.is_file() else None
        if any(v is not None for v in files.values()):
            seeds[folder.name] = files
    if not seeds:
        raise SystemExit(f"no seed submissions under {root}")
    return seeds


def _remove(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def put_file(folder: Path, name: str, state: State) -> None:
    """Make `folder/name` hold `state` (whatever it held before)."""
    path = folder / name
    _remove(path)
    if state is None:
        return
    if isinstance(state, bytes):
        with open(path, "wb") as handle:
            handle.write(state)
    elif state.kind == "dir":
        path.mkdir()
        (path / "inside.txt").write_bytes(b"a file inside a directory\n")
    elif state.kind == "symlink":
        os.symlink(state.target, path)
    elif state.kind == "fifo":
        os.mkfifo(path)


def write_submission(folder: Path, files: dict[str, State]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, state in files.items():
        put_file(folder, name, state)
