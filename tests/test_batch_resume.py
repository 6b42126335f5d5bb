"""`--resume` never hands one student's result to another: ids come from source paths
alone, and a stored result is reused only when its source and input digest match."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from grader.cli.batch import main
from grader.engine import grade as grade_module
from tests.conftest import CORRECT, REAL, ROOT, max_score

FULL = f"{max_score():g}"
MAX = max_score()


def batch(*args: str) -> int:
    return main([*args, "--jobs", "1", "--no-progress"])


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as stream:
        return {r["id"]: r for r in csv.DictReader(stream)}


def stamps(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}


@pytest.fixture
def graded_class(tmp_path: Path) -> tuple[Path, Path]:
    """A class with a_b (correct), graded once into out."""
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "a_b")
    out = tmp_path / "out"
    assert batch(str(root), "--out", str(out)) == 0
    return root, out


def test_a_new_folder_named_alike_never_gets_another_students_result(graded_class) -> None:
    """The case of issue 10: `a b`, holding only health.json, is added to a class that
    has `a_b`; with --resume, a_b keeps its id and result, `a b` gets its own."""
    root, out = graded_class
    (root / "a b").mkdir()
    shutil.copy(CORRECT / "health.json", root / "a b" / "health.json")
    assert batch(str(root), "--out", str(out), "--resume") == 0
    book = rows(out)
    assert book["a_b"]["score"] == FULL and book["a_b"]["source"] == str(root / "a_b")
    (newcomer,) = [r for i, r in book.items() if i != "a_b"]
    assert newcomer["id"].startswith("a_b-") and newcomer["source"] == str(root / "a b")
    assert float(newcomer["score"]) < 10  # its own, honest score


def test_ids_do_not_depend_on_the_order_of_the_paths(tmp_path: Path) -> None:
    for name in ("x", "y"):
        shutil.copytree(CORRECT, tmp_path / name / "alice")
        shutil.copytree(CORRECT, tmp_path / name / "Bo b")
    first, second = tmp_path / "out1", tmp_path / "out2"
    batch(str(tmp_path / "x"), str(tmp_path / "y"), "--out", str(first))
    batch(str(tmp_path / "y"), str(tmp_path / "x"), "--out", str(second))
    ids = {i: r["source"] for i, r in rows(first).items()}
    assert ids == {i: r["source"] for i, r in rows(second).items()} and len(ids) == 4


def test_resume_reuses_a_result_when_nothing_changed(graded_class) -> None:
    root, out = graded_class
    before = stamps(out)
    assert batch(str(root), "--out", str(out), "--resume") == 0
    assert stamps(out) == before


def test_resume_grades_again_after_a_file_changed(graded_class) -> None:
    root, out = graded_class
    shutil.copy(REAL / "role_chunk_counted" / "chunks.jsonl", root / "a_b" / "chunks.jsonl")
    batch(str(root), "--out", str(out), "--resume")
    assert rows(out)["a_b"]["chunks.role_chunk_excluded"] == "0"


def test_resume_grades_again_after_the_rubric_changed(graded_class, tmp_path: Path) -> None:
    root, out = graded_class
    rubric = tmp_path / "rubric.toml"
    text = (ROOT / "checks" / "rubric.toml").read_text("utf-8")
    rubric.write_text(
        text.replace('[checks."health.ok"]\npoints = 1', '[checks."health.ok"]\npoints = 5')
    )
    batch(str(root), "--out", str(out), "--resume", "--rubric", str(rubric))
    assert rows(out)["a_b"]["score"] == f"{max_score() + 4:g}"


def test_resume_grades_again_after_an_upgrade(graded_class, monkeypatch) -> None:
    root, out = graded_class
    before = stamps(out)
    monkeypatch.setattr(grade_module, "__version__", "99.0")
    batch(str(root), "--out", str(out), "--resume")
    assert stamps(out) != before


def test_resume_grades_again_after_the_language_changed(graded_class) -> None:
    root, out = graded_class
    batch(str(root), "--out", str(out), "--resume", "--lang", "ja")
    assert json.loads((out / "results" / "a_b.json").read_text("utf-8"))["language"] == "ja"


def test_resume_refuses_a_result_recorded_for_another_source(graded_class) -> None:
    root, out = graded_class
    shutil.copytree(REAL / "role_chunk_counted", root / "zed")
    shutil.copy(out / "results" / "a_b.json", out / "results" / "zed.json")  # a stale file
    batch(str(root), "--out", str(out), "--resume")
    result = json.loads((out / "results" / "zed.json").read_text("utf-8"))
    assert result["submission"] == str(root / "zed") and result["score"] < MAX


def test_resume_grades_again_a_result_without_a_digest(graded_class) -> None:
    root, out = graded_class
    path = out / "results" / "a_b.json"
    old = json.loads(path.read_text("utf-8"))
    del old["input_digest"]  # as grader 1.0 wrote it
    path.write_text(json.dumps(old), "utf-8")
    batch(str(root), "--out", str(out), "--resume")
    assert json.loads(path.read_text("utf-8"))["input_digest"]


def test_the_gradebook_names_each_rows_source(graded_class) -> None:
    root, out = graded_class
    header = (out / "gradebook.csv").read_text("utf-8").splitlines()[0].split(",")
    assert header[:8] == [
        "id", "source", "score", "max_score", "gradable", "grader_error", "error", "note",
    ]  # fmt: skip
    assert rows(out)["a_b"]["source"] == str(root / "a_b")


def test_a_source_that_looks_like_a_formula_stays_text(tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(CORRECT, tmp_path / "=cmd")
    monkeypatch.chdir(tmp_path)
    assert batch("=cmd", "--out", "out") == 0
    (row,) = rows(tmp_path / "out").values()
    assert row["id"].startswith("_cmd-") and row["source"] == "'=cmd"
