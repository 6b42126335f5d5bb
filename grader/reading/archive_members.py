"""Reading an archive's members (.zip, .tar.gz, .tgz, .tar) one by one, without trusting
them: names checked, caps counted, data opened only when asked.

Both kinds give the same `Member`s, in archive order: its name as text (undecodable
bytes surrogate-escaped; a zip name that claims UTF-8 and is not is read as bytes,
`grader.reading.zipnames`), its path parts (a name with `..`, an absolute name or a NUL byte
refuses the whole archive: it was crafted), its kind ("file", "dir", or why it is never
created: "symbolic link", "hard link", "device", "FIFO"), its declared size, and how to
open its data. A zip's central directory is read up front (member count and declared
bytes are checked before anything else); a tar is read header by header, its data skipped,
with nothing kept, so memory stays flat however many members it has. tar members also
go through `tarfile.data_filter` (PEP 706) when this Python has it, as a second opinion.

Anything unreadable is `ArchiveError` with a one-line reason (a catalog message); a
member whose data can't be read is `MemberError`, raised when it is opened or read, so
that it costs only its submission.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from grader.reading.zipnames import display_name, open_zip
from grader.system.faults import OutputError
from grader.words.worded import Worded

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
_DRIVE = re.compile(r"^[A-Za-z]:")
Parts = tuple[str, ...]


class ArchiveError(Worded):
    """The archive as a whole can't be used (unsafe, over a cap, unreadable); the reason
    is a catalog message (`[archive]` in grader/messages)."""


class MemberError(Worded):
    """One member can't be extracted; only its submission is lost."""


class BudgetExhausted(Worded):
    """The batch's archives have used their whole extraction budget."""


def detail_of(exc: BaseException) -> str:
    """What a library said about data it could not read (zlib, zipfile, tarfile): kept as
    it is, shown as code, since no catalog knows its words."""
    return str(exc) or type(exc).__name__


@dataclass(frozen=True)
class ArchiveCaps:
    """The caps of one batch's archives (from the rubric's `[limits]`)."""

    members: int  # members in one archive
    declared_bytes: int  # uncompressed bytes one archive may declare in all
    submissions: int  # submission rows in one archive


@dataclass(frozen=True)
class Member:
    name: str  # as shown (UTF-8, undecodable bytes surrogate-escaped)
    parts: Parts
    kind: str  # "file", "dir", or why it is skipped ("symbolic link", ...)
    size: int
    open: Callable[[], IO[bytes]] | None  # the member's data, for a "file"


def archive_kind(name: str) -> str | None:
    """Kind of archive, "zip" or "tar", from the name (any case); None for other names."""
    lower = name.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz", ".tar")):
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


def safe_parts(name: str, *, backslash_is_separator: bool = False) -> Parts:
    """The path parts of a member name; raises `ArchiveError` for an unsafe name.

    An empty result (`./`) means the archive's root.
    """
    if "\x00" in name:
        raise ArchiveError("archive.nul_byte", name=repr(name))
    if backslash_is_separator:
        name = name.replace("\\", "/")
    if name.startswith("/") or _DRIVE.match(name):
        raise ArchiveError("archive.absolute", name=repr(name))
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError("archive.outside", name=repr(name))
    return parts


# ------------------------------------------------------------------ reading members


def _zip_kind(info: zipfile.ZipInfo) -> str:
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if info.is_dir() or stat.S_IFMT(mode) == stat.S_IFDIR:
        return "dir"
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
        return "not a regular file"
    return "file"


@contextlib.contextmanager
def _zip_members(path: str, caps: ArchiveCaps) -> Iterator[tuple[Iterator[Member], int]]:
    archive, relaxed = open_zip(path)
    with archive:
        infos = archive.infolist()
        if len(infos) > caps.members:
            raise ArchiveError("archive.members", count=len(infos), cap=caps.members)
        declared = sum(info.file_size for info in infos)
        if declared > caps.declared_bytes:
            raise ArchiveError("archive.bytes", declared=declared, cap=caps.declared_bytes)

        def members() -> Iterator[Member]:
            for info in infos:
                name = display_name(info.orig_filename, relaxed)
                parts = safe_parts(name, backslash_is_separator=True)

                def opener(info: zipfile.ZipInfo = info) -> IO[bytes]:
                    if info.flag_bits & 0x1:
                        raise MemberError("archive.encrypted")
                    return archive.open(info)

                yield Member(name, parts, _zip_kind(info), info.file_size, opener)

        yield members(), len(relaxed)


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.isreg():
        return "file"
    if member.isdir():
        return "dir"
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "FIFO"
    return "not a regular file"


@contextlib.contextmanager
def _tar_members(path: str, caps: ArchiveCaps) -> Iterator[tuple[Iterator[Member], int]]:
    # Headers one at a time, data skipped unless read (a plain .tar by seeking, a .tar.gz
    # by gzip's own reader, much faster than tarfile's stream mode), nothing kept: the
    # TarFile's own list of members is emptied as we go, so memory stays flat.
    with tarfile.open(path, "r:*") as archive:

        def members() -> Iterator[Member]:
            count = declared = 0
            while True:
                member = archive.next()
                if member is None:
                    return
                # (TarFile.members is missing from the typing stubs)
                archive.members.clear()  # type: ignore[attr-defined]
                count += 1
                if count > caps.members:
                    raise ArchiveError("archive.more_members", cap=caps.members)
                declared += member.size if member.isreg() else 0
                if declared > caps.declared_bytes:
                    raise ArchiveError("archive.more_bytes", cap=caps.declared_bytes)
                parts = safe_parts(member.name)

                def opener(member: tarfile.TarInfo = member) -> IO[bytes]:
                    data_filter = getattr(tarfile, "data_filter", None)  # PEP 706
                    if data_filter is not None:
                        try:
                            data_filter(member, "/nonexistent-root")
                        except tarfile.FilterError as exc:
                            raise MemberError("archive.filtered", detail=detail_of(exc)) from None
                    source = archive.extractfile(member)
                    if source is None:  # pragma: no cover - isreg() members have data
                        raise MemberError("archive.no_data")
                    return source

                yield Member(member.name, parts, _tar_kind(member), member.size, opener)

        yield members(), 0


@contextlib.contextmanager
def members(path: str, caps: ArchiveCaps) -> Iterator[tuple[Iterator[Member], int]]:
    """The archive's members in archive order; `ArchiveError` for an unreadable one."""
    kind = archive_kind(path)
    if kind is None:
        raise ArchiveError("archive.not_an_archive")
    reader = _zip_members if kind == "zip" else _tar_members
    try:
        with reader(path, caps) as found:
            yield found
    except (ArchiveError, MemberError, BudgetExhausted, OutputError):
        raise
    except Exception as exc:  # corrupt data: BadZipFile, TarError, zlib.error, EOFError...
        raise ArchiveError("archive.unreadable", detail=detail_of(exc)) from None
