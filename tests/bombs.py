"""Hostile archives made on the fly, in a second or less, none of them stored in the repo.

`zero_member` writes one zip member of N bytes of zeros without ever holding or
compressing N bytes: a fully flushed deflate block of 1 MiB of zeros is repeated (each
such block stands alone, so the repetition is a valid deflate stream), and the CRC-32
is chained over the same 1 MiB. A 1 GiB member takes about 1 MB on disk.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

MIB = 1 << 20
_BLOCK = bytes(MIB)


def _deflated_zeros() -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(_BLOCK) + compressor.flush(zlib.Z_FULL_FLUSH)


def zero_zip(path: Path, members: Iterable[tuple[str, int]], declare: int | None = None) -> Path:
    """A zip of members named and sized as given (sizes in whole MiB), zeros inside.

    `declare` overrides the uncompressed size every header declares (a lying bomb).
    """
    block = _deflated_zeros()
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    central = []
    with open(path, "wb") as out:
        for name, size in members:
            assert size % MIB == 0
            count = size // MIB
            crc = 0
            for _ in range(count):
                crc = zlib.crc32(_BLOCK, crc)
            compressed = len(block) * count + len(end)
            declared = size if declare is None else declare
            encoded = name.encode("utf-8")
            offset = out.tell()
            header = struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                20,
                0x800,
                8,
                0,
                0x21,
                crc,
                compressed,
                declared,
                len(encoded),
                0,
            )
            out.write(header + encoded)
            for _ in range(count):
                out.write(block)
            out.write(end)
            central.append(
                struct.pack(
                    "<4sHHHHHHIIIHHHHHII",
                    b"PK\x01\x02",
                    20,
                    20,
                    0x800,
                    8,
                    0,
                    0x21,
                    crc,
                    compressed,
                    declared,
                    len(encoded),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + encoded
            )
        start = out.tell()
        directory = b"".join(central)
        out.write(directory)
        out.write(
            struct.pack(
                "<4sHHHHIIH",
                b"PK\x05\x06",
                0,
                0,
                len(central),
                len(central),
                len(directory),
                start,
                0,
            )
        )
    return path


def many_members_zip(path: Path, names: Iterable[str], data: bytes = b"") -> Path:
    """A zip of many small stored members (folders when a name ends in /)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name in names:
            archive.writestr(name, b"" if name.endswith("/") else data)
    return path
