"""A normal (non-editable) install of the checkout, as a user makes one: the wheel pip
builds from the project, installed with the real pip, dependencies and all, into a fresh
virtual environment. For the tests that run the installed `grader` as its users do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from tests.conftest import ROOT

BUILD_LEFTOVERS = ("firsttoken_grader.egg-info", "build")
"""What setuptools leaves in the checkout when it builds there: an `*.egg-info` on the
working directory's path is an installed distribution to `grader.engine.labs`, so the grader
run from the checkout afterwards would read its entry points (and the cold-import test
would see it)."""


def build_wheel(out: Path) -> Path:
    """The project's wheel, built by pip as a user builds it; the checkout left as it was."""
    before = {name for name in BUILD_LEFTOVERS if (ROOT / name).exists()}
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
            check=True,
            capture_output=True,
            timeout=300,
        )
    finally:
        for name in set(BUILD_LEFTOVERS) - before:
            shutil.rmtree(ROOT / name, ignore_errors=True)
    return next(out.glob("*.whl"))


def install(wheel: Path, env: Path) -> Path:
    """A fresh venv at `env` with `wheel` and its dependencies installed by its own pip;
    its `bin` folder."""
    venv.create(env, with_pip=True)
    subprocess.run(
        [str(env / "bin" / "python"), "-m", "pip", "install", "-q", "--no-cache-dir",
         "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
        env=user_env(),  # a checkout on PYTHONPATH would pass for the installed grader
    )  # fmt: skip
    return env / "bin"


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH pointing at the checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return env | extra
