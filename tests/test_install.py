"""What a student gets from a normal install: the wheel the project builds, installed
(not editable) in a fresh environment, grades its bundled samples from anywhere.

The wheel is built as pip builds it for a user (an isolated build, so this needs the
package index CI installs from) and installed without its dependencies: the check path
must need none of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.installed import build_wheel, user_env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `grader` script of a fresh venv holding only the wheel."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env=user_env(),  # a checkout on PYTHONPATH would pass for the installed package
    )  # fmt: skip
    return env / "bin" / "grader"


def run(grader: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(grader), *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=user_env()
    )


def test_the_wheel_ships_every_package_of_the_checkout(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    packages = {
        str(init.parent.relative_to(ROOT))
        for top in ("grader", "checks", "schemas")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert {p for p in packages if f"{p}/__init__.py" not in names} == set()


def test_the_wheel_ships_the_real_samples_and_none_of_the_test_ones(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "checks/samples/correct/server.log" in names
    assert not [n for n in names if n.split("/")[2:3] in (["derived"], ["hostile"])]
    assert not [n for n in names if "fabricated" in n]


def test_an_installed_grader_grades_its_bundled_sample_with_full_marks(
    installed: Path, tmp_path: Path
) -> None:
    result = run(installed, tmp_path, "check", "--sample", "correct", "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["score"] == document["max_score"] > 0
    assert "site-packages" in document["submission"]


def test_an_installed_bundled_mistake_sample_fails_its_own_checks(
    installed: Path, tmp_path: Path
) -> None:
    result = run(installed, tmp_path, "check", "--sample", "no_close_on_cancel", "--format", "json")
    failed = {c["id"] for c in json.loads(result.stdout)["checks"] if c["status"] == "failed"}
    assert result.returncode == 1 and failed == {"cancel.slot_freed", "log.cancel_task"}


def test_an_unknown_sample_name_gets_did_you_mean_in_the_students_language(
    installed: Path, tmp_path: Path
) -> None:
    result = run(installed, tmp_path, "check", "--sample", "corect", "--lang", "ja")
    assert result.returncode == 2 and "correctのことですか" in result.stderr


def test_an_installed_grader_without_its_dependencies_explains_a_file_that_fails_its_schema(
    installed: Path, tmp_path: Path
) -> None:
    import shutil

    from tests.conftest import REAL

    shutil.copytree(REAL / "correct", tmp_path / "run")
    (tmp_path / "run" / "ttft.json").write_text('{"runs": "five"}', "utf-8")
    result = run(installed, tmp_path, "check", "run", "--format", "json")
    assert result.returncode == 1 and "internal error" not in result.stderr
    checks = {c["id"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["ttft.schema"]["status"] == "failed"
