"""A batch's faults: one batch per --out, a full disk or a read-only --out stops it with
one sentence and exit 2 (what it wrote stays consistent, --resume goes on), a killed
batch leaves no workers, and its temporary files go at the next start."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.batch import outdir
from grader.batch.outdir import claim
from grader.cli.batch import main
from grader.system import atomic
from tests.conftest import CORRECT, ROOT, max_score

MAX = max_score()


def batch(*args: str) -> int:
    return main([*args, "--jobs", "1", "--no-progress"])


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    root = tmp_path / "class"
    for name in ("ann", "ben", "cat", "dan", "eve"):
        shutil.copytree(CORRECT, root / name)
    return root


def one_sentence(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_a_second_batch_into_the_same_out_refuses(classroom: Path, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with claim(str(out)):
        assert batch(str(classroom), "--out", str(out)) == 2
    err = one_sentence(capsys)
    assert f"(process {os.getpid()}) is writing into {out}" in err
    assert not (out / "results").exists()
    assert batch(str(classroom), "--out", str(out)) == 0  # released: the next one runs


def test_a_lock_dies_with_its_holder(classroom: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code = "import sys, time; from grader.batch.outdir import claim; c = claim(sys.argv[1]); "
    code += "c.__enter__(); print('held', flush=True); time.sleep(60)"
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert batch(str(classroom), "--out", str(out)) == 2
    holder.kill()  # kill -9: no Python code of the holder runs
    holder.wait()
    assert batch(str(classroom), "--out", str(out)) == 0


def fill_disk_after(monkeypatch: pytest.MonkeyPatch, files: int) -> None:
    """ENOSPC from os.write (inside write_atomic) once `files` files were written."""
    real_write, real_atomic = os.write, atomic.write_atomic
    state = {"written": 0}

    def write(fd: int, data: bytes) -> int:
        if state["written"] >= files:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def write_atomic(path: str, data: bytes) -> None:
        real_atomic(path, data)
        state["written"] += 1

    monkeypatch.setattr(atomic.os, "write", write)
    monkeypatch.setattr("grader.system.faults.write_atomic", write_atomic)


def test_a_full_disk_stops_the_batch_and_resume_finishes_it(
    classroom: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        fill_disk_after(patch, files=2)
        assert batch(str(classroom), "--out", str(out)) == 2
    err = one_sentence(capsys)
    assert "the disk is full" in err and "The 2 result files in results/ are complete" in err
    results = sorted((out / "results").iterdir())
    assert [p.name for p in results] == ["ann.json", "ben.json"]  # whole, no .tmp parts
    assert all(json.loads(p.read_text("utf-8"))["score"] == MAX for p in results)
    assert not (out / "gradebook.csv").exists() and not (out / "summary.json").exists()
    assert not [p for p in out.rglob(".*") if p.name != ".lock"] and not (out / ".lock").exists()
    stamps = {p.name: p.stat().st_mtime_ns for p in results}
    assert batch(str(classroom), "--out", str(out), "--resume") == 0
    assert {p.name: p.stat().st_mtime_ns for p in sorted((out / "results").iterdir())[:2]} == stamps
    assert len(list((out / "results").iterdir())) == 5 and (out / "gradebook.csv").is_file()


def test_a_read_only_out_is_one_sentence_before_any_grading(
    classroom: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    real = os.open

    def read_only(path, flags, *args):  # type: ignore[no-untyped-def]
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real(path, flags, *args)

    monkeypatch.setattr(outdir.os, "open", read_only)
    assert batch(str(classroom), "--out", str(out)) == 2
    err = one_sentence(capsys)
    assert f"can't write {out / '.lock'}: the file system is read-only." in err
    assert list(out.iterdir()) == []


def _tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        return False
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    return proc.returncode == 0


def test_a_real_full_disk_when_a_small_tmpfs_can_be_mounted(
    classroom: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "small"
    if not _tmpfs(out, "48k"):
        pytest.skip("can't mount a small tmpfs here (needs root and mount)")
    try:
        code = batch(str(classroom), "--out", str(out))
        err = one_sentence(capsys)
        assert code == 2 and "the disk is full" in err, err
        for path in (out / "results").iterdir():
            json.loads(path.read_text("utf-8"))  # every result there is whole
        assert not list((out / "results").glob(".tmp-*"))
    finally:
        subprocess.run(["umount", str(out)], check=False)


def test_leftovers_of_a_killed_batch_are_removed_at_the_next_start(
    classroom: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    (out / ".extracted-k1ll3d" / "0").mkdir(parents=True)
    (out / ".extracted-k1ll3d" / "0" / "sse_raw.txt").write_text("x")
    (out / "results").mkdir()
    (out / "results" / ".tmp-0123456789abcdef.part").write_text("{half")
    (out / ".tmp-fedcba9876543210.part").write_text("half")
    (out / "notes.txt").write_text("mine")  # not ours: kept
    assert batch(str(classroom), "--out", str(out)) == 0
    assert "removed 3 temporary files left by a batch that was killed" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [
        "gradebook.csv", "notes.txt", "results", "summary.json",
    ]  # fmt: skip


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text() if (task / "children").exists() else ""
        found.update(int(p) for p in text.split())
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(
    not any(Path("/proc/self/task").glob("*/children")),
    reason="needs Linux /proc/<pid>/task/<tid>/children",
)
def test_workers_die_with_a_killed_batch(classroom: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = (
        "import sys, multiprocessing as mp; from grader.batch.run import run; "
        "run([sys.argv[1]], sys.argv[2], jobs=2, lab_ref='tests.slow_lab:LAB', "
        "rubric_path=sys.argv[3], mp_context=mp.get_context(sys.argv[4]))"
    )
    rubric = str(ROOT / "checks" / "rubric.toml")
    for method in ("fork", "spawn"):
        parent = subprocess.Popen(
            [sys.executable, "-c", code, str(classroom), str(out / method), rubric, method],
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
        )
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = {p for p in _children(parent.pid) if _alive(p)}
        assert len(workers) >= 2, f"{method}: the batch never started its workers"
        time.sleep(1.0)  # they are grading now (the slow check sleeps)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), f"{method}: workers outlived the batch"


@pytest.mark.parametrize("how", ["prctl", "watchdog"])
def test_a_worker_tied_to_its_parent_dies_with_it(how: str) -> None:
    """Both ways of grader.system.lifeline: the kernel's death signal, and the watchdog thread
    used where prctl is not available."""
    child = (
        "import sys, time; from grader.system import lifeline; "
        f"lifeline._prctl_deathsig = (lambda: False) if {how == 'watchdog'!r} else "
        "lifeline._prctl_deathsig; "
        "print(lifeline.die_with_parent(), flush=True); time.sleep(60)"
    )
    parent = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', sys.argv[1]], "
        "stdout=subprocess.PIPE, text=True); "
        "print(p.pid, p.stdout.readline().strip(), flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", parent, child],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    pid, got = proc.stdout.readline().split()
    assert got == how
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while _alive(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(int(pid))
