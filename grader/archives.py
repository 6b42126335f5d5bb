"""Extract a submission archive (.zip, .tar.gz, .tgz) without trusting it.

An archive comes from a student (or from a learning platform that packed students'
uploads), so every member is checked before a byte of it is written:

- Names: an absolute name (`/x`, `C:x`), a name with `..` among its parts or with a NUL
  byte refuses the whole archive: it was crafted or is broken, and nothing it holds is
  trusted. Backslashes in zip names are read as separators (Windows tools write them).
- Types: only regular files and directories are extracted. Symbolic links, hard links,
  devices, FIFOs and other special members are *skipped* (never created, never
  followed) and listed in `Extracted.skipped`, so one stray link in one student's folder
  does not cost a whole class archive; the grader then reports that file as missing.
- Size: at most `max_members` members and `max_total_bytes` uncompressed bytes. Both
  are checked on what the archive *declares* before extracting (a zip's central
  directory up front; a tar's headers one by one, before the member's data is read), and
  the bytes are *counted* while they are written: a member that inflates past its
  declared size or past the total cap refuses the archive.
- Writing: files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` inside a folder this
  module made, with default permissions (no owner, mode or time from the archive); a
  duplicate member or a file where a folder should be refuses the archive.
- tar members also go through `tarfile.data_filter` (PEP 706) when this Python has it
  (3.12+, 3.11.4+, 3.10.12+), as a second opinion on top of the checks above; our
  checks alone are enough on older Pythons.

Any failure (unsafe, too big, corrupt, encrypted, unsupported compression) raises
`ArchiveError` with a one-line reason and removes whatever was extracted; nothing else
escapes `extract_archive`.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from typing import IO

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")
DEFAULT_MAX_MEMBERS = 100_000
DEFAULT_MAX_TOTAL_BYTES = 2 * 1024**3  # 2 GiB: ~10,000 real submissions (~100 KB each)

_CHUNK = 1 << 16
_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_DRIVE = re.compile(r"^[A-Za-z]:")


class ArchiveError(Exception):
    """The archive was not extracted (unsafe, too big or broken); the message says why."""


@dataclass
class Extracted:
    """What `extract_archive` wrote: the folder, counts and the members it skipped."""

    root: str
    files: int = 0
    bytes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (member name, reason)


def archive_kind(name: str) -> str | None:
    """Kind of archive, "zip" or "tar", from the name (any case); None for other names."""
    lower = name.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tar"
    return None


def archive_stem(name: str) -> str:
    """The file name without its archive suffix: `class-a.tar.gz` -> `class-a`."""
    base = os.path.basename(name)
    lower = base.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return base[: -len(suffix)] or base
    return base


def safe_parts(name: str, *, backslash_is_separator: bool = False) -> tuple[str, ...]:
    """The path parts of a member name; raises `ArchiveError` for an unsafe name.

    An empty result (`./`, `/`-only names are refused earlier) means the archive's root.
    """
    if "\x00" in name:
        raise ArchiveError(f"member name {name!r} contains a NUL byte")
    if backslash_is_separator:
        name = name.replace("\\", "/")
    if name.startswith("/") or _DRIVE.match(name):
        raise ArchiveError(f"member {name!r} has an absolute path")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"member {name!r} would be written outside the archive's folder (..)")
    return parts


class _Writer:
    """Creates folders and files under `root`, counting members and bytes against caps."""

    def __init__(self, root: str, max_members: int, max_total_bytes: int) -> None:
        self.out = Extracted(root)
        self.max_members = max_members
        self.max_total_bytes = max_total_bytes
        self.members = 0

    def count_member(self) -> None:
        self.members += 1
        if self.members > self.max_members:
            raise ArchiveError(f"more than {self.max_members} members")

    def skip(self, name: str, reason: str) -> None:
        self.out.skipped.append((name, reason))

    def folder(self, parts: tuple[str, ...]) -> str:
        path = self.out.root
        for part in parts:
            path = os.path.join(path, part)
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                info = os.lstat(path)
                if not stat.S_ISDIR(info.st_mode):
                    raise ArchiveError(
                        f"{'/'.join(parts)!r} needs a folder where the archive has a file"
                    ) from None
        return path

    def file(self, parts: tuple[str, ...], source: IO[bytes], declared: int) -> None:
        name = "/".join(parts)
        folder = self.folder(parts[:-1])
        target = os.path.join(folder, parts[-1])
        try:
            fd = os.open(target, _CREATE, 0o644)
        except FileExistsError:
            raise ArchiveError(f"member {name!r} appears twice") from None
        except IsADirectoryError:
            raise ArchiveError(f"member {name!r} is both a file and a folder") from None
        with os.fdopen(fd, "wb") as sink:
            written = copy_counted(source, sink, declared, self.max_total_bytes - self.out.bytes)
        self.out.files += 1
        self.out.bytes += written


def copy_counted(source: IO[bytes], sink: IO[bytes], declared: int, budget: int) -> int:
    """Copy `source` to `sink`, refusing more than `declared` bytes or more than `budget`.

    This is the byte count that stops a member whose real size is larger than the size
    its header declared (the classic zip bomb), whatever the reading library does.
    """
    written = 0
    while True:
        chunk = source.read(_CHUNK)
        if not chunk:
            return written
        written += len(chunk)
        if written > declared:
            raise ArchiveError(f"a member inflates past its declared size of {declared} bytes")
        if written > budget:
            raise ArchiveError("the uncompressed content exceeds the size cap")
        sink.write(chunk)


def _zip_members(path: str, writer: _Writer) -> None:
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        if len(infos) > writer.max_members:
            raise ArchiveError(f"{len(infos)} members, more than the cap of {writer.max_members}")
        declared = sum(info.file_size for info in infos)
        if declared > writer.max_total_bytes:
            raise ArchiveError(
                f"declares {declared} uncompressed bytes, more than the cap of "
                f"{writer.max_total_bytes}"
            )
        for info in infos:
            writer.count_member()
            parts = safe_parts(info.filename, backslash_is_separator=True)
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if stat.S_ISLNK(mode):
                writer.skip(info.filename, "symbolic link")
                continue
            if info.is_dir() or kind == stat.S_IFDIR:
                writer.folder(parts)
                continue
            if kind not in (0, stat.S_IFREG):
                writer.skip(info.filename, "not a regular file")
                continue
            if not parts:
                continue
            if info.flag_bits & 0x1:
                raise ArchiveError(f"member {info.filename!r} is encrypted")
            with archive.open(info) as source:
                writer.file(parts, source, info.file_size)


def _tar_kind(member: tarfile.TarInfo) -> str | None:
    """Why a tar member is skipped, or None for a file or folder we extract."""
    if member.isreg() or member.isdir():
        return None
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "FIFO"
    return "not a regular file"


def _tar_members(path: str, writer: _Writer) -> None:
    declared = 0
    data_filter = getattr(tarfile, "data_filter", None)
    with tarfile.open(path, "r:*") as archive:
        for member in archive:  # headers are read one at a time, data only when asked
            writer.count_member()
            parts = safe_parts(member.name)
            reason = _tar_kind(member)
            if reason is not None:
                writer.skip(member.name, reason)
                continue
            if data_filter is not None:
                try:
                    data_filter(member, writer.out.root)
                except tarfile.FilterError as exc:
                    raise ArchiveError(f"refused by tarfile's data filter: {exc}") from None
            if member.isdir():
                writer.folder(parts)
                continue
            declared += member.size
            if declared > writer.max_total_bytes:
                raise ArchiveError(
                    f"declares more than the cap of {writer.max_total_bytes} uncompressed bytes"
                )
            if not parts:
                continue
            source = archive.extractfile(member)
            if source is None:  # pragma: no cover - isreg() members always have data
                writer.skip(member.name, "no data")
                continue
            with source:
                writer.file(parts, source, member.size)


def extract_archive(
    path: str,
    dest: str,
    *,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
) -> Extracted:
    """Extract the archive at `path` into the new folder `dest` (created here).

    Raises `ArchiveError` (and leaves no `dest` behind) when the archive is unsafe, over a
    cap, corrupt or of an unknown kind.
    """
    kind = archive_kind(path)
    if kind is None:
        raise ArchiveError("not a .zip, .tar.gz or .tgz archive")
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    os.mkdir(dest, 0o755)
    writer = _Writer(dest, max_members, max_total_bytes)
    try:
        (_zip_members if kind == "zip" else _tar_members)(path, writer)
    except ArchiveError:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    except Exception as exc:  # corrupt data: BadZipFile, TarError, zlib.error, EOFError...
        shutil.rmtree(dest, ignore_errors=True)
        detail = str(exc) or type(exc).__name__
        raise ArchiveError(f"can't read the archive: {detail}") from None
    return writer.out
