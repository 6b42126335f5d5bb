"""`grader prairielearn`, PrairieLearn's external-grader entry point, end to end.

The project's wheel is installed with the real pip into a fresh environment, and its
`grader prairielearn` runs in a temporary folder laid out as PrairieLearn lays out a
grading job ("External Grading": the student's files in `/grade/student`, the result
read from `/grade/results/results.json`, a folder PrairieLearn does not make), the root
given by `PRAIRIELEARN_GRADE_ROOT`. `results.json` is read as PrairieLearn reads it:
`gradable`, `score` a fraction in 0..1, `message`, `tests[]` with `name`, `points`,
`max_points`, `message`, `output`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REAL, max_score
from tests.installed import build_wheel, install, user_env

PL_TEST_KEYS = {"name", "description", "points", "max_points", "message", "output"}


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheel = build_wheel(tmp_path_factory.mktemp("dist"))
    return install(wheel, tmp_path_factory.mktemp("pl") / "venv")


def grade(bin_dir: Path, root: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    proc = subprocess.run(
        [str(bin_dir / "grader"), "prairielearn", *args],
        env=user_env(PRAIRIELEARN_GRADE_ROOT=str(root)),
        cwd=root.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc, json.loads((root / "results" / "results.json").read_text("utf-8"))


def job(tmp_path: Path, submission: Path | None) -> Path:
    """A grading job's folder with the student's files and no results folder."""
    root = tmp_path / "grade"
    if submission is None:
        (root / "student").mkdir(parents=True)
    else:
        shutil.copytree(submission, root / "student")
    return root


def test_a_real_correct_run_gets_full_marks_as_prairielearn_reads_them(
    bin_dir: Path, tmp_path: Path
) -> None:
    proc, doc = grade(bin_dir, job(tmp_path, REAL / "correct"))
    assert proc.returncode == 0, proc.stderr
    assert doc["gradable"] is True and doc["score"] == 1.0
    assert doc["message"].startswith(f"Score: {max_score():g}/{max_score():g}")
    assert sum(t["max_points"] for t in doc["tests"]) == max_score()
    for test in doc["tests"]:
        assert set(test) == PL_TEST_KEYS and test["points"] == test["max_points"]


def test_the_results_folder_is_made_when_absent(bin_dir: Path, tmp_path: Path) -> None:
    root = job(tmp_path, REAL / "correct")
    assert not (root / "results").exists()
    proc, _ = grade(bin_dir, root)
    assert proc.returncode == 0 and (root / "results" / "results.json").is_file()


def test_a_real_mistake_scores_a_fraction_with_the_failed_check_at_zero(
    bin_dir: Path, tmp_path: Path
) -> None:
    _, doc = grade(bin_dir, job(tmp_path, REAL / "no_close_on_cancel"))
    tests = {t["name"]: t for t in doc["tests"]}
    assert doc["gradable"] is True and 0 < doc["score"] < 1
    assert tests["cancel.slot_freed"]["points"] == 0 < tests["cancel.slot_freed"]["max_points"]
    assert tests["cancel.slot_freed"]["message"]


def test_an_empty_submission_is_not_gradable_with_the_reason(bin_dir: Path, tmp_path: Path) -> None:
    proc, doc = grade(bin_dir, job(tmp_path, None))
    assert proc.returncode == 0
    assert doc["gradable"] is False and doc["score"] == 0
    assert "none of the lab's files" in doc["format_errors"][0]


def test_an_unusable_rubric_still_writes_a_not_gradable_result(
    bin_dir: Path, tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    proc, doc = grade(bin_dir, job(tmp_path, REAL / "correct"), "--rubric", str(rubric))
    assert proc.returncode == 0
    assert doc["gradable"] is False and "no.such" in doc["message"]


def test_an_old_results_json_is_never_taken_for_this_jobs(bin_dir: Path, tmp_path: Path) -> None:
    root = job(tmp_path, REAL / "correct")
    (root / "results").mkdir()
    (root / "results" / "results.json").write_text('{"gradable": true, "score": 1}', "utf-8")
    rubric = tmp_path / "rubric.toml"
    rubric.write_text("not toml [", "utf-8")
    _, doc = grade(bin_dir, root, "--rubric", str(rubric))
    assert doc["gradable"] is False


def test_the_feedback_follows_lang(bin_dir: Path, tmp_path: Path) -> None:
    _, doc = grade(bin_dir, job(tmp_path, REAL / "correct"), "--lang", "ja")
    assert doc["message"].startswith("得点")
