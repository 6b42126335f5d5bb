#!/usr/bin/env python3
"""Benchmark of the grader: prints a table and writes docs/benchmarks.md.

Measures, each as median and spread (interquartile range) over repeated runs, and as
ratios measured side by side in the same run (runs are interleaved, so drift on a
shared machine hits every contender alike):

1. cold `grader check` of a complete submission, whole process, against the same
   interpreter's `python -c pass` (the floor) and one `check-jsonschema` run validating
   the submission's ttft.json against our schema (the tool a user would reach for;
   `pip install check-jsonschema` to include it);
2. in-process time per submission and where it goes (load, check, result, render);
3. `grader batch` throughput with 1 and 2 jobs;
4. peak memory grading files just under the size caps, and refusing a 1 GB file;
5. how time grows with `sse_raw.txt` of 10^2, 10^4, 10^5 events.

Usage: python bench/run.py [--repeat N] [--batch N] [--quick] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "sample_submissions" / "correct"
PY = sys.executable


def spread(samples: list[float]) -> tuple[float, float]:
    """Median and interquartile range."""
    if len(samples) < 4:
        return statistics.median(samples), 0.0
    q = statistics.quantiles(samples, n=4)
    return statistics.median(samples), q[2] - q[0]


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# As a user's machine runs it: bytecode caches written and used (some sandboxes set
# PYTHONDONTWRITEBYTECODE, which makes every start compile every module from source).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_commands(commands: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    """Run every command `repeat` times, interleaved, after one warm-up each."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():
        subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV
        )
    for _ in range(repeat):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV
            )
            times[name].append(time.perf_counter() - start)
    return times


def cold_start(repeat: int) -> list[str]:
    commands = {
        "python -c pass": [PY, "-c", "pass"],
        "grader check (json)": [PY, "-m", "grader", "check", str(SAMPLE), "--format", "json"],
        "grader check (text)": [PY, "-m", "grader", "check", str(SAMPLE), "--color", "never"],
        "grader --version": [PY, "-m", "grader", "--version"],
    }
    peer = shutil.which("check-jsonschema") or str(Path(PY).parent / "check-jsonschema")
    if os.path.exists(peer):
        commands["check-jsonschema ttft.json"] = [
            peer,
            "--schemafile",
            str(ROOT / "schemas" / "ttft.schema.json"),
            str(SAMPLE / "ttft.json"),
        ]
    times = time_commands(commands, repeat)
    floor = statistics.median(times["python -c pass"])
    check = statistics.median(times["grader check (json)"])
    rows = ["| command | median | IQR | × python -c pass |", "|---|---|---|---|"]
    for name, samples in times.items():
        median, iqr = spread(samples)
        rows.append(f"| `{name}` | {fmt_ms(median)} | {fmt_ms(iqr)} | {median / floor:.2f} |")
    if "check-jsonschema ttft.json" in times:
        peer_median = statistics.median(times["check-jsonschema ttft.json"])
        rows.append("")
        rows.append(f"grader check / check-jsonschema (one file): **{check / peer_median:.2f}**")
    rows.append(f"grader check / python -c pass: **{check / floor:.2f}** (target ≤ 4)")
    return rows


def in_process(repeat: int) -> list[str]:
    from checks import LAB
    from grader.grade import _artifact_result, _check_result, catalog_for, grade, load_artifacts
    from grader.render import RenderOptions, renderer
    from grader.rubric import load_lab_rubric
    from grader.runner import run_checks

    rubric = load_lab_rubric(LAB, None, "checks")
    limits = rubric.make_limits()
    catalog = catalog_for(LAB, "en")
    render = renderer("json")
    grade(LAB, str(SAMPLE), rubric)  # warm caches (validators, catalogs)
    phases: dict[str, list[float]] = {
        "load + validate": [],
        "checks": [],
        "result": [],
        "render json": [],
        "total": [],
    }
    for _ in range(repeat):
        t0 = time.perf_counter()
        artifacts = load_artifacts(LAB, str(SAMPLE), {}, limits)
        t1 = time.perf_counter()
        outcomes = run_checks(LAB, artifacts, rubric.settings())
        t2 = time.perf_counter()
        [_check_result(o, catalog) for o in outcomes]
        [_artifact_result(a, catalog) for a in artifacts.values()]
        t3 = time.perf_counter()
        result = grade(LAB, str(SAMPLE), rubric)
        t4 = time.perf_counter()
        render(result, RenderOptions(catalog))
        t5 = time.perf_counter()
        phases["load + validate"].append(t1 - t0)
        phases["checks"].append(t2 - t1)
        phases["result"].append(t3 - t2)
        phases["render json"].append(t5 - t4)
        phases["total"].append((t3 - t0) + (t5 - t4))
    rows = ["| phase | median | IQR |", "|---|---|---|"]
    for name, samples in phases.items():
        median, iqr = spread(samples)
        rows.append(f"| {name} | {median * 1e3:.2f} ms | {iqr * 1e3:.2f} ms |")
    return rows


