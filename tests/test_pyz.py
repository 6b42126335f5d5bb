"""`grader pyz`: the grader as one file that a bare Python runs, for a pod where pip
refuses to install (PEP 668) and pipx is not there.

The file is run by `python3 -I -S`: isolated (no PYTHON* variables, no user site) and
without the `site` module, so no site-packages at all (jsonschema and pydantic, which
this machine has installed, are out of its reach: the first test proves it). It grades
the bundled sample, a real run that is no sample, and a run with a file that fails its
schema (the path that needed jsonschema), with the same verdict as the installed grader.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REAL, ROOT, max_score


@pytest.fixture(scope="module")
def pyz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pyz") / "grader.pyz"
    subprocess.run(
        [sys.executable, "-m", "grader", "pyz", "--out", str(out)],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


def bare(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """`python3 -I -S ARGS`: a Python that sees no site-packages."""
    return subprocess.run(
        [sys.executable, "-I", "-S", *args],
        cwd=cwd,
        env=os.environ | {"GRADER_PYZ_CACHE": str(cache)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def installed_result(folder: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(folder), "--format", "json"],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(proc.stdout)


def test_the_bare_python_sees_no_dependency_of_the_grader(tmp_path: Path) -> None:
    for module in ("jsonschema", "pydantic", "referencing"):
        proc = bare("-c", f"import {module}", cwd=tmp_path, cache=tmp_path / "c")
        assert "ModuleNotFoundError" in proc.stderr


def test_the_file_grades_the_bundled_correct_sample_with_full_marks(
    pyz: Path, tmp_path: Path
) -> None:
    proc = bare(str(pyz), "check", "--sample", "correct", "--format", "json",
                cwd=tmp_path, cache=tmp_path / "c")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["score"] == doc["max_score"] == max_score()


def test_the_file_grades_a_real_run_as_the_installed_grader_does(pyz: Path, tmp_path: Path) -> None:
    shutil.copytree(REAL / "no_close_on_cancel", tmp_path / "run")
    proc = bare(str(pyz), "check", "run", "--format", "json", cwd=tmp_path, cache=tmp_path / "c")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["checks"] == installed_result(tmp_path / "run")["checks"]


def test_a_file_that_fails_its_schema_is_explained_without_jsonschema(
    pyz: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(REAL / "correct", run)
    cancel = json.loads((run / "cancel.json").read_text("utf-8"))
    cancel["max_tokens"] = "256"
    cancel["typo_key"] = 1
    (run / "cancel.json").write_text(json.dumps(cancel, indent=2), "utf-8")
    proc = bare(str(pyz), "check", "run", "--format", "json", cwd=tmp_path, cache=tmp_path / "c")
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr
    doc = json.loads(proc.stdout)
    schema = next(c for c in doc["checks"] if c["id"] == "cancel.schema")
    assert schema["status"] == "failed" and "max_tokens" in schema["message"]
    assert doc["checks"] == installed_result(run)["checks"]
    assert doc["artifacts"] == installed_result(run)["artifacts"]


def test_the_file_unpacks_once_and_runs_from_its_copy(pyz: Path, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    bare(str(pyz), "--version", cwd=tmp_path, cache=cache)
    (stamp,) = [p.stat().st_mtime_ns for p in cache.parent.iterdir() if p.name == "c"]
    again = bare(str(pyz), "--version", cwd=tmp_path, cache=cache)
    assert again.returncode == 0 and "0.1.0" in again.stdout
    assert (cache / "grader" / "cli" / "main.py").is_file() and cache.stat().st_mtime_ns == stamp


def test_the_file_runs_as_a_command(pyz: Path, tmp_path: Path) -> None:
    assert pyz.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    assert os.access(pyz, os.X_OK)
