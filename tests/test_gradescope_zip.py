"""`grader gradescope-zip`, end to end with the real tools, as Gradescope runs it.

The zip the command writes is unpacked into an emulated `/autograder` (a temporary
folder, `AUTOGRADER_ROOT`), its own `setup.sh` runs with the real `python3 -m venv` and
the real pip (the grader's wheel from the zip, its dependencies from the package index
the machine is configured with), and its own `run_autograder` grades a real capture that
is no published sample (`tests/data/real/`), with the grader of that environment alone
(no PYTHONPATH, run from outside the checkout). `results.json` is then read field by
field against Gradescope's "Autograder Specifications"
(https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format"):
`score`, `execution_time` (seconds), `output`, `visibility`, and per test `name`,
`score`, `max_score`, `status`, `output`.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from grader.cli.gradescope import REQUIRES
from grader.words.tomlfile import loads as toml_loads
from tests.conftest import REAL, ROOT, max_score
from tests.render.test_gradescope import GRADESCOPE_RESULTS


def build_zip(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", "gradescope-zip", "--out", str(out), *args],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def clean_env(root: Path) -> dict[str, str]:
    """The environment Gradescope gives: no PYTHONPATH, the layout's root."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADER", "PYTHON")}
    return env | {"AUTOGRADER_ROOT": str(root)}


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An emulated /autograder: the zip unpacked into source/, setup.sh run for real."""
    root = tmp_path_factory.mktemp("gs") / "autograder"
    archive = root.parent / "autograder.zip"
    built = build_zip(archive)
    assert built.returncode == 0, built.stderr
    source = root / "source"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(source)
    for script in ("setup.sh", "run_autograder"):  # extractall drops the mode bits
        (source / script).chmod(0o755)
    setup = subprocess.run(
        ["bash", str(source / "setup.sh")],
        cwd=root.parent,
        env=clean_env(root) | {"PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return root


def grade(autograder: Path, submission: Path | None) -> dict:
    """Put `submission` in place, run the zip's run_autograder, read results.json."""
    shutil.rmtree(autograder / "submission", ignore_errors=True)
    shutil.rmtree(autograder / "results", ignore_errors=True)
    if submission is not None:
        shutil.copytree(submission, autograder / "submission")
    else:
        (autograder / "submission").mkdir()
    run = subprocess.run(
        [str(autograder / "source" / "run_autograder")],
        cwd=autograder.parent,
        env=clean_env(autograder),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    document = json.loads((autograder / "results" / "results.json").read_text("utf-8"))
    jsonschema.validate(document, GRADESCOPE_RESULTS)
    return document


def test_the_zip_has_both_scripts_executable_at_its_root_and_one_wheel(tmp_path: Path) -> None:
    archive = tmp_path / "autograder.zip"
    assert build_zip(archive).returncode == 0
    with zipfile.ZipFile(archive) as zipped:
        infos = {i.filename: i for i in zipped.infolist()}
    wheels = [n for n in infos if n.endswith(".whl")]
    assert len(wheels) == 1 and "/" not in wheels[0]
    for script in ("setup.sh", "run_autograder"):
        assert (infos[script].external_attr >> 16) & stat.S_IXUSR


def test_the_zip_is_the_same_bytes_when_built_twice(tmp_path: Path) -> None:
    assert build_zip(tmp_path / "a.zip").returncode == 0
    assert build_zip(tmp_path / "b.zip").returncode == 0
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_the_command_says_the_total_to_set_in_gradescope(tmp_path: Path) -> None:
    assert f"{max_score():g} points" in build_zip(tmp_path / "a.zip").stderr


def test_a_broken_rubric_is_refused_before_any_zip_is_written(tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    built = build_zip(tmp_path / "a.zip", "--rubric", str(rubric))
    assert built.returncode == 2 and "no.such" in built.stderr
    assert not (tmp_path / "a.zip").exists()


def test_the_wheels_dependencies_are_pyprojects() -> None:
    declared = toml_loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    normal = [d.replace("'", '"') for d in declared["dependencies"]]
    assert list(REQUIRES) == normal


def test_setup_installs_the_grader_into_its_own_environment(autograder: Path) -> None:
    grader = autograder / "venv" / "bin" / "grader"
    env = clean_env(autograder)
    version = subprocess.run([str(grader), "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and "0.1.0" in version.stdout
    python = str(autograder / "venv" / "bin" / "python")
    where = subprocess.run(
        [python, "-c", "import grader; print(grader.__file__)"],
        capture_output=True, text=True, cwd=autograder.parent, env=env,
    )  # fmt: skip
    assert str(autograder / "venv") in where.stdout


def test_a_real_correct_run_gets_full_marks_field_by_field(autograder: Path) -> None:
    doc = grade(autograder, REAL / "correct")
    assert doc["score"] == doc["extra_data"]["max_score"] == max_score()
    assert isinstance(doc["execution_time"], (int, float)) and 0 <= doc["execution_time"] < 60
    assert doc["output"].startswith(f"**Score: {max_score():g}/{max_score():g}")
    assert doc["visibility"] == "visible" and doc["stdout_visibility"] == "hidden"
    assert len(doc["tests"]) == doc["extra_data"]["summary"]["passed"] > 0
    for test in doc["tests"]:
        assert test["status"] == "passed" and test["score"] == test["max_score"]
        assert test["name"].startswith(test["extra_data"]["id"])
        assert test["visibility"] == "visible" and isinstance(test["output"], str)
    assert sum(t["max_score"] for t in doc["tests"]) == max_score()


def test_a_real_mistake_fails_its_own_test_with_where_and_what_to_do(autograder: Path) -> None:
    doc = grade(autograder, REAL / "role_chunk_counted")
    test = next(t for t in doc["tests"] if t["extra_data"]["id"] == "chunks.role_chunk_excluded")
    assert test["status"] == "failed" and test["score"] == 0 and test["max_score"] == 4
    assert "chunks.jsonl" in test["output"]
    assert doc["score"] == sum(t["score"] for t in doc["tests"]) < max_score()


def test_files_in_a_folder_of_the_upload_are_found(autograder: Path, tmp_path: Path) -> None:
    shutil.copytree(REAL / "correct", tmp_path / "upload" / "llm")
    doc = grade(autograder, tmp_path / "upload")
    assert doc["score"] == max_score()


def test_an_upload_with_no_lab_file_says_it_was_not_graded_at_the_top(autograder: Path) -> None:
    doc = grade(autograder, None)
    assert doc["score"] == 0 and doc["tests"] == []
    first, second = doc["output"].split("\n\n")[:2]
    assert first == "## ⚠️ Not graded" and "not a grade of your work" in second
    assert doc["extra_data"]["gradable"] is False


def test_a_rubric_given_to_the_zip_is_the_one_gradescope_grades_by(
    autograder: Path, tmp_path: Path
) -> None:
    text = (ROOT / "checks" / "rubric.toml").read_text("utf-8")
    text = text.replace('stdout_visibility = "hidden"', 'stdout_visibility = "after_due_date"')
    (tmp_path / "rubric.toml").write_text(text, "utf-8")
    archive = tmp_path / "autograder.zip"
    assert build_zip(archive, "--rubric", str(tmp_path / "rubric.toml")).returncode == 0
    with zipfile.ZipFile(archive) as zipped:
        (autograder / "source" / "rubric.toml").write_bytes(zipped.read("rubric.toml"))
    try:
        assert grade(autograder, REAL / "correct")["stdout_visibility"] == "after_due_date"
    finally:
        (autograder / "source" / "rubric.toml").unlink()
