"""A batch's outputs describe exactly this batch's inputs (issue 26): ids that depend on
a student's own source path alone, results of students no longer present set aside,
and `grader report` / `grader export` reading only the results the summary names,
each believed only when its points are possible."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from grader.batch.ids import assign_ids
from grader.class_report.results import read_results, result_files
from grader.cli.batch import main as batch_main
from grader.cli.main import main as cli_main
from tests.conftest import CORRECT, REAL, max_score

FULL = max_score()


def batch(*args: str) -> int:
    return batch_main([*args, "--no-progress"])


def ids_of(*names: str) -> dict[str, str]:
    items = [((n,), f"/class/{n}") for n in names]
    return dict(zip(names, assign_ids(items), strict=True))


def test_an_id_does_not_depend_on_the_other_folders() -> None:
    alone = ids_of("a_b", "alice", "Alice Smith")
    beside = ids_of("a_b", "A_B", "alice", "Alice", "Alice Smith", "a b")
    for name in alone:
        assert alone[name] == beside[name]
    assert alone["a_b"] == "a_b" and alone["alice"] == "alice"
    assert beside["A_B"].startswith("A_B-") and beside["Alice"].startswith("Alice-")
    assert len({i.casefold() for i in beside.values()}) == len(beside)


def test_a_name_that_looks_hashed_or_joined_gets_its_own_hash() -> None:
    ids = ids_of("alice-0123456789", "a__b")
    assert ids["alice-0123456789"] != "alice-0123456789"
    assert ids["a__b"].startswith("a__b-")


def test_a_stale_result_is_set_aside_and_never_exported(tmp_path: Path) -> None:
    """Alice resubmits as `Alice`: her old `alice.json` (a lower score) must not reach
    the class page or Canvas through a roster keyed `alice`."""
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(REAL / "role_chunk_counted", root / "alice")
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    old = json.loads((out / "results" / "alice.json").read_text("utf-8"))
    assert old["score"] < FULL
    shutil.rmtree(root / "alice")
    shutil.copytree(CORRECT, root / "Alice")

    assert batch(str(root), "--out", str(out), "--resume") == 0
    names = sorted(p.name for p in (out / "results").iterdir())
    assert len(names) == 2 and "bob.json" in names and "alice.json" not in names
    assert (out / "stale-results" / "alice.json").is_file()  # set aside, not deleted
    students, bad = read_results(out)
    assert len(students) == 2 and not bad
    assert {s.score for s in students} == {FULL}

    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS Login ID\nAlice,1,alice\nBob,2,bob\n", "utf-8")
    to = tmp_path / "canvas.csv"
    assert (
        cli_main(
            ["export", str(out), "--to", "canvas", "--roster", str(roster), "--output", str(to)]
        )
        == 0
    )
    rows = {r[0]: r for r in csv.reader(io.StringIO(to.read_text("utf-8-sig")))}
    assert rows["Alice"][-1] == f"{FULL:g}"  # her new grade, not the stale one


def test_report_reads_only_the_results_the_summary_names(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    shutil.copy(out / "results" / "bob.json", out / "results" / "mallory.json")
    assert [name for name, _, _ in result_files(out)] == ["bob"]
    (out / "summary.json").unlink()  # no finished batch: every result file is read
    assert [name for name, _, _ in result_files(out)] == ["bob", "mallory"]


@pytest.mark.parametrize(("field", "value"), [("score", 999), ("score", -50)])
def test_a_score_outside_0_to_max_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: int
) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    path = out / "results" / "bob.json"
    data = json.loads(path.read_text("utf-8"))
    data[field] = value
    path.write_text(json.dumps(data), "utf-8")

    found = result_files(out)
    assert found[0][0] == "bob.json" and found[0][1] is None
    assert f"score {value} is outside 0..{FULL:g}" in found[0][2]
    roster = tmp_path / "roster.csv"
    roster.write_text("submission\nbob\n", "utf-8")
    code = cli_main(
        [
            "export",
            str(out),
            "--to",
            "canvas",
            "--roster",
            str(roster),
            "--output",
            str(tmp_path / "c.csv"),
        ]
    )
    assert code == 2  # nothing believable to export
    assert "bob.json" in capsys.readouterr().err


def test_a_check_given_more_than_its_points_is_refused(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    path = out / "results" / "bob.json"
    data = json.loads(path.read_text("utf-8"))
    data["checks"][0]["points"] = data["checks"][0]["max_points"] + 5
    path.write_text(json.dumps(data), "utf-8")
    ((_, result, reason),) = result_files(out)
    assert result is None and "are outside 0.." in reason


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_as_a_result_never_blocks_resume(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    path = out / "results" / "bob.json"
    path.unlink()
    os.mkfifo(path)
    codes: list[int] = []
    worker = threading.Thread(
        target=lambda: codes.append(batch(str(root), "--out", str(out), "--resume")), daemon=True
    )
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "--resume blocked on a FIFO"
    assert codes == [0] and path.is_file()  # graded again, written over the FIFO


def test_an_older_graders_summary_without_ids_reads_every_result(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    del summary["ids"]
    (out / "summary.json").write_text(json.dumps(summary), "utf-8")
    assert [name for name, _, _ in result_files(out)] == ["bob"]


def test_a_summary_naming_a_path_is_refused(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    assert batch(str(root), "--out", str(out)) == 0
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    summary["ids"] = ["../../etc/passwd"]
    (out / "summary.json").write_text(json.dumps(summary), "utf-8")
    ((name, result, reason),) = result_files(out)
    assert (name, result) == ("summary.json", None) and "ids" in reason


def test_report_names_a_refused_result_in_its_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(CORRECT, root / "bob")
    shutil.copytree(CORRECT, root / "carol")
    assert batch(str(root), "--out", str(out)) == 0
    path = out / "results" / "bob.json"
    data = json.loads(path.read_text("utf-8"))
    data["score"] = 999
    path.write_text(json.dumps(data), "utf-8")
    capsys.readouterr()
    assert cli_main(["report", str(out), "--lang", "en"]) == 0
    err = capsys.readouterr().err
    assert "could not be read and is left out (bob.json)" in err
    students, bad = read_results(out)
    assert [s.id for s in students] == ["carol"] and [b.name for b in bad] == ["bob.json"]
