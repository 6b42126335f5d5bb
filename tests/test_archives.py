"""Archives are planned from their names and only the lab's files extracted, each under
its cap: no escape, no link, no bomb, and a broken member costs only its submission."""

from __future__ import annotations

import io
import os
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader.reading.archives import (
    ArchiveCaps,
    ArchiveError,
    Budget,
    BudgetExhausted,
    MemberError,
    archive_kind,
    archive_stem,
    copy_counted,
    extract_rows,
    plan_archive,
    safe_parts,
)

ARTIFACTS = frozenset({"health.json", "ttft.json", "sse_raw.txt", "props.json"})
CAPS = ArchiveCaps(members=100_000, declared_bytes=2 * 1024**3, submissions=1_000)
MAX_BYTES = dict.fromkeys(ARTIFACTS, 4 * 1024 * 1024)


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, zipfile.ZIP_DEFLATED)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz"):
    with tarfile.open(path, mode) as archive:
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


def extracted(path: Path, tmp: Path, caps: ArchiveCaps = CAPS, budget: int = 2**40, **kw):
    """The plan of the archive and, per row, (files written, too big, error)."""
    plan = plan_archive(str(path), ARTIFACTS, caps)
    rows = extract_rows(
        plan, str(tmp / "dest"), caps, kw.get("max_bytes", MAX_BYTES), Budget(budget)
    )
    got = {}
    for parts, row in rows.items():
        files = {n: (Path(row.folder) / n).read_bytes() for n in sorted(os.listdir(row.folder))}
        error = str(row.error) if row.error is not None else None  # in English
        got["/".join(parts)] = (files, row.too_big, error)
    return plan, got


def written(tmp: Path) -> list[str]:
    dest = tmp / "dest"
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) if dest.exists() else []


# ------------------------------------------------------------------ normal archives


def test_a_zip_gives_one_row_per_submission_and_only_their_lab_files(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "a.zip",
        {
            "alice/": b"",
            "alice/health.json": b"{}",
            "alice/notes.txt": b"n",
            "bob/ttft.json": b"[]",
        },
    )
    plan, got = extracted(archive, tmp_path)
    assert [r.parts for r in plan.rows] == [("alice",), ("bob",)]
    assert got == {
        "alice": ({"health.json": b"{}"}, {}, None),
        "bob": ({"ttft.json": b"[]"}, {}, None),
    }
    assert plan.rows[0].others.count == 1 and plan.rows[0].others.names == ["alice/notes.txt"]


def test_a_tar_gz_a_tgz_and_a_plain_tar_read_alike(tmp_path: Path) -> None:
    members = [("alice/health.json", b"{}"), ("./x", b"1"), ("sec/bob/ttft.json", b"[]")]
    for name, mode in (("a.tar.gz", "w:gz"), ("a.tgz", "w:gz"), ("a.tar", "w")):
        plan, got = extracted(make_tar(tmp_path / name, members, mode), tmp_path / name[2:])
        assert [r.parts for r in plan.rows] == [("alice",), ("sec", "bob")]
        assert got["alice"][0] == {"health.json": b"{}"} and got["sec/bob"][0] == {
            "ttft.json": b"[]"
        }
        assert plan.others.names == ["./x"]


def test_files_at_the_top_make_the_archive_one_submission(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "a.zip", {"health.json": b"{}", "old/ttft.json": b"[]"})
    plan, got = extracted(archive, tmp_path)
    assert [r.parts for r in plan.rows] == [()]
    assert got == {"": ({"health.json": b"{}"}, {}, None)}  # old/ is not searched
    assert plan.rows[0].others.names == ["old/ttft.json"]


def test_a_folder_without_lab_files_is_a_row_of_its_own(tmp_path: Path) -> None:
    plan = plan_archive(
        str(make_zip(tmp_path / "a.zip", {"alice/health.json": b"{}", "carol/x.txt": b""})),
        ARTIFACTS,
        CAPS,
    )
    assert [(r.parts, r.is_submission) for r in plan.rows] == [
        (("alice",), True),
        (("carol",), False),
    ]


def test_windows_separators_and_hidden_folders(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "w.zip",
        {"alice\\health.json": b"{}", "__MACOSX/alice/._health.json": b"x", "alice/.DS_Store": b""},
    )
    plan, got = extracted(archive, tmp_path)
    assert got == {"alice": ({"health.json": b"{}"}, {}, None)}
    assert plan.rows[0].others.names == ["alice/.DS_Store"]
    assert plan.others.names == ["__MACOSX/alice/._health.json"]


