"""Archives are extracted safely: no escape, no link, no bomb, no crash on garbage."""

from __future__ import annotations

import io
import os
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader.archives import (
    ArchiveError,
    archive_kind,
    archive_stem,
    copy_counted,
    extract_archive,
    safe_parts,
)


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, zipfile.ZIP_DEFLATED)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
            else:
                name, data = member
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return path


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# ------------------------------------------------------------------ normal archives


def test_a_zip_extracts(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "a.zip", {"alice/": b"", "alice/health.json": b"{}", "bob/ttft.json": b"[]"}
    )
    out = extract_archive(str(archive), str(tmp_path / "x"))
    assert tree(tmp_path / "x") == {"alice/health.json": b"{}", "bob/ttft.json": b"[]"}
    assert (out.files, out.bytes, out.skipped) == (2, 4, [])


def test_a_tar_gz_extracts(tmp_path: Path) -> None:
    folder = tarfile.TarInfo("alice")
    folder.type = tarfile.DIRTYPE
    archive = make_tar(tmp_path / "a.tar.gz", [folder, ("alice/health.json", b"{}"), ("./x", b"1")])
    out = extract_archive(str(archive), str(tmp_path / "x"))
    assert tree(tmp_path / "x") == {"alice/health.json": b"{}", "x": b"1"}
    assert out.files == 2


