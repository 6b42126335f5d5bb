"""Signals (issue 26): SIGTERM ends a batch as Ctrl-C does, with its sentence, no
temporary file left and the status 143; a second signal during the clean-up never
hangs the batch."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.system.atomic import TEMPORARY_PREFIX
from grader.system.exits import EXIT_INTERRUPTED, EXIT_TERMINATED
from tests.conftest import CORRECT, ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def start_batch(tmp_path: Path, students: int = 60) -> tuple[subprocess.Popen[str], Path]:
    root = tmp_path / "class"
    for number in range(students):
        shutil.copytree(CORRECT, root / f"s{number:03}")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    cmd = [sys.executable, "-m", "grader", "batch", str(root), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--jobs", "2", "--no-progress", "--lang", "en"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until it grades: some results are written
        results = out / "results"
        if results.is_dir() and sum(1 for _ in results.glob("*.json")) >= 2:
            break
        if proc.poll() is not None:
            pytest.fail(f"the batch ended before the signal: {proc.communicate()}")
        time.sleep(0.02)
    return proc, out


def leftovers(out: Path) -> list[str]:
    return [p.name for p in out.rglob(f"{TEMPORARY_PREFIX}*")] + [
        p.name for p in out.glob(".extracted-*")
    ]


def test_sigterm_ends_a_batch_as_ctrl_c_does(tmp_path: Path) -> None:
    proc, out = start_batch(tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_TERMINATED == 143
    assert "interrupted; the results written so far are kept" in err
    assert "Traceback" not in err
    assert leftovers(out) == []
    assert not (out / ".lock").exists()


def test_a_second_signal_during_the_clean_up_never_hangs(tmp_path: Path) -> None:
    for _ in range(3):
        proc, out = start_batch(tmp_path / str(_), students=40)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        proc.communicate(timeout=30)
        assert time.monotonic() - started < 30
        assert proc.returncode == EXIT_INTERRUPTED  # the first signal's status
        assert not (out / "gradebook.csv").exists()  # only a finished batch writes one
    # whatever a killed worker left, the next batch removes, and goes on from the results
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    root, out = tmp_path / "0" / "class", tmp_path / "0" / "out"
    cmd = [sys.executable, "-m", "grader", "batch", str(root), "--out", str(out), "--resume"]
    done = subprocess.run([*cmd, "--no-progress"], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0 and leftovers(out) == []


def test_a_signal_the_command_was_started_ignoring_stays_ignored() -> None:
    """A shell's background job (or `nohup`) starts with SIGINT ignored: the grader
    keeps it so, and handles SIGTERM as ever."""
    code = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "from grader.system.lifeline import handle_signals\n"
        "handle_signals()\n"
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN,"
        " callable(signal.getsignal(signal.SIGTERM)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["True", "True"], out.stderr