def test_names_and_kinds() -> None:
    assert archive_kind("A.ZIP") == "zip" and archive_kind("x.tar.gz") == "tar"
    assert archive_kind("x.tgz") == "tar" and archive_kind("x.tar") == "tar"
    assert archive_kind("x.tar.xz") is None
    assert archive_stem("/p/class-a.tar.gz") == "class-a" and archive_stem("b.TGZ") == "b"
    assert safe_parts("./a//b/./c") == ("a", "b", "c")
    assert safe_parts("a\\b", backslash_is_separator=True) == ("a", "b")


# ------------------------------------------------------------------ escapes cost the archive


@pytest.mark.parametrize("name", ["../evil.txt", "a/../../evil.txt", "a/..", "..\\evil.txt"])
def test_dot_dot_refuses_the_archive_before_anything_is_written(tmp_path: Path, name: str) -> None:
    make_zip(tmp_path / "a.zip", {"ok/health.json": b"1", name: b"evil"})
    with pytest.raises(ArchiveError, match=r"outside"):
        plan_archive(str(tmp_path / "a.zip"), ARTIFACTS, CAPS)
    assert not list(tmp_path.rglob("evil.txt"))


def test_dot_dot_in_a_tar_refuses_it(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [("ok/health.json", b"1"), ("../evil.txt", b"evil")])
    with pytest.raises(ArchiveError, match=r"outside"):
        plan_archive(str(tmp_path / "a.tar.gz"), ARTIFACTS, CAPS)


@pytest.mark.parametrize("name", ["/tmp/evil.txt", "C:/evil.txt", "C:\\evil.txt"])
def test_absolute_paths_refuse_the_archive(tmp_path: Path, name: str) -> None:
    make_zip(tmp_path / "a.zip", {name: b"evil"})
    with pytest.raises(ArchiveError, match="absolute"):
        plan_archive(str(tmp_path / "a.zip"), ARTIFACTS, CAPS)


def test_absolute_path_in_a_tar_refuses_it(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [(str(tmp_path / "health.json"), b"evil")])
    with pytest.raises(ArchiveError, match="absolute"):
        plan_archive(str(tmp_path / "a.tar.gz"), ARTIFACTS, CAPS)


# ------------------------------------------------------------------ links and devices


def test_links_devices_and_fifos_are_never_created_only_named(tmp_path: Path) -> None:
    members = [
        ("sub/health.json", b"{}"),
        special("sub/props.json", tarfile.SYMTYPE, "/etc/passwd"),
        special("sub/hard", tarfile.LNKTYPE, "sub/health.json"),
        special("sub/fifo", tarfile.FIFOTYPE),
        special("sub/dev", tarfile.CHRTYPE),
        ("sub/props.json/x", b"x"),  # "through" the link: a plain non-lab file
    ]
    plan, got = extracted(make_tar(tmp_path / "a.tar.gz", members), tmp_path)
    assert got == {"sub": ({"health.json": b"{}"}, {}, None)}
    assert plan.rows[0].others.names == [
        "sub/props.json (symbolic link)",
        "sub/hard (hard link)",
        "sub/fifo (FIFO)",
        "sub/dev (device)",
        "sub/props.json/x",
    ]
    for path in (tmp_path / "dest").rglob("*"):
        assert not path.is_symlink() and (stat.S_ISREG(path.lstat().st_mode) or path.is_dir())


