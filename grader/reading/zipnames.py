"""Open a zip whose member names claim to be UTF-8 and are not, without losing it.

A zip member with general-purpose flag bit 11 says its name is UTF-8; `zipfile` then
decodes it strictly, and one member written by a tool that set the flag on a Shift-JIS
or Latin-1 name makes `ZipFile()` raise `UnicodeDecodeError` for the whole archive: a
class archive lost for one student's folder name. `open_zip` retries such an archive
through a view of the file in which that flag is cleared, in the central directory and
then in each such member's local header, for exactly the members whose names are not
UTF-8. `zipfile` then reads those names as bytes (cp437, its rule for unflagged names),
and `display_name` gives them back as UTF-8 with the undecodable bytes kept
(surrogate-escaped, shown as `\\xff` by `grader.words.visible`).

Nothing else of the archive is changed: data, sizes and CRCs are read as they are.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
from collections.abc import Callable
from typing import IO, Any

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_UTF8_FLAG = 0x800
_SEARCH = 65_536 + 22  # the EOCD record is within the last 64 KiB + its own size


class _PatchedView(io.RawIOBase):
    """A read-only file whose bytes at some offsets read as other bytes."""

    def __init__(self, path: str) -> None:
        self._file: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._pos = 0
        self.patches: dict[int, int] = {}

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self._pos = self._file.seek(offset, whence)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer: Any) -> int:
        self._file.seek(self._pos)
        data = self._file.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        for offset, value in self.patches.items():
            if self._pos <= offset < self._pos + n:
                buffer[offset - self._pos] = value
        self._pos += n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def _central_directory(data_at: Callable[[int, int], bytes], size: int) -> tuple[int, int]:
    """(offset, size) of the central directory, found from the end-of-archive record."""
    tail_start = max(0, size - _SEARCH)
    tail = data_at(tail_start, size - tail_start)
    at = tail.rfind(_EOCD)
    if at < 0:
        raise zipfile.BadZipFile("no end of central directory record")
    eocd = tail_start + at
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12 : at + 20])
    locator = tail.rfind(_EOCD64_LOCATOR, 0, at)
    if (cd_offset == 0xFFFFFFFF or cd_size == 0xFFFFFFFF) and locator >= 0:
        (record,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
        head = data_at(record, 56)
        if head[:4] == _EOCD64:
            cd_size, cd_offset = struct.unpack("<QQ", head[40:56])
            return record - cd_size, cd_size  # data may be prepended: count from the end
    return eocd - cd_size, cd_size


def _bad_name_flags(path: str) -> list[int]:
    """File offsets of the flag byte of each central-directory entry that claims a
    UTF-8 name that is not UTF-8."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:

        def data_at(offset: int, length: int) -> bytes:
            handle.seek(offset)
            return handle.read(length)

        start, length = _central_directory(data_at, size)
        directory = data_at(start, length)
    offsets, at = [], 0
    while directory[at : at + 4] == _CENTRAL and at + 46 <= len(directory):
        flags = struct.unpack("<H", directory[at + 8 : at + 10])[0]
        n, m, k = struct.unpack("<HHH", directory[at + 28 : at + 34])
        name = directory[at + 46 : at + 46 + n]
        if flags & _UTF8_FLAG:
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                offsets.append(start + at + 9)  # the flag's high byte holds bit 11
        at += 46 + n + m + k
    return offsets


def open_zip(path: str) -> tuple[zipfile.ZipFile, set[str]]:
    """The archive at `path`, and the names (as `zipfile` gives them) of the members
    whose names had to be read as bytes. Raises what `zipfile` raises otherwise."""
    try:
        return zipfile.ZipFile(path), set()
    except UnicodeDecodeError:
        pass
    offsets = _bad_name_flags(path)
    view = _PatchedView(path)
    try:
        for offset in offsets:
            view.seek(offset)
            view.patches[offset] = view.read(1)[0] & ~(_UTF8_FLAG >> 8)
        archive = zipfile.ZipFile(io.BufferedReader(view))
        relaxed = set()
        for info in archive.infolist():
            if info.flag_bits & _UTF8_FLAG:
                continue
            header = info.header_offset + 7  # the local header's flag, high byte
            view.seek(header)
            flag = view.read(1)[0]
            if flag & (_UTF8_FLAG >> 8):
                view.patches[header] = flag & ~(_UTF8_FLAG >> 8)
                relaxed.add(info.orig_filename)
    except BaseException:
        view.close()
        raise
    return archive, relaxed


def display_name(name: str, relaxed: set[str]) -> str:
    """A member's name as UTF-8 text, with the bytes that are not UTF-8 kept
    (surrogate-escaped) when `open_zip` had to read it as bytes."""
    if name not in relaxed:
        return name
    return name.encode("cp437").decode("utf-8", "surrogateescape")
