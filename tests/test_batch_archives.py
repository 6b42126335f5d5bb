"""A batch's archives are bounded as a whole: only the lab's files are extracted, a few
archives at a time, under a budget for the batch and a cap of submissions per archive;
the hostile cases of issue 10 run in a second or two each, generated on the fly."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from grader.batch import archives as batch_archives
from grader.batch import grading as batch_grading
from grader.cli.batch import main
from tests.bombs import MIB, many_members_zip, zero_zip
from tests.conftest import CORRECT, ROOT, max_score

FULL = f"{max_score():g}"

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")
FILES = sorted(p.name for p in CORRECT.iterdir())


def batch(*args: str) -> int:
    return main([*args, "--jobs", "1", "--no-progress"])


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as stream:
        return {r["id"]: r for r in csv.DictReader(stream)}


def with_limits(tmp_path: Path, **limits: int) -> str:
    text = RUBRIC_TEXT.replace(
        'version = "2026.12"',
        'version = "2026.12"\n[limits]\n' + "".join(f"{k} = {v}\n" for k, v in limits.items()),
    )
    path = tmp_path / "rubric.toml"
    path.write_text(text, "utf-8")
    return str(path)


def class_zip(path: Path, names: list[str], extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            for file in sorted(CORRECT.iterdir()):
                archive.write(file, f"{name}/{file.name}")
        for member, data in (extra or {}).items():
            archive.writestr(member, data)
    return path


def test_only_the_lab_files_are_extracted_and_the_rest_is_noted(tmp_path: Path) -> None:
    extra = {f"alice/venv/lib/m{i}.py": b"x" for i in range(40)}
    archive = class_zip(tmp_path / "class.zip", ["alice", "bob"], extra)
    written: list[str] = []
    real = batch_grading.grade_task

    def spy(task):  # type: ignore[no-untyped-def]
        if task.folder:
            written.extend(sorted(os.listdir(task.folder)))
        return real(task)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch_grading, "grade_task", spy)
        patch.setattr("grader.batch.run.grade_task", spy)
        assert batch(str(archive), "--out", str(tmp_path / "out")) == 0
    assert written == FILES * 2
    book = rows(tmp_path / "out")
    assert book["class__alice"]["score"] == FULL
    assert book["class__alice"]["note"].startswith("40 other files in the archive were not")
    assert "alice/venv/lib/m0.py" in book["class__alice"]["note"]
    assert book["class__bob"]["note"] == ""
    assert book["class__alice"]["source"] == f"{archive}/alice"


def test_archives_are_extracted_graded_and_deleted_a_few_at_a_time(
    tmp_path: Path, monkeypatch
) -> None:
    """Three archives of 6 submissions each: never more than one archive on disk."""
    paths = [class_zip(tmp_path / f"a{n}.zip", [f"s{i}" for i in range(6)]) for n in range(3)]
    out = tmp_path / "out"
    peak = {"files": 0}
    real = batch_grading.grade_task

    def spy(task):  # type: ignore[no-untyped-def]
        root = next(out.glob(".extracted-*"), None)
        if root is not None:
            peak["files"] = max(peak["files"], sum(1 for p in root.rglob("*") if p.is_file()))
        return real(task)

    monkeypatch.setattr("grader.batch.run.grade_task", spy)
    monkeypatch.setattr(batch_grading, "grade_task", spy)
    assert batch(*map(str, paths), "--out", str(out)) == 0
    assert len(rows(out)) == 18
    assert 0 < peak["files"] <= 6 * len(FILES)  # one archive (the group of 4 fills in one)
    assert not list(out.glob(".extracted-*"))


def test_the_batch_budget_holds_across_archives(tmp_path: Path) -> None:
    size = sum(p.stat().st_size for p in CORRECT.iterdir())
    first = class_zip(tmp_path / "a1.zip", ["s0", "s1"])
    second = class_zip(tmp_path / "a2.zip", ["s0", "s1"])
    rubric = with_limits(tmp_path, batch_archive_bytes=3 * size)
    assert batch(str(first), str(second), "--out", str(tmp_path / "out"), "--rubric", rubric) == 1
    book = rows(tmp_path / "out")
    graded = {i for i, r in book.items() if r["gradable"] == "true"}
    assert graded == {"a1__s0", "a1__s1", "a2__s0"} or len(graded) == 3
    refused = [r for r in book.values() if r["gradable"] == "false"]
    assert len(refused) == 1 and "batch_archive_bytes" in refused[0]["error"]


def test_submissions_per_archive_are_capped_by_the_rubric(tmp_path: Path) -> None:
    archive = class_zip(tmp_path / "class.zip", ["a", "b", "c"])
    rubric = with_limits(tmp_path, archive_submissions=2)
    assert batch(str(archive), "--out", str(tmp_path / "out"), "--rubric", rubric) == 1
    (row,) = rows(tmp_path / "out").values()
    assert row["id"] == "class" and "more than 2 submissions" in row["error"]


def test_a_corrupt_member_costs_only_its_submission(tmp_path: Path) -> None:
    archive = class_zip(tmp_path / "class.zip", ["alice", "bob"])
    data = bytearray(archive.read_bytes())
    name = b"alice/cache.json"
    at = data.find(b"PK\x03\x04" + data[4:4])  # the first local header
    at = data.find(name, at) + len(name) + 5
    data[at] ^= 0xFF
    archive.write_bytes(data)
    assert batch(str(archive), "--out", str(tmp_path / "out")) == 1
    book = rows(tmp_path / "out")
    assert book["class__alice"]["gradable"] == "false"
    assert "alice/cache.json can't be extracted" in book["class__alice"]["error"]
    assert book["class__bob"]["score"] == FULL


def test_a_tar_r_resubmission_is_graded_from_the_last_copy_and_says_so(tmp_path: Path) -> None:
    archive = tmp_path / "class.tar"
    with tarfile.open(archive, "w") as handle:
        handle.add(CORRECT, "alice")
        broken = tarfile.TarInfo("alice/ttft.json")
        broken.size = 3
        handle.addfile(broken, io.BytesIO(b"{[}"))
    with tarfile.open(archive, "a") as handle:  # `tar -r`: the fixed file, appended
        handle.add(CORRECT / "ttft.json", "alice/ttft.json")
    assert batch(str(archive), "--out", str(tmp_path / "out")) == 0
    row = rows(tmp_path / "out")["class__alice"]
    assert row["score"] == FULL and "ttft.json is in the archive 3 times" in row["note"]


def test_a_member_over_its_cap_is_reported_too_big_with_its_size(tmp_path: Path) -> None:
    members = [(f"alice/{f}", MIB) for f in ("health.json",)] + [("alice/sse_raw.txt", 64 * MIB)]
    archive = zero_zip(tmp_path / "class.zip", members)
    assert batch(str(archive), "--out", str(tmp_path / "out")) == 0  # graded: badly
    result = json.loads((tmp_path / "out" / "results" / "class__alice.json").read_text("utf-8"))
    sse = next(a for a in result["artifacts"] if a["name"] == "sse")
    assert sse["status"] == "refused" and "67108864 bytes" in sse["problems"][0]["message"]


def test_resume_reuses_archive_results_when_nothing_changed(tmp_path: Path) -> None:
    archive = class_zip(tmp_path / "class.zip", ["alice", "bob"])
    out = tmp_path / "out"
    assert batch(str(archive), "--out", str(out)) == 0
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}
    assert batch(str(archive), "--out", str(out), "--resume") == 0
    assert {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()} == stamps


# ------------------------------------------------------------------ the cases of issue 10


def timed(*args: str) -> float:
    start = time.monotonic()
    batch(*args)
    return time.monotonic() - start


def test_a_1_mb_zip_inflating_to_1_gib_extracts_nothing_of_it(tmp_path: Path) -> None:
    archive = zero_zip(
        tmp_path / "bomb.zip", [("alice/junk.bin", 1024 * MIB), ("alice/sse_raw.txt", 1024 * MIB)]
    )
    assert archive.stat().st_size < 3 * MIB
    seconds = timed(str(archive), "--out", str(tmp_path / "out"))
    row = rows(tmp_path / "out")["bomb__alice"]
    assert row["note"].startswith("1 other file ") and seconds < 10
    assert "bytes, over the limit" in (tmp_path / "out" / "results" / "bomb__alice.json").read_text(
        "utf-8"
    )


def test_a_bomb_lying_about_its_size_costs_only_its_submission(tmp_path: Path) -> None:
    archive = zero_zip(tmp_path / "bomb.zip", [("alice/sse_raw.txt", 1024 * MIB)], declare=1000)
    seconds = timed(str(archive), "--out", str(tmp_path / "out"))
    row = rows(tmp_path / "out")["bomb__alice"]
    assert row["gradable"] == "false" and "can't be extracted" in row["error"] and seconds < 10


def test_20000_folders_are_one_refused_row_at_once(tmp_path: Path) -> None:
    archive = many_members_zip(tmp_path / "folders.zip", (f"f{i}/" for i in range(20_000)))
    seconds = timed(str(archive), "--out", str(tmp_path / "out"))
    book = rows(tmp_path / "out")
    assert list(book) == ["folders"] and "more than 1000 submissions" in book["folders"]["error"]
    assert seconds < 10


def test_100000_members_write_only_the_lab_files(tmp_path: Path) -> None:
    names = [f"alice/junk/{i}.txt" for i in range(100_000 - len(FILES))]
    archive = many_members_zip(tmp_path / "many.zip", names, b"x")
    with zipfile.ZipFile(archive, "a") as handle:
        for file in sorted(CORRECT.iterdir()):
            handle.write(file, f"alice/{file.name}")
    seconds = timed(str(archive), "--out", str(tmp_path / "out"))
    row = rows(tmp_path / "out")["many__alice"]
    assert row["score"] == FULL and row["note"].startswith(f"{len(names)} other files")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    assert summary["archives"][0]["files"] == len(FILES) and seconds < 30


def test_many_small_archives_in_a_folder_are_each_a_row(tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    for name in ("ann", "ben", "cat", "dan", "eve"):
        with zipfile.ZipFile(folder / f"{name}.zip", "w") as handle:
            for file in sorted(CORRECT.iterdir()):
                handle.write(file, file.name)
    shutil.copytree(CORRECT, folder / "fay")
    assert batch(str(folder), "--out", str(tmp_path / "out")) == 0
    assert sorted(rows(tmp_path / "out")) == ["ann", "ben", "cat", "dan", "eve", "fay"]
    assert batch_archives.GROUP_BYTES > 0
