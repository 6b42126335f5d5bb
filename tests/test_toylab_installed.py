"""The toy lab installed through the `grader.labs` entry point, graded from the command line.

The toy package is copied into a fresh folder beside a `toylab-1.0.dist-info` whose
`entry_points.txt` registers it (what `pip install` of a lab's distribution leaves in
site-packages), and that folder is put on `PYTHONPATH` of the `grader` command: a real
entry-point lookup, as `importlib.metadata` sees it too, without building a wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

ENTRY_POINTS = "[grader.labs]\ntoy = toylab:LAB\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(
        ROOT / "tests" / "toylab", site / "toylab", ignore=shutil.ignore_patterns("__pycache__")
    )
    info = site / "toylab-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toylab\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (info / "RECORD").write_text("")
    return site


def grader(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The `grader` command, with the toy's folder on its path."""
    script = Path(sys.executable).with_name("grader")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "grader"]
    env = {**os.environ, "PYTHONPATH": str(site), "LC_ALL": "C.UTF-8", "NO_COLOR": "1"}
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_the_entry_point_is_a_real_one(site: Path, tmp_path: Path) -> None:
    code = (
        "import importlib.metadata as m; from grader.engine import labs; "
        "print(sorted((e.name, e.value) for e in m.entry_points(group='grader.labs'))); "
        "print(sorted((e.name, e.value) for e in labs.installed()))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    metadata, found = run.stdout.strip().splitlines()
    assert metadata == found == str([("first-token", "checks:LAB"), ("toy", "toylab:LAB")])


def test_the_toy_lab_grades_from_the_command_line(site: Path, tmp_path: Path) -> None:
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "answer.json").write_text('{"question": "6 x 7", "answer": 42, "seconds": 2}')
    listed = grader(site, tmp_path, "labs")
    assert listed.returncode == 0, listed.stderr
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["first-token", "toy"]
    checks = grader(site, tmp_path, "checks", "--lab", "toy")
    assert [line.split("\t")[0] for line in checks.stdout.splitlines()] == [
        "answer.schema",
        "answer.correct",
        "answer.quick",
    ]
    run = grader(site, tmp_path, "check", str(folder), "--lab", "toy", "--format", "json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["lab"], result["score"], result["max_score"]) == ("toy", 4.0, 4.0)
    wrong = grader(site, tmp_path, "check", str(folder), "--lab", "first-token")
    assert wrong.returncode == 2  # no file of the first-token lab there: nothing to grade


def test_with_two_labs_installed_the_command_must_be_told_which(site: Path, tmp_path: Path) -> None:
    run = grader(site, tmp_path, "check", str(SAMPLES / "correct"))
    assert run.returncode == 2 and "several labs are installed (first-token, toy)" in run.stderr
    first = grader(site, tmp_path, "check", str(SAMPLES / "correct"), "--lab", "first-token")
    assert first.returncode == 0, first.stderr


def test_a_batch_of_the_toy_and_its_report_from_the_results(site: Path, tmp_path: Path) -> None:
    for name, value in (("alice", 42), ("bob", 41)):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "answer.json").write_text(
            json.dumps({"question": "6 x 7", "answer": value, "seconds": 1})
        )
    out = tmp_path / "out"
    batch = grader(
        site,
        tmp_path,
        "batch",
        str(tmp_path / "class"),
        "--out",
        str(out),
        "--lab",
        "toy",
        "--jobs",
        "2",
        "--no-progress",
    )
    assert batch.returncode == 0, batch.stderr
    shutil.rmtree(tmp_path / "class")  # the report needs the results alone
    report = grader(site, tmp_path, "report", str(out))  # the results name their lab
    assert report.returncode == 0, report.stderr
    page = (out / "report.html").read_text("utf-8")
    assert '<section id="answers">' in page and "2 answers with their time." in page