def test_a_zip_symlink_named_like_a_lab_file_is_not_created(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as archive:
        link = zipfile.ZipInfo("alice/health.json")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr("alice/ttft.json", "[]")
    plan, got = extracted(tmp_path / "a.zip", tmp_path)
    assert got == {"alice": ({"ttft.json": b"[]"}, {}, None)}
    assert plan.rows[0].others.names == ["alice/health.json (symbolic link)"]


# ------------------------------------------------------------------ caps


def test_too_many_members_refuse_the_archive(tmp_path: Path) -> None:
    members = {f"a/f{i}.txt": b"x" for i in range(6)}
    make_zip(tmp_path / "a.zip", members)
    make_tar(tmp_path / "a.tar.gz", list(members.items()))
    for name in ("a.zip", "a.tar.gz"):
        with pytest.raises(ArchiveError, match="more than"):
            plan_archive(str(tmp_path / name), ARTIFACTS, ArchiveCaps(5, 2**31, 10))
        plan_archive(str(tmp_path / name), ARTIFACTS, ArchiveCaps(6, 2**31, 10))


def test_too_many_submissions_refuse_the_archive(tmp_path: Path) -> None:
    make_zip(tmp_path / "a.zip", {f"s{i}/health.json": b"{}" for i in range(4)})
    with pytest.raises(ArchiveError, match="archive_submissions"):
        plan_archive(str(tmp_path / "a.zip"), ARTIFACTS, ArchiveCaps(100, 2**31, 3))


def _patch_sizes(data: bytearray, size: int) -> bytearray:
    """Set the uncompressed size in every local and central header of a zip."""
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        while at != -1:
            struct.pack_into("<I", data, at + offset, size)
            at = data.find(signature, at + 4)
    return data


def test_a_zip_declaring_too_many_bytes_is_refused_from_its_directory(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"a/health.json": b"hello"})
    huge = tmp_path / "huge.zip"
    huge.write_bytes(_patch_sizes(bytearray((tmp_path / "plain.zip").read_bytes()), 0xFFFFFFF0))
    with pytest.raises(ArchiveError, match="declares"):
        plan_archive(str(huge), ARTIFACTS, CAPS)  # 4 GiB declared, the cap is 2 GiB


def test_a_tar_declaring_a_huge_member_is_refused_from_its_header(tmp_path: Path) -> None:
    info = tarfile.TarInfo("a/huge.bin")
    info.size = 10 << 30  # 10 GiB declared, no data follows: only the header is read
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.fileobj.write(info.tobuf(handle.format, handle.encoding, handle.errors))
    with pytest.raises(ArchiveError, match="cap"):
        plan_archive(str(archive), ARTIFACTS, CAPS)


def test_a_lab_file_over_its_read_cap_is_not_extracted_but_reported(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "a.zip", {"a/sse_raw.txt": b"x" * 5000, "a/health.json": b"{}"})
    _, got = extracted(archive, tmp_path, max_bytes={**MAX_BYTES, "sse_raw.txt": 4096})
    assert got == {"a": ({"health.json": b"{}"}, {"sse_raw.txt": 5000}, None)}


def test_a_member_inflating_past_its_declared_size_costs_only_its_row(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"a/sse_raw.txt": b"\0" * (1 << 20), "b/health.json": b"{}"})
    data = bytearray((tmp_path / "plain.zip").read_bytes())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # first member only
        struct.pack_into("<I", data, data.find(signature) + offset, 100)
    (tmp_path / "bomb.zip").write_bytes(data)
    _, got = extracted(tmp_path / "bomb.zip", tmp_path)
    assert "a/sse_raw.txt can't be extracted" in (got["a"][2] or "")  # zipfile or our count
    assert got["b"] == ({"health.json": b"{}"}, {}, None)


def test_the_batch_budget_stops_extraction_and_says_so(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "a.zip", {f"s{i}/sse_raw.txt": bytes([i]) * 1000 for i in range(5)}
    )
    _, got = extracted(archive, tmp_path, budget=2500)
    assert [got[f"s{i}"][2] is None for i in range(5)] == [True, True, False, False, False]
    assert "batch_archive_bytes" in (got["s4"][2] or "")


def test_bytes_are_counted_while_copying() -> None:
    sink = io.BytesIO()
    with pytest.raises(MemberError, match="declared size"):
        copy_counted(io.BytesIO(b"x" * 300_000), sink, 100, Budget(10**9))
    assert len(sink.getvalue()) <= 100
    with pytest.raises(BudgetExhausted, match="batch_archive_bytes"):
        copy_counted(io.BytesIO(b"x" * 300_000), io.BytesIO(), 10**9, Budget(1000))
    assert copy_counted(io.BytesIO(b"abc"), io.BytesIO(), 3, Budget(3)) == 3


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
def test_an_unreadable_archive_is_an_error_not_an_exception(
    tmp_path: Path, name: str, data: bytes
) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(ArchiveError, match="can't read"):
        plan_archive(str(tmp_path / name), ARTIFACTS, CAPS)


def test_a_truncated_tar_gz_is_refused_when_planned(tmp_path: Path) -> None:
    make_tar(tmp_path / "a.tar.gz", [(f"s{i}/health.json", os.urandom(5000)) for i in range(5)])
    data = (tmp_path / "a.tar.gz").read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ArchiveError):  # what follows the break can't even be listed
        plan_archive(str(tmp_path / "cut.tar.gz"), ARTIFACTS, CAPS)


