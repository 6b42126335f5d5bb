"""One rule for where a submission's files are, whatever command grades it.

A folder's submission is in the folder itself or, when it holds no lab file, in the one
folder below it (two levels at most) that does; several such folders are several
submissions; none is nothing to grade. `grader check`, `grader batch` and Gradescope's
`run_autograder` all follow it (grader.reading.locate).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.grade import NotGradable, grade
from grader.engine.rubric import Rubric
from grader.reading.locate import MAX_FOLDERS, locate
from tests.conftest import CORRECT, ROOT
from tests.render.test_gradescope import run_autograder

NAMES = [spec.filename for spec in LAB.artifacts]


def upload(tmp_path: Path, *inner: str) -> Path:
    """A student's upload: the correct real run saved `inner` levels down."""
    root = tmp_path / "upload"
    shutil.copytree(CORRECT, root.joinpath(*inner))
    return root


def grader(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


# --- the rule ---------------------------------------------------------------------


def test_a_folder_holding_lab_files_is_its_own_submission(tmp_path: Path) -> None:
    assert locate(str(upload(tmp_path)), NAMES).found == [()]


def test_one_lab_file_is_enough_to_make_a_folder_a_submission(tmp_path: Path) -> None:
    (tmp_path / "ttft.json").write_text("{}", "utf-8")
    (tmp_path / "llm").mkdir()
    shutil.copy(CORRECT / "health.json", tmp_path / "llm")
    assert locate(str(tmp_path), NAMES).found == [()]


def test_files_one_folder_down_are_found(tmp_path: Path) -> None:
    assert locate(str(upload(tmp_path, "llm")), NAMES).found == [("llm",)]


def test_files_two_folders_down_are_found(tmp_path: Path) -> None:
    assert locate(str(upload(tmp_path, "voice", "llm")), NAMES).found == [("voice", "llm")]


def test_files_three_folders_down_are_out_of_reach(tmp_path: Path) -> None:
    assert locate(str(upload(tmp_path, "root", "voice", "llm")), NAMES).found == []


def test_the_shallowest_folder_with_lab_files_wins(tmp_path: Path) -> None:
    root = upload(tmp_path, "llm")
    shutil.copytree(CORRECT, root / "llm" / "backup")
    assert locate(str(root), NAMES).found == [("llm",)]


def test_two_folders_with_lab_files_at_one_level_are_two_submissions(tmp_path: Path) -> None:
    root = upload(tmp_path, "llm")
    shutil.copytree(CORRECT, root / "old")
    assert locate(str(root), NAMES).found == [("llm",), ("old",)]


@pytest.mark.parametrize("name", [".git", "__MACOSX", "__pycache__", ".trash"])
def test_hidden_and_tool_folders_are_never_a_submission(tmp_path: Path, name: str) -> None:
    root = upload(tmp_path, "llm")
    shutil.copytree(CORRECT, root / name)
    assert locate(str(root), NAMES).found == [("llm",)]


def test_a_link_to_a_folder_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    os.symlink(CORRECT, root / "llm")
    assert locate(str(root), NAMES).found == []


def test_a_folder_named_like_a_lab_file_does_not_make_a_submission(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hi", "utf-8")
    assert locate(str(tmp_path), NAMES).found == []


def test_a_tree_of_many_folders_is_searched_in_bounded_time(tmp_path: Path) -> None:
    for number in range(MAX_FOLDERS + 50):
        (tmp_path / f"d{number:04}" / "x").mkdir(parents=True)
    located = locate(str(tmp_path), NAMES)
    assert located.found == [] and not located.complete


# --- grading follows it --------------------------------------------------------------


def test_grading_the_folder_around_a_submission_gives_the_submissions_result(
    tmp_path: Path, rubric: Rubric
) -> None:
    root = upload(tmp_path, "llm")
    around, inside = grade(LAB, str(root), rubric), grade(LAB, str(root / "llm"), rubric)
    assert around.files_in == "llm" and inside.files_in is None
    assert around.score == inside.score == around.max_score
    assert around.input_digest == inside.input_digest
    assert around.submission == str(root)  # the folder as given, with where below it


def test_an_empty_folder_is_not_gradable(tmp_path: Path, rubric: Rubric) -> None:
    with pytest.raises(NotGradable) as caught:
        grade(LAB, str(tmp_path), rubric)
    assert caught.value.problem.message_id == "engine.no_lab_files"


def test_a_folder_of_several_submissions_is_not_gradable_as_one(
    tmp_path: Path, rubric: Rubric
) -> None:
    root = upload(tmp_path, "alice")
    shutil.copytree(CORRECT, root / "bob")
    with pytest.raises(NotGradable) as caught:
        grade(LAB, str(root), rubric)
    problem = caught.value.problem
    assert problem.message_id == "engine.several_submissions"
    assert problem.params["found"] == "alice/, bob/" and problem.params["count"] == 2


def test_a_file_given_by_its_own_option_makes_an_empty_folder_gradable(
    tmp_path: Path, rubric: Rubric
) -> None:
    result = grade(LAB, str(tmp_path), rubric, overrides={"log": str(CORRECT / "server.log")})
    assert result.gradable and result.files_in is None


# --- every entry point -------------------------------------------------------------


def test_check_grades_the_files_in_the_subfolder_and_says_where(tmp_path: Path) -> None:
    run = grader("check", str(upload(tmp_path, "llm")))
    assert run.returncode == 0, run.stderr
    assert "The files were found in llm/" in run.stdout


def test_check_of_an_empty_folder_exits_2_with_a_sentence(tmp_path: Path) -> None:
    run = grader("check", str(tmp_path), "--format", "json")
    assert run.returncode == 2
    result = json.loads(run.stdout)
    assert result["gradable"] is False and "holds none of the lab's files" in run.stderr


def test_check_of_several_submissions_exits_2_naming_them(tmp_path: Path) -> None:
    root = upload(tmp_path, "alice")
    shutil.copytree(CORRECT, root / "bob")
    run = grader("check", str(root), "--lang", "ja")
    assert run.returncode == 2 and "alice/, bob/" in run.stderr and "grader batch" in run.stderr


def test_batch_finds_a_students_files_in_their_subfolder(tmp_path: Path) -> None:
    classroom = tmp_path / "class"
    shutil.copytree(CORRECT, classroom / "alice" / "llm")
    shutil.copytree(CORRECT, classroom / "bob" / "voice" / "llm")
    (classroom / "carol").mkdir()
    run = grader("batch", str(classroom), "--out", str(tmp_path / "out"))
    assert run.returncode == 1, run.stderr  # carol's folder: nothing to grade
    with open(tmp_path / "out" / "gradebook.csv", encoding="utf-8") as handle:
        rows = {row["source"].rsplit("class/", 1)[-1]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"alice/llm", "bob/voice/llm", "carol"}
    assert rows["alice/llm"]["score"] == rows["bob/voice/llm"]["score"] != ""
    assert rows["carol"]["score"] == "" and "no lab files" in rows["carol"]["error"]


def test_gradescope_grades_an_upload_whose_files_are_in_a_subfolder(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "results").mkdir(parents=True)
    shutil.copytree(CORRECT, root / "submission" / "llm")
    run = run_autograder(root)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text("utf-8"))
    assert results["score"] == sum(test["max_score"] for test in results["tests"]) > 0
    assert "llm/" in results["output"]


def test_gradescope_scores_an_empty_upload_0_saying_why(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "results").mkdir(parents=True)
    (root / "submission").mkdir()
    run = run_autograder(root)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text("utf-8"))
    assert results["score"] == 0 and results["tests"] == []
    assert "holds none of the lab's files" in results["output"]