def test_a_tgz_and_windows_separators(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tgz", [("a/b.txt", b"b")])
    extract_archive(str(tmp_path / "a.tgz"), str(tmp_path / "t"))
    assert tree(tmp_path / "t") == {"a/b.txt": b"b"}
    make_zip(tmp_path / "w.zip", {"alice\\health.json": b"{}"})
    extract_archive(str(tmp_path / "w.zip"), str(tmp_path / "w"))
    assert tree(tmp_path / "w") == {"alice/health.json": b"{}"}


def test_names_and_kinds() -> None:
    assert archive_kind("A.ZIP") == "zip" and archive_kind("x.tar.gz") == "tar"
    assert archive_kind("x.tgz") == "tar" and archive_kind("x.tar") is None
    assert archive_stem("/p/class-a.tar.gz") == "class-a" and archive_stem("b.TGZ") == "b"
    assert safe_parts("./a//b/./c") == ("a", "b", "c")
    assert safe_parts("a\\b", backslash_is_separator=True) == ("a", "b")


# ------------------------------------------------------------------ escapes


@pytest.mark.parametrize("name", ["../evil.txt", "a/../../evil.txt", "a/..", "..\\evil.txt"])
def test_dot_dot_is_refused(tmp_path: Path, name: str) -> None:
    make_zip(tmp_path / "a.zip", {"ok.txt": b"1", name: b"evil"})
    with pytest.raises(ArchiveError, match=r"outside"):
        extract_archive(str(tmp_path / "a.zip"), str(tmp_path / "x" / "y"))
    assert not (tmp_path / "x" / "y").exists()
    assert not list(tmp_path.rglob("evil.txt"))


def test_dot_dot_in_a_tar_is_refused(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [("ok.txt", b"1"), ("../evil.txt", b"evil")])
    with pytest.raises(ArchiveError, match=r"outside"):
        extract_archive(str(tmp_path / "a.tar.gz"), str(tmp_path / "x"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("name", ["/tmp/evil.txt", "C:/evil.txt", "C:\\evil.txt"])
def test_absolute_paths_are_refused(tmp_path: Path, name: str) -> None:
    make_zip(tmp_path / "a.zip", {name: b"evil"})
    with pytest.raises(ArchiveError, match="absolute"):
        extract_archive(str(tmp_path / "a.zip"), str(tmp_path / "x"))


def test_absolute_path_in_a_tar_is_refused(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [(str(tmp_path / "evil.txt"), b"evil")])
    with pytest.raises(ArchiveError, match="absolute"):
        extract_archive(str(tmp_path / "a.tar.gz"), str(tmp_path / "x"))
    assert not (tmp_path / "evil.txt").exists()


# ------------------------------------------------------------------ links and devices


def test_tar_links_devices_and_fifos_are_skipped(tmp_path: Path) -> None:
    members = [
        ("sub/health.json", b"{}"),
        special("sub/props.json", tarfile.SYMTYPE, "/etc/passwd"),
        special("sub/inside", tarfile.SYMTYPE, "health.json"),
        special("sub/hard", tarfile.LNKTYPE, "sub/health.json"),
        special("sub/fifo", tarfile.FIFOTYPE),
        special("sub/dev", tarfile.CHRTYPE),
        # a file "through" the skipped link must not land in /etc
        ("sub/props.json/x", b"x"),
    ]
    make_tar(tmp_path / "a.tar.gz", members)
    out = extract_archive(str(tmp_path / "a.tar.gz"), str(tmp_path / "x"))
    assert [reason for _, reason in out.skipped] == [
        "symbolic link",
        "symbolic link",
        "hard link",
        "FIFO",
        "device",
    ]
    for path in (tmp_path / "x").rglob("*"):
        assert not path.is_symlink()
        assert stat.S_ISREG(path.lstat().st_mode) or path.is_dir()
    assert tree(tmp_path / "x") == {"sub/health.json": b"{}", "sub/props.json/x": b"x"}


def test_zip_symlink_is_skipped(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as archive:
        link = zipfile.ZipInfo("alice/health.json")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr("alice/ttft.json", "[]")
    out = extract_archive(str(tmp_path / "a.zip"), str(tmp_path / "x"))
    assert out.skipped == [("alice/health.json", "symbolic link")]
    assert tree(tmp_path / "x") == {"alice/ttft.json": b"[]"}
    assert not os.path.lexists(tmp_path / "x" / "alice" / "health.json")


# ------------------------------------------------------------------ size and count caps


def test_too_many_members_is_refused(tmp_path: Path) -> None:
    members = {f"f{i}.txt": b"x" for i in range(6)}
    make_zip(tmp_path / "a.zip", members)
    make_tar(tmp_path / "a.tar.gz", list(members.items()))
    for name in ("a.zip", "a.tar.gz"):
        with pytest.raises(ArchiveError, match="more than"):
            extract_archive(str(tmp_path / name), str(tmp_path / f"{name}-x"), max_members=5)
        extract_archive(str(tmp_path / name), str(tmp_path / f"{name}-ok"), max_members=6)


def _patch_sizes(data: bytearray, size: int) -> bytearray:
    """Set the uncompressed size in every local and central header of a zip."""
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        while at != -1:
            struct.pack_into("<I", data, at + offset, size)
            at = data.find(signature, at + 4)
    return data


def test_zip_bomb_inflating_past_its_declared_size_is_refused(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"bomb.txt": b"\0" * (8 << 20)})
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(_patch_sizes(bytearray((tmp_path / "plain.zip").read_bytes()), 100))
    assert bomb.stat().st_size < 100_000  # 8 MiB of zeros inside, 100 bytes declared
    with pytest.raises(ArchiveError):
        extract_archive(str(bomb), str(tmp_path / "x"), max_total_bytes=1 << 20)
    assert not (tmp_path / "x").exists()


def test_zip_declaring_a_huge_size_is_refused_before_extracting(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"a.txt": b"hello"})
    huge = tmp_path / "huge.zip"
    huge.write_bytes(_patch_sizes(bytearray((tmp_path / "plain.zip").read_bytes()), 0xFFFFFFF0))
    with pytest.raises(ArchiveError, match="declares"):
        extract_archive(str(huge), str(tmp_path / "x"))  # default cap: 2 GiB
    assert not (tmp_path / "x").exists()


def test_total_size_cap_holds_for_honest_archives_too(tmp_path: Path) -> None:
    make_zip(tmp_path / "a.zip", {"a": b"1" * 600, "b": b"2" * 600})
    make_tar(tmp_path / "a.tar.gz", [("a", b"1" * 600), ("b", b"2" * 600)])
    for name in ("a.zip", "a.tar.gz"):
        with pytest.raises(ArchiveError, match="cap"):
            extract_archive(str(tmp_path / name), str(tmp_path / f"{name}-x"), max_total_bytes=1000)


def test_tar_declaring_a_huge_member_is_refused_from_its_header(tmp_path: Path) -> None:
    info = tarfile.TarInfo("huge.bin")
    info.size = 10 << 30  # 10 GiB declared, no data follows: only the header is read
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.fileobj.write(info.tobuf(handle.format, handle.encoding, handle.errors))
    with pytest.raises(ArchiveError, match="cap"):
        extract_archive(str(archive), str(tmp_path / "x"))


def test_bytes_are_counted_while_copying() -> None:
    sink = io.BytesIO()
    with pytest.raises(ArchiveError, match="declared size"):
        copy_counted(io.BytesIO(b"x" * 300_000), sink, declared=100, budget=10**9)
    assert len(sink.getvalue()) <= 100
    with pytest.raises(ArchiveError, match="size cap"):
        copy_counted(io.BytesIO(b"x" * 300_000), io.BytesIO(), declared=10**9, budget=1000)
    assert copy_counted(io.BytesIO(b"abc"), io.BytesIO(), declared=3, budget=3) == 3


# ------------------------------------------------------------------ broken archives


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("junk.zip", b"this is not a zip file at all"),
        ("junk.tar.gz", b"\x1f\x8b\x08\x00 not really gzip"),
        ("junk.tgz", b"plain text"),
        ("empty.zip", b""),
    ],
)
def test_corrupt_archive_is_an_error_not_an_exception(
    tmp_path: Path, name: str, data: bytes
) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(ArchiveError, match="can't read"):
        extract_archive(str(tmp_path / name), str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_truncated_tar_gz_is_an_error(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [(f"f{i}", os.urandom(5000)) for i in range(5)])
    data = (tmp_path / "a.tar.gz").read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ArchiveError):
        extract_archive(str(tmp_path / "cut.tar.gz"), str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_encrypted_and_duplicate_members_are_refused(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"secret.txt": b"xx"})
    data = bytearray((tmp_path / "plain.zip").read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # "encrypted" flag
        at = data.find(signature)
        data[at + offset] |= 0x1
    (tmp_path / "enc.zip").write_bytes(data)
    with pytest.raises(ArchiveError, match="encrypted"):
        extract_archive(str(tmp_path / "enc.zip"), str(tmp_path / "x"))
    make_tar(tmp_path / "dup.tar.gz", [("a.txt", b"1"), ("a.txt", b"2")])
    with pytest.raises(ArchiveError, match="twice"):
        extract_archive(str(tmp_path / "dup.tar.gz"), str(tmp_path / "y"))
