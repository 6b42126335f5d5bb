"""Shared fixtures: the bundled samples and a one-call way to grade a folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.grade import grade
from grader.engine.result import Result
from grader.engine.rubric import Rubric, load_lab_rubric

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_submissions"
REAL = ROOT / "tests" / "data" / "real"
"""The real llama-server captures of ../shared/fixtures/real, byte for byte, with their
EXPECTED.json. Unlike the published samples they are not in the sample registry, so a
copy of one stands for a student's own honest run."""
CORRECT = REAL / "correct"
TESTS_OWN_RUNS = sorted(
    folder
    for base in ("real", "honest", "unpublished", "eras/real_runs")
    for folder in (ROOT / "tests" / "data" / base).iterdir()
    if (folder / "server.log").is_file()
)
"""The tests' own real captures (`tests/data/real`, `honest`, `unpublished`, the era runs): the
project publishes them, so the run registry knows them (`checks/runs.json`), but here a
copy of one stands for a student's own honest run."""


def _registry_without_tests_own_runs() -> str:
    """A copy of the run registry without the runs of `TESTS_OWN_RUNS`, in a temporary
    file the whole session (and every grader it starts) grades with
    (`checks.runs.OVERRIDE`); `full_run_registry` restores the shipped one for a test."""
    import os
    import tempfile

    from checks.runs import OVERRIDE, preload, without_runs_of

    runs = without_runs_of(TESTS_OWN_RUNS)
    handle, path = tempfile.mkstemp(prefix="runs-without-tests-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump({"runs": runs}, out)
    os.environ[OVERRIDE] = path
    preload()
    return path


SHIPPED_RUNS = __import__("checks.runs", fromlist=["registry_file"]).registry_file()
TEST_RUNS = _registry_without_tests_own_runs()


@pytest.fixture
def full_run_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grade with the shipped run registry, which knows the tests' own real captures."""
    from checks.runs import OVERRIDE

    monkeypatch.delenv(OVERRIDE)


EXPECTED: dict[str, dict[str, object]] = json.loads((SAMPLES / "EXPECTED.json").read_text("utf-8"))
REAL_EXPECTED: dict[str, dict[str, object]] = json.loads(
    (REAL / "EXPECTED.json").read_text("utf-8")
)


def assert_generated_current(script: str) -> None:
    """`scripts/<script> --check` finds every file it generates current."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"run scripts/{script}:\n" + done.stdout


def max_score() -> float:
    """The lab rubric's full marks."""
    rubric = load_lab_rubric(LAB, None, "checks")
    return sum(float(entry["points"]) for entry in rubric.settings().values())


@cache
def graded(name: str) -> Result:
    """The result of a bundled sample with the lab's rubric, graded once per test run."""
    return grade(LAB, str(SAMPLES / name), load_lab_rubric(LAB, None, "checks"))


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return load_lab_rubric(LAB, None, "checks")


@pytest.fixture
def grade_folder(rubric: Rubric) -> Callable[..., Result]:
    def run(folder: Path | str, **kwargs: object) -> Result:
        return grade(LAB, str(folder), rubric, **kwargs)  # type: ignore[arg-type]

    return run


@pytest.fixture
def submission(tmp_path: Path) -> Path:
    """A private copy of the correct real capture, free to break."""
    target = tmp_path / "submission"
    shutil.copytree(CORRECT, target)
    return target


def statuses(result: Result) -> dict[str, str]:
    return {c.id: c.status for c in result.checks}


def check_of(result: Result, check_id: str):
    return next(c for c in result.checks if c.id == check_id)


def assert_verdict(result: Result, expected: dict[str, object]) -> None:
    """The rule of ../shared/tools/verdicts.py: full marks, or exactly the named failures.

    `must_fail` ids ("a|b": either) must fail; every check outside must_fail and
    may_fail must pass.
    """
    status = statuses(result)
    if expected.get("full_marks"):
        assert [i for i, s in status.items() if s != "passed"] == []
        assert result.score == result.max_score
        return
    must = [str(group).split("|") for group in expected["must_fail"]]  # type: ignore[attr-defined]
    allowed = {i for group in must for i in group} | set(expected.get("may_fail", []))  # type: ignore[call-overload]
    for group in must:
        assert any(status.get(i) == "failed" for i in group), f"{group} should fail: {status}"
    assert {i: s for i, s in status.items() if s != "passed" and i not in allowed} == {}


def hand_in_zips(room: Path, submission: Path) -> None:
    """Two archives a class hands in: `bob.zip`, `submission` with a member that is no
    lab file and a symbolic link (named, never created), and `broken.zip`, which is none."""
    with zipfile.ZipFile(room / "bob.zip", "w") as archive:
        for path in sorted(submission.iterdir()):
            archive.write(path, f"bob/{path.name}")
        archive.writestr("bob/notes.txt", "mine")
        link = zipfile.ZipInfo("bob/link")
        link.external_attr = 0o120777 << 16  # a symbolic link: named, never created
        archive.writestr(link, "/etc/passwd")
    (room / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