def batch(count: int) -> list[str]:
    rows = ["| jobs | submissions | wall time | submissions/s |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in"
        samples = [
            p for p in (ROOT / "sample_submissions").rglob("*") if (p / "ttft.json").exists()
        ]
        for index in range(count):
            shutil.copytree(samples[index % len(samples)], source / f"s{index:05d}")
        for jobs in (1, 2):
            out = Path(tmp) / f"out{jobs}"
            start = time.perf_counter()
            subprocess.run(
                [PY, "-m", "grader", "batch", str(source), "--out", str(out), "--jobs", str(jobs)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
                env=ENV,
            )
            elapsed = time.perf_counter() - start
            rows.append(f"| {jobs} | {count} | {elapsed:.1f} s | {count / elapsed:.0f} |")
    return rows


_MEMORY_PROBE = """
import resource, sys, time
sys.path.insert(0, {root!r})
from checks import LAB
from grader.grade import grade
from grader.rubric import load_lab_rubric
rubric = load_lab_rubric(LAB, None, "checks")
start = time.perf_counter()
grade(LAB, {folder!r}, rubric)
elapsed = time.perf_counter() - start
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent across exec
hwm = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")]
print(elapsed, hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def probe(folder: Path) -> tuple[float, int]:
    out = subprocess.run(
        [PY, "-c", _MEMORY_PROBE.format(root=str(ROOT), folder=str(folder))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), int(out[1])


def memory() -> list[str]:
    from checks import LAB

    L = LAB.default_limits()

    rows = ["| case | grading time | peak RSS |", "|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        shutil.copytree(SAMPLE, base)
        rows.append(
            "| real correct submission | {:.0f} ms | {:.0f} MB |".format(*_scaled(probe(base)))
        )
        near = Path(tmp) / "near"
        shutil.copytree(SAMPLE, near)
        chunk = (SAMPLE / "sse_raw.txt").read_text("utf-8").split("\n\n")[1] + "\n\n"
        events = min(L["sse_events"] - 10, (L.file_bytes - 4096) // len(chunk.encode()))
        text = (
            (SAMPLE / "sse_raw.txt").read_text("utf-8").split("\n\n")[0]
            + "\n\n"
            + chunk * events
            + "data: [DONE]\n"
        )
        (near / "sse_raw.txt").write_text(text, "utf-8")
        line = (SAMPLE / "server.log").read_text("utf-8").splitlines(True)
        log = "".join(line * (L["log_lines"] // len(line)))[: L["log_bytes"] - 1]
        (near / "server.log").write_text(log[: log.rfind("\n") + 1], "utf-8")
        (near / "sse.py").write_text("#" * (L["source_bytes"] - 1), "utf-8")
        rows.append(
            "| every big file just under its cap | {:.0f} ms | {:.0f} MB |".format(
                *_scaled(probe(near))
            )
        )
        huge = Path(tmp) / "huge"
        shutil.copytree(SAMPLE, huge)
        with open(huge / "server.log", "wb") as handle:
            handle.truncate(1 << 30)  # a sparse 1 GB file
        rows.append(
            "| server.log of 1 GB (refused) | {:.0f} ms | {:.0f} MB |".format(*_scaled(probe(huge)))
        )
    return rows


def _scaled(measured: tuple[float, int]) -> tuple[float, float]:
    seconds, rss_kb = measured
    return seconds * 1000, rss_kb / 1024


def growth(repeat: int) -> list[str]:
    from checks import LAB, SCHEMAS
    from checks.formats.chat_stream import chat_stream
    from grader.limits import Limits

    parse = chat_stream(SCHEMAS["sse_chunk"])
    limits = Limits(file_bytes=1 << 31, lab={**LAB.limits, "sse_events": 10**7})
    lines = (SAMPLE / "sse_raw.txt").read_text("utf-8").split("\n\n")
    rows = ["| events | bytes | parse + validate | per event |", "|---|---|---|---|"]
    for events in (100, 10_000, 100_000):
        text = lines[0] + "\n\n" + (lines[1] + "\n\n") * events + "data: [DONE]\n"
        samples = []
        for _ in range(max(1, repeat // (events // 100 or 1) if events > 100 else repeat)):
            start = time.perf_counter()
            parse(text, "sse_raw.txt", limits)
            samples.append(time.perf_counter() - start)
        median, _ = spread(samples)
        per_event = median / events * 1e6
        rows.append(f"| {events:,} | {len(text):,} | {median * 1e3:.1f} ms | {per_event:.1f} µs |")
    return rows


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.machine()}"
    return f"{system}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument(
        "--batch", type=int, default=10_000, help="submissions for the batch figure"
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats, small batch")
    parser.add_argument(
        "--no-write", action="store_true", help="print only; don't write docs/benchmarks.md"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.batch = 5, 200
    sections: list[tuple[str, Callable[[], list[str]]]] = [
        ("1. Cold start, whole process", lambda: cold_start(args.repeat)),
        ("2. In-process, per submission", lambda: in_process(args.repeat * 3)),
        ("3. Batch throughput", lambda: batch(args.batch)),
        ("4. Memory and refusal", memory),
        ("5. Growth with sse_raw.txt size", lambda: growth(args.repeat)),
    ]
    out = [
        "# Benchmarks",
        "",
        f"Machine: {machine()}.",
        f"Command: `python bench/run.py --repeat {args.repeat} --batch {args.batch}`.",
        "",
    ]
    for title, run in sections:
        print(f"## {title}", flush=True)
        rows = run()
        print("\n".join(rows), "\n", flush=True)
        out += [f"## {title}", "", *rows, ""]
    if not args.no_write:
        (ROOT / "docs" / "benchmarks.md").write_text("\n".join(out), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