def test_a_corrupt_member_costs_only_its_submission(tmp_path: Path) -> None:
    make_zip(tmp_path / "a.zip", {"alice/health.json": b'{"ok": 1}' * 50, "bob/health.json": b"{}"})
    data = bytearray((tmp_path / "a.zip").read_bytes())
    data[data.find(b"PK\x03\x04") + 30 + len("alice/health.json") + 2] ^= 0xFF  # its data
    (tmp_path / "bad.zip").write_bytes(data)
    _, got = extracted(tmp_path / "bad.zip", tmp_path)
    assert "alice/health.json can't be extracted" in (got["alice"][2] or "")
    assert got["bob"] == ({"health.json": b"{}"}, {}, None)
    assert written(tmp_path) == ["0", "1", "1/health.json"]  # nothing half-written is left


def test_an_encrypted_member_costs_only_its_submission(tmp_path: Path) -> None:
    make_zip(tmp_path / "plain.zip", {"alice/health.json": b"xx", "bob/health.json": b"{}"})
    data = bytearray((tmp_path / "plain.zip").read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # first member only
        data[data.find(signature) + offset] |= 0x1
    (tmp_path / "enc.zip").write_bytes(data)
    _, got = extracted(tmp_path / "enc.zip", tmp_path)
    assert "encrypted" in (got["alice"][2] or "") and got["bob"][2] is None


def test_a_tar_r_resubmission_uses_the_last_copy_as_tar_does(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "class.tar", [("alice/health.json", b"old")], "w")
    make_tar(archive, [("alice/health.json", b"new")], "a")  # what `tar -r` does
    plan, got = extracted(archive, tmp_path)
    assert got == {"alice": ({"health.json": b"new"}, {}, None)}
    assert plan.rows[0].duplicates == {"health.json": 2}


def test_a_duplicate_over_its_cap_after_a_good_copy_leaves_it_too_big(tmp_path: Path) -> None:
    archive = make_tar(
        tmp_path / "class.tar", [("a/sse_raw.txt", b"ok"), ("a/sse_raw.txt", b"x" * 50)], "w"
    )
    _, got = extracted(archive, tmp_path, max_bytes={**MAX_BYTES, "sse_raw.txt": 10})
    assert got == {"a": ({}, {"sse_raw.txt": 50}, None)}  # the last one wins, too big


def _flag_utf8_with_latin1_name(path: Path, name: bytes, data: bytes) -> None:
    """A zip whose one member claims a UTF-8 name (flag bit 11) that is Latin-1."""
    good = name.decode("latin-1").encode("utf-8")
    make_zip(path, {good.decode("utf-8"): data, "bob/health.json": b"{}"})
    raw = bytearray(path.read_bytes())
    for signature, extra in ((b"PK\x03\x04", 30), (b"PK\x01\x02", 46)):
        at = raw.find(signature)
        (length,) = struct.unpack_from("<H", raw, at + (26 if extra == 30 else 28))
        assert raw[at + extra : at + extra + length] == good
        folder, _, file = name.partition(b"/")  # same length: pad the folder, not the file
        raw[at + extra : at + extra + length] = (
            folder.ljust(length - len(file) - 1, b"_") + b"/" + file
        )
    path.write_bytes(bytes(raw))


def test_a_name_in_a_wrong_encoding_costs_nothing(tmp_path: Path) -> None:
    _flag_utf8_with_latin1_name(tmp_path / "a.zip", b"zo\xeb/health.json", b'{"z": 1}')
    with pytest.raises(UnicodeDecodeError):
        zipfile.ZipFile(tmp_path / "a.zip")  # what used to cost the whole archive
    plan, got = extracted(tmp_path / "a.zip", tmp_path)
    assert plan.relaxed_names == 1
    assert sorted(got) == ["bob", "zo\udceb_"]  # the byte kept, shown as \xeb
    assert got["zo\udceb_"][0] == {"health.json": b'{"z": 1}'}


def test_a_tar_name_that_is_not_utf8_is_kept_as_bytes(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w", format=tarfile.GNU_FORMAT, encoding="latin-1") as handle:
        info = tarfile.TarInfo("zoë/health.json")
        info.size = 2
        handle.addfile(info, io.BytesIO(b"{}"))
    _, got = extracted(archive, tmp_path)
    assert got == {"zo\udceb": ({"health.json": b"{}"}, {}, None)}
