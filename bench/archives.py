#!/usr/bin/env python3
"""Time, peak memory and peak extra disk of `grader batch` on the hostile archives of
issue 10, for this checkout and (with --before DIR) another one, e.g. the commit before
the fix in a `git worktree`:

    git worktree add /tmp/before 3a9ee21
    python bench/archives.py --before /tmp/before

Each case runs `python -m grader batch ARCHIVE... --out OUT --jobs 1` in a fresh
process with the checkout as its working directory (so `-m grader` is that checkout's
grader); the peak RSS is that process's own (`os.wait4`), the disk is the file system's
used bytes, sampled every 50 ms, above what they were before the run. The archives are
made on the fly (`tests/bombs.py`) in a temporary folder and removed after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bombs import MIB, many_members_zip, zero_zip  # noqa: E402

CORRECT = ROOT / "sample_submissions" / "correct"


def _with_lab_files(path: Path, folder: str) -> Path:
    with zipfile.ZipFile(path, "a") as handle:
        for file in sorted(CORRECT.iterdir()):
            handle.write(file, f"{folder}/{file.name}")
    return path


def bomb_1gib(work: Path) -> list[Path]:
    """1 MB zip whose one member inflates to 1 GiB, beside a real submission's files."""
    return [_with_lab_files(zero_zip(work / "bomb.zip", [("alice/data.bin", 1024 * MIB)]), "alice")]


def three_512mib(work: Path) -> list[Path]:
    """Three zips of 512 MiB each: 128 students with a 4 MiB sse_raw.txt (under its cap),
    so it is all extracted: the point is how much is on disk at once."""
    paths = []
    for n in range(3):
        members = [(f"s{i:03d}/sse_raw.txt", 4 * MIB) for i in range(128)]
        paths.append(zero_zip(work / f"class{n}.zip", members))
    return paths


def tar_1gib(work: Path) -> list[Path]:
    """A .tar.gz whose one member is 1 GiB of zeros (read through twice: plan, extract)."""
    import io
    import tarfile

    class Zeros(io.RawIOBase):
        def __init__(self, size: int) -> None:
            self.left = size

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            n = min(len(buffer), self.left)
            buffer[:n] = bytes(n)
            self.left -= n
            return n

    path = work / "bomb.tar.gz"
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        info = tarfile.TarInfo("alice/data.bin")
        info.size = 1024 * MIB
        archive.addfile(info, io.BufferedReader(Zeros(info.size), 1 << 20))
        for file in sorted(CORRECT.iterdir()):
            archive.add(file, f"alice/{file.name}")
    return [path]


def three_512mib_other(work: Path) -> list[Path]:
    """Three 0.5 MB zips of 512 MiB each: a student's files beside one 512 MiB other file."""
    paths = []
    for n in range(3):
        bomb = zero_zip(work / f"class{n}.zip", [(f"s{n}/video.bin", 512 * MIB)])
        paths.append(_with_lab_files(bomb, f"s{n}"))
    return paths


def folders_20000(work: Path) -> list[Path]:
    """20,000 folders, each with one small file that is no lab file."""
    names = [f"student{i:05d}/notes.txt" for i in range(20_000)]
    return [many_members_zip(work / "folders.zip", names, b"x")]


def members_100000(work: Path) -> list[Path]:
    """One student's files and 99,988 other members."""
    names = [f"alice/node_modules/{i:06d}.js" for i in range(100_000 - 12)]
    return [_with_lab_files(many_members_zip(work / "many.zip", names, b"x"), "alice")]


CASES: dict[str, Callable[[Path], list[Path]]] = {
    "1 MB zip -> 1 GiB": bomb_1gib,
    "tar.gz -> 1 GiB": tar_1gib,
    "3 x 512 MiB of lab files": three_512mib,
    "3 x 512 MiB of other files": three_512mib_other,
    "20,000 folders": folders_20000,
    "100,000 members": members_100000,
}


def _used(path: Path) -> int:
    stat = os.statvfs(path)
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


def run_case(checkout: Path, archives: list[Path], out: Path) -> tuple[float, float, float, str]:
    """(seconds, peak RSS MiB, peak extra disk MiB, the one-line summary on stderr)."""
    base = _used(out.parent)
    peak = {"disk": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak["disk"] = max(peak["disk"], _used(out.parent) - base)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    cmd = [sys.executable, "-m", "grader", "batch", *map(str, archives), "--out", str(out)]
    cmd += ["--jobs", "1", "--no-progress"]
    start = time.monotonic()
    sampler.start()
    with open(out.parent / "stderr.txt", "w") as err:
        proc = subprocess.Popen(cmd, cwd=checkout, stdout=subprocess.DEVNULL, stderr=err)
        _, _, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    done.set()
    sampler.join()
    lines = (out.parent / "stderr.txt").read_text("utf-8", "replace").strip().splitlines()
    book = out / "gradebook.csv"
    rows = len(book.read_text("utf-8").splitlines()) - 1 if book.exists() else 0
    last = lines[-1] if lines else ""
    graded = last.split(" submissions, ")[1].split(",")[0] if " submissions, " in last else "?"
    return seconds, usage.ru_maxrss / 1024, peak["disk"] / MIB, f"{rows} rows, {graded}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    args = parser.parse_args()
    checkouts = [("after", ROOT)] + ([("before", args.before)] if args.before else [])
    print("| case | grader | time | peak RSS | peak extra disk | gradebook |")
    print("|---|---|---|---|---|---|")
    for name in args.case or list(CASES):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            archives = CASES[name](work)
            size = sum(p.stat().st_size for p in archives) / MIB
            for label, checkout in checkouts:
                run = work / label
                run.mkdir()
                seconds, rss, disk, summary = run_case(checkout, archives, run / "out")
                print(
                    f"| {name} ({size:.1f} MB) | {label} | {seconds:.1f} s | {rss:.0f} MiB "
                    f"| {disk:.0f} MiB | {summary} |",
                    flush=True,
                )
                shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    main()
