"""Faults of the set-up (a full disk, a read-only folder, a missing one) end in one clear
sentence and exit 2, never a traceback, and leave what was written consistent."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cli.main import main
from grader.system import atomic
from tests.conftest import CORRECT, ROOT


def fail_writes(monkeypatch: pytest.MonkeyPatch, code: int, after: int = 0) -> None:
    """Make os.write fail with `code` once `after` bytes were written (a disk filling up)."""
    real = os.write
    budget = {"left": after}

    def write(fd: int, data: bytes) -> int:
        if budget["left"] <= 0:
            raise OSError(code, os.strerror(code))
        n = real(fd, bytes(data[: budget["left"]]))
        budget["left"] -= n
        return n

    monkeypatch.setattr(atomic.os, "write", write)


def stderr_of(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_output_into_a_missing_folder_is_one_sentence_and_exit_2(capsys, tmp_path) -> None:
    target = tmp_path / "nope" / "result.json"
    code = main(["check", str(CORRECT), "--format", "json", "--output", str(target)])
    err = stderr_of(capsys)
    assert code == 2 and f"can't write {target}: its folder does not exist." in err
    assert "internal error" not in err


def test_output_on_a_full_disk_keeps_the_old_file_and_no_temporary(
    capsys, tmp_path, monkeypatch
) -> None:
    target = tmp_path / "result.json"
    target.write_text("old", "utf-8")
    fail_writes(monkeypatch, errno.ENOSPC, after=100)
    code = main(["check", str(CORRECT), "--format", "json", "--output", str(target)])
    assert code == 2 and "the disk is full" in stderr_of(capsys)
    assert target.read_text("utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_output_on_a_read_only_file_system_is_exit_2(capsys, tmp_path, monkeypatch) -> None:
    real_open = os.open

    def read_only(path, flags, *args):  # type: ignore[no-untyped-def]
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(atomic.os, "open", read_only)
    code = main(["check", str(CORRECT), "--output", str(tmp_path / "r.txt")])
    assert code == 2 and "the file system is read-only" in stderr_of(capsys)


def test_the_sentence_is_in_the_users_language(capsys, tmp_path) -> None:
    target = tmp_path / "nope" / "r.json"
    main(["check", str(CORRECT), "--output", str(target), "--lang", "ja"])
    assert "書き込めません" in stderr_of(capsys)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_a_full_device_is_exit_2() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "grader", "check", str(CORRECT), "--format", "json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
    assert proc.returncode == 2, proc.stderr
    assert "the disk is full" in proc.stderr and "Traceback" not in proc.stderr


def test_a_result_written_before_a_fault_is_whole(tmp_path, monkeypatch) -> None:
    target = tmp_path / "r.json"
    assert main(["check", str(CORRECT), "--format", "json", "--output", str(target)]) == 0
    whole = target.read_bytes()
    fail_writes(monkeypatch, errno.ENOSPC, after=len(whole) // 2)
    with pytest.raises(OSError):
        atomic.write_atomic(str(target), whole + b" ")
    assert target.read_bytes() == whole and json.loads(whole)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_temporary_files_are_named_so_a_later_batch_finds_them(tmp_path: Path) -> None:
    seen = []
    real_replace = os.replace

    def spy(src, dst):  # type: ignore[no-untyped-def]
        seen.append(os.path.basename(src))
        return real_replace(src, dst)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atomic.os, "replace", spy)
        atomic.write_atomic(str(tmp_path / "x"), b"x")
    assert seen[0].startswith(".tmp-") and seen[0].endswith(".part")
