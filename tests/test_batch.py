"""`grader batch`: many submissions in, one result each plus a gradebook and a summary."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from checks import LAB
from grader.batch.gradebook import COLUMNS
from grader.batch.ids import assign_ids, safe_id
from grader.batch.progress import Progress
from grader.batch.run import run
from grader.cli.batch import main
from grader.engine import grade as grade_module
from grader.engine.grade import grade
from tests.conftest import CORRECT, REAL, SAMPLES, max_score

FULL = max_score()

CHECK_IDS = LAB.all_check_ids()
HEADER = [*COLUMNS, *CHECK_IDS]


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    """alice (correct), bob (role chunk counted) and carol (an empty folder)."""
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    shutil.copytree(REAL / "role_chunk_counted", root / "bob")
    (root / "carol").mkdir()
    return root


def gradebook(out: Path) -> list[dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert rows[0] == HEADER
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text("utf-8"))


def batch_cli(*args: str) -> int:
    return main([*args, "--no-progress"])


def test_batch_grades_every_submission(classroom: Path, tmp_path: Path, rubric) -> None:
    out = tmp_path / "out"
    assert batch_cli(str(classroom), "--out", str(out), "--jobs", "1") == 1  # carol: ungradable
    assert sorted(p.name for p in (out / "results").iterdir()) == [
        "alice.json",
        "bob.json",
        "carol.json",
    ]
    alice = json.loads((out / "results" / "alice.json").read_text("utf-8"))
    assert alice["gradable"] is True and alice["submission"] == str(classroom / "alice")
    carol = json.loads((out / "results" / "carol.json").read_text("utf-8"))
    assert carol["gradable"] is False and "no lab files" in carol["format_errors"][0]

    rows = gradebook(out)
    assert [r["id"] for r in rows] == ["alice", "bob", "carol"]
    for row, sample in ((rows[0], CORRECT), (rows[1], REAL / "role_chunk_counted")):
        expected = grade(LAB, str(sample), rubric)
        assert (row["score"], row["max_score"]) == (
            f"{expected.score:g}",
            f"{expected.max_score:g}",
        )
        assert row["gradable"] == "true" and row["error"] == ""
        assert [row[c.id] for c in expected.checks] == [f"{c.points:g}" for c in expected.checks]
    assert rows[1]["chunks.role_chunk_excluded"] == "0"
    assert rows[2]["gradable"] == "false" and "no lab files" in rows[2]["error"]
    assert rows[2]["score"] == "" and all(rows[2][c] == "" for c in CHECK_IDS)

    data = summary(out)
    assert (data["submissions"], data["graded"], data["errors"]) == (3, 2, 1)
    assert data["error_ids"] == ["carol"]
    assert data["score"]["max"] == FULL and data["score"]["min"] == float(rows[1]["score"])
    role = data["checks"]["chunks.role_chunk_excluded"]
    assert role["pass_rate"] == 0.5 and role["failed_ids"] == ["bob"]
    assert (role["passed"], role["failed"], role["skipped"], role["error"]) == (1, 1, 0, 0)
    assert data["checks"]["health.ok"]["pass_rate"] == 1
    assert list(data["checks"]) == CHECK_IDS
    assert not list(out.glob(".*"))  # no temporary or extraction folder left behind


def test_exit_0_when_every_submission_is_graded(classroom: Path, tmp_path: Path) -> None:
    shutil.rmtree(classroom / "carol")
    assert batch_cli(str(classroom), "--out", str(tmp_path / "out"), "--jobs", "1") == 0


def test_exit_2_on_bad_usage(classroom: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert batch_cli(str(classroom), str(tmp_path / "nope"), "--out", str(out)) == 2
    assert "no such file or folder" in capsys.readouterr().err and not out.exists()
    (tmp_path / "file").write_text("x")
    assert batch_cli(str(classroom), "--out", str(tmp_path / "file")) == 2
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "x"\n')
    assert batch_cli(str(classroom), "--out", str(out), "--rubric", str(rubric)) == 2
    with pytest.raises(SystemExit) as info:
        batch_cli(str(classroom), "--out", str(out), "--jobs", "0")
    assert info.value.code == 2


def test_a_single_submission_folder_and_a_non_archive_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    out = tmp_path / "out"
    assert batch_cli(str(CORRECT), str(tmp_path / "notes.txt"), "--out", str(out)) == 1
    rows = gradebook(out)
    assert [(r["id"], r["gradable"]) for r in rows] == [("correct", "true"), ("notes.txt", "false")]


def test_resume_keeps_existing_results(classroom: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batch_cli(str(classroom), "--out", str(out), "--jobs", "1")
    results = out / "results"
    marked = json.loads((results / "alice.json").read_text("utf-8"))
    marked["score"] = 1  # a marker, a believable score: regrading would put full marks back
    (results / "alice.json").write_text(json.dumps(marked), "utf-8")
    before = (results / "alice.json").stat()
    (results / "bob.json").unlink()  # missing: graded again
    (results / "carol.json").write_text("{not json", "utf-8")  # invalid: graded again

    assert batch_cli(str(classroom), "--out", str(out), "--jobs", "1", "--resume") == 1
    after = (results / "alice.json").stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    assert json.loads((results / "alice.json").read_text("utf-8"))["score"] == 1
    assert json.loads((results / "bob.json").read_text("utf-8"))["gradable"] is True
    assert json.loads((results / "carol.json").read_text("utf-8"))["gradable"] is False
    assert [r["score"] for r in gradebook(out)] == ["1", gradebook(out)[1]["score"], ""]
    assert summary(out)["submissions"] == 3

    batch_cli(str(classroom), "--out", str(out), "--jobs", "1")  # without --resume: regraded
    assert json.loads((results / "alice.json").read_text("utf-8"))["score"] == FULL


def test_an_archive_with_two_submissions(tmp_path: Path) -> None:
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.add(CORRECT, "alice")
        handle.add(REAL / "role_chunk_counted", "bob")
        handle.add(SAMPLES / "README.md", "README.md")
    one = tmp_path / "dave.zip"
    with zipfile.ZipFile(one, "w") as handle:  # one submission, files at the top
        for path in sorted(CORRECT.iterdir()):
            handle.write(path, path.name)
    out = tmp_path / "out"
    assert batch_cli(str(archive), str(one), "--out", str(out), "--jobs", "1") == 0
    rows = gradebook(out)
    assert [(r["id"], r["score"]) for r in rows] == [
        ("bundle__alice", f"{FULL:g}"),
        ("bundle__bob", rows[1]["score"]),
        ("dave", f"{FULL:g}"),
    ]
    assert rows[1]["chunks.role_chunk_excluded"] == "0"
    result = json.loads((out / "results" / "bundle__bob.json").read_text("utf-8"))
    assert result["submission"] == os.path.join(str(archive), "bob")
    notes = summary(out)["archives"]
    assert [(n["archive"], n["ids"], n["extracted"]) for n in notes] == [
        (str(archive), ["bundle__alice", "bundle__bob"], True),
        (str(one), ["dave"], True),
    ]
    assert notes[0]["others"] == {"count": 1, "names": ["README.md"]}
    assert notes[0]["files"] == 2 * len(LAB.artifacts)
    assert not list(out.glob(".extracted-*"))


def test_a_corrupt_archive_is_a_row_not_the_end(classroom: Path, tmp_path: Path) -> None:
    shutil.rmtree(classroom / "carol")
    (classroom / "erin.zip").write_bytes(b"PK\x03\x04 definitely not a zip")
    escape = io.BytesIO()
    with zipfile.ZipFile(escape, "w") as handle:
        handle.writestr("../escape/health.json", "{}")
    (classroom / "frank.tgz").write_bytes(b"")
    (tmp_path / "gina.zip").write_bytes(escape.getvalue())
    out = tmp_path / "out"
    assert batch_cli(str(classroom), str(tmp_path / "gina.zip"), "--out", str(out)) == 1
    rows = {r["id"]: r for r in gradebook(out)}
    assert sorted(rows) == ["alice", "bob", "erin", "frank", "gina"]
    for bad in ("erin", "frank", "gina"):
        assert rows[bad]["gradable"] == "false" and "archive refused" in rows[bad]["error"]
    assert "outside" in rows["gina"]["error"]
    assert rows["alice"]["score"] == f"{FULL:g}"
    assert not (tmp_path / "escape").exists()


def test_two_levels_ids_hidden_folders_and_the_out_folder(tmp_path: Path) -> None:
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "section a" / "Zoë")
    shutil.copytree(CORRECT, root / "section a" / "zoë" / "nested")  # level 3: not searched
    shutil.copytree(CORRECT, root / ".git" / "x")
    shutil.copytree(CORRECT, root / "__MACOSX" / "x")
    shutil.copytree(CORRECT, root / "-rm")
    (root / "linked").symlink_to(CORRECT, target_is_directory=True)  # not followed
    out = root / "out"  # inside PATH, a folder of its own: never graded
    (out / "old").mkdir(parents=True)
    (out / "old" / "notes.txt").write_text("an earlier export\n", "utf-8")
    assert batch_cli(str(root), "--out", str(out)) == 1
    rows = gradebook(out)
    assert [(r["id"][:-11], r["gradable"]) for r in rows if r["id"] != "linked"] == [
        ("_-rm", "true"),  # every name that had to change ends in its source's hash
        ("_git__x", "true"),  # a hidden first-level folder holding a submission: a row
        ("section_a__Zoë", "true"),
    ]
    assert [r["source"] for r in rows] == [
        str(root / "-rm"),
        str(root / ".git" / "x"),
        str(root / "linked"),
        str(root / "section a" / "Zoë"),
    ]
    assert "symbolic link" in rows[2]["error"] and rows[2]["id"] == "linked"


def test_ids_are_safe_and_unique() -> None:
    assert safe_id(["a b", "c/d?"]) == "a_b__c_d_"
    assert safe_id(["=cmd|x"]) == "_cmd_x" and safe_id(["@x"]) == "_@x"
    assert safe_id(["CON"]) == "_CON" and safe_id([".."]) == "_."
    long = safe_id(["x" * 300])
    assert len(long) <= 150 and long != safe_id(["x" * 301])
    ids = assign_ids([(("Alice",), "/a/Alice"), (("alice",), "/b/alice"), (("bob",), "/b/bob")])
    assert ids[1:] == ["alice", "bob"]  # names kept as they are: the ids
    assert ids[0].startswith("Alice-")  # a capital is lossy (case-insensitive disks)
    assert len({i.casefold() for i in ids}) == 3


def test_jobs_2_gives_the_same_bytes_as_jobs_1(classroom: Path, tmp_path: Path) -> None:
    for name in ("dan", "eve", "fay"):
        shutil.copytree(SAMPLES / "derived" / "ttft_four_runs", classroom / name)
    outputs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        assert batch_cli(str(classroom), "--out", str(out), "--jobs", jobs) == 1
        files = [
            "gradebook.csv",
            "summary.json",
            *(f"results/{p.name}" for p in (out / "results").iterdir()),
        ]
        outputs[jobs] = {f: (out / f).read_bytes() for f in sorted(files)}
    assert outputs["1"] == outputs["2"]
    assert len(outputs["1"]) == 2 + 6


def test_an_exception_for_one_submission_is_a_row(classroom: Path, tmp_path, monkeypatch) -> None:
    real_grade = grade_module.grade

    def flaky(lab, folder, rubric, **kwargs):
        if folder.endswith("bob"):
            raise RuntimeError("boom")
        return real_grade(lab, folder, rubric, **kwargs)

    monkeypatch.setattr(grade_module, "grade", flaky)
    out = tmp_path / "out"
    report = run([str(classroom)], str(out), jobs=1)
    rows = {r.id: r for r in report.rows}
    assert rows["alice"].gradable and rows["alice"].score == FULL
    assert not rows["bob"].gradable and "RuntimeError: boom" in rows["bob"].error
    assert rows["bob"].grader_error and not rows["alice"].grader_error
    assert report.exit_code == 3  # the grader's failure, not carol's empty folder


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
def test_a_crashing_worker_is_a_row_not_the_end(classroom: Path, tmp_path, monkeypatch) -> None:
    for name in ("dan", "eve", "fay", "gus"):
        shutil.copytree(CORRECT, classroom / name)
    real_grade = grade_module.grade

    def crashing(lab, folder, rubric, **kwargs):
        if folder.endswith("bob"):
            os._exit(7)  # a segfault or an OOM kill, as the pool sees it
        return real_grade(lab, folder, rubric, **kwargs)

    monkeypatch.setattr(grade_module, "grade", crashing)  # inherited by forked workers
    out = tmp_path / "out"
    report = run([str(classroom)], str(out), jobs=2, mp_context=multiprocessing.get_context("fork"))
    rows = {r.id: r for r in report.rows}
    assert sorted(rows) == ["alice", "bob", "carol", "dan", "eve", "fay", "gus"]
    assert not rows["bob"].gradable and "died" in rows["bob"].error
    for name in ("alice", "dan", "eve", "fay", "gus"):
        assert rows[name].gradable and rows[name].score == FULL
    assert json.loads((out / "results" / "bob.json").read_text("utf-8"))["gradable"] is False


def test_progress_bar_only_on_a_terminal(classroom: Path, tmp_path: Path, capsys) -> None:
    ticks = iter(range(100))
    stream = io.StringIO()
    bar = Progress(4, stream, enabled=True, clock=lambda: float(next(ticks)))
    for _ in range(4):
        bar.advance()
    bar.close()
    text = stream.getvalue()
    assert "\r" in text and "4/4" in text and "/s" in text and "ETA" in text
    assert text.endswith("\n")
    quiet = io.StringIO()
    silent = Progress(4, quiet, enabled=False)
    silent.advance()
    silent.close()
    assert quiet.getvalue() == ""
    main([str(classroom), "--out", str(tmp_path / "out"), "--jobs", "1"])  # stderr not a tty
    assert "\r" not in capsys.readouterr().err


def test_two_students_with_one_run_are_a_group_in_the_summary_and_the_gradebook(
    classroom: Path, tmp_path: Path
) -> None:
    shutil.copytree(CORRECT, classroom / "dave")
    out = tmp_path / "out"
    batch_cli(str(classroom), "--out", str(out))
    (group,) = summary(out)["integrity"]["groups"]
    assert group["members"] == ["alice", "dave"] and "log" in group["files"]
    assert group["ids"] and group["ids"][0].startswith("chatcmpl-")
    cells = {row["id"]: row["integrity"] for row in gradebook(out)}
    assert (cells["alice"], cells["dave"], cells["bob"]) == ("same_run:g1", "same_run:g1", "")


def test_an_honest_mistake_raises_no_integrity_flag(classroom: Path, tmp_path: Path) -> None:
    shutil.copytree(REAL / "cache_on_in_prefill", classroom / "erin")
    out = tmp_path / "out"
    batch_cli(str(classroom), "--out", str(out))
    found = summary(out)["integrity"]
    assert (found["flags"], found["groups"], found["near_timings_needed"]) == ({}, [], 6)


def test_the_batchs_integrity_findings_are_the_class_reports_reading_of_its_results(
    classroom: Path, tmp_path: Path
) -> None:
    """The rows carry each result's integrity evidence from the workers; the findings made
    of it are those the class report's rules make of the result files as it reads them
    (`read_results`), flags and groups alike."""
    from checks.class_report import CLASS_REPORT
    from grader.class_report.integrity import class_integrity
    from grader.class_report.results import read_results

    shutil.copytree(CORRECT, classroom / "dave")
    shutil.copytree(SAMPLES / "fabricated" / "hand_typed", classroom / "hal")
    out = tmp_path / "out"
    run([str(classroom)], str(out), jobs=2, mp_context=multiprocessing.get_context("fork"))
    found = summary(out)["integrity"]
    students, _ = read_results(out)
    assert found == json.loads(json.dumps(class_integrity(students, CLASS_REPORT)))
    assert found["flags"] and found["groups"]
