#!/usr/bin/env python3
"""Benchmark of the grader as a user installs it; prints a table and writes
docs/benchmarks.md.

The grader measured is installed in a fresh virtual environment the way a user installs
it: `pip install .` of a copy of this checkout (non-editable: an editable install's
import hook makes even `python -c pass` slower, which would inflate the floor), with
pip's own bytecode compilation, beside `check-jsonschema`, the tool a user would
otherwise reach for. Every measurement runs that venv's interpreter from a scratch
folder, so nothing of the checkout is importable. `--venv DIR` keeps the venv in DIR
(built there if DIR does not exist; `--reinstall` installs this checkout into it again).

Each figure is a ratio of two things measured side by side: the contenders run
interleaved, round after round, and the ratio is taken per round, so a machine that
other work slows down slows both; the table gives the median and the interquartile range
(IQR) over the rounds.

1. Cold start: `grader check DIR --format json` (and text) of a real, honest submission
   against the same venv's `python -c pass`; and against `check-jsonschema` validating the
   same 138 JSON instances of that submission: its 8 JSON documents, the 64 lines of
   chunks.jsonl and the 66 `data:` events of sse_raw.txt (67 less the final `[DONE]`);
   sse.py and server.log are not JSON. check-jsonschema takes one schema per run, so that
   is 10 runs (the sse_chunk schema with the timings schema it references bundled in its
   `$defs`: check-jsonschema cannot resolve our `urn:` ids).
2. In-process, warm, per submission: where the time goes; and schema validation of the
   same 138 instances, the grader's against jsonschema's validator.
3. `grader batch` of a class of distinct, honest submissions (`bench/honest_class.py`:
   every file of every student differs in bytes, every student gets its real base's
   verdict), with `--jobs 1` and `--jobs 2`.
4. Time and peak memory of one grade with files just under their caps (the lab's:
   `checks/rubric.toml [limits]` over the lab's declared defaults), the same with every
   timing block of the log its own, and refusing a 1 GB log.
5. Growth with input size: sse_raw.txt events and server.log lines.
6. `grader batch` of classes with copy groups (`bench/honest_class.py` `copy_group`):
   N byte-distinct copies of one run rescaled 1.2 % apart, the same not rescaled, and a
   class of 5 N: the N copies and 4 N generated students: time, peak memory, summary.json and
   gradebook.csv (all linear in the class: one group, each student named once).

Usage: python bench/run.py [--venv DIR [--reinstall]] [--rounds N] [--batch N] [--quick]
                           [--copies N] [--only SECTION...] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "bench" / "probe.py"
SUBMISSION = ROOT / "tests" / "data" / "real" / "correct"
"""A real, honest capture (no published sample): graded in full, full marks."""
ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONSTARTUP", "VIRTUAL_ENV")
}
"""As a user's shell runs it: bytecode caches used, nothing of ours on the path."""
GRADE_TIMEOUT = 120.0
"""A near-cap grade that takes longer is stopped and reported as such."""
NEAR_CAP_RUNS = 5
"""Cold grades of each near-cap case, each in a fresh process: the median is reported (on
this shared machine one run varied by a third)."""


# -- statistics ------------------------------------------------------------------------


def spread(samples: Sequence[float]) -> tuple[float, float]:
    """Median and interquartile range."""
    if len(samples) < 4:
        return statistics.median(samples), 0.0
    q = statistics.quantiles(samples, n=4)
    return statistics.median(samples), q[2] - q[0]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def ratio_cell(samples: Sequence[float]) -> str:
    median, iqr = spread(samples)
    return f"**{median:.2f}×** (IQR {iqr:.2f})"


# -- the venv --------------------------------------------------------------------------


class Venv:
    """A virtual environment with the grader installed from a copy of this checkout."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.python = str(folder / "bin" / "python")
        self.grader = str(folder / "bin" / "grader")
        self.peer = str(folder / "bin" / "check-jsonschema")

    @classmethod
    def build(cls, folder: Path, reinstall: bool = False) -> Venv:
        venv = cls(folder)
        fresh = not folder.exists()
        if fresh:
            base = getattr(sys, "_base_executable", sys.executable)
            subprocess.run([base, "-m", "venv", str(folder)], check=True)
        if fresh or reinstall:
            pip = [venv.python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            with tempfile.TemporaryDirectory(prefix="grader-src-") as tmp:
                source = copy_checkout(Path(tmp) / "src")
                again = [] if fresh else ["--force-reinstall", "--no-deps"]
                subprocess.run([*pip, *again, str(source)], check=True, env=ENV, cwd=tmp)
        if not Path(venv.peer).exists():  # a venv kept from elsewhere may lack it
            pip = [venv.python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run([*pip, "check-jsonschema"], check=True, env=ENV)
        return venv

    def describe(self) -> str:
        out = subprocess.run(
            [self.python, "-m", "pip", "--version"], capture_output=True, text=True, env=ENV
        ).stdout.split()
        pip = out[1] if len(out) > 1 else "?"
        direct = list(self.folder.glob("lib/python*/site-packages/firsttoken_grader-*.dist-info"))
        editable = any(
            '"editable": true' in (d / "direct_url.json").read_text("utf-8")
            for d in direct
            if (d / "direct_url.json").exists()
        )
        kind = "editable (!)" if editable else "non-editable"
        return f"a fresh venv, `pip install .` ({kind}, pip {pip} compiling bytecode)"

    def run(self, args: Sequence[str], cwd: str, timeout: float | None = None) -> Any:
        """A probe's JSON answer (`bench/probe.py`); None when it ran past `timeout`."""
        try:
            out = subprocess.run(
                [self.python, str(PROBE), *args],
                capture_output=True,
                text=True,
                check=True,
                env=ENV,
                cwd=cwd,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return None
        return json.loads(out.stdout)


def copy_checkout(target: Path) -> Path:
    """The checkout's files (tracked and new, as git sees them; no venvs, no builds)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


# -- 1. cold start ---------------------------------------------------------------------


def interleaved(
    commands: dict[str, list[list[str]]], rounds: int, cwd: str
) -> dict[str, list[float]]:
    """Each entry is run once per round (its commands one after the other, timed
    together), after one warm-up round; returns the seconds of each round."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_number in range(rounds + 1):
        for name, group in commands.items():
            start = time.perf_counter()
            for command in group:
                subprocess.run(
                    command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=cwd
                )
            if round_number:
                times[name].append(time.perf_counter() - start)
    return times


def peer_commands(venv: Venv, work: Path) -> list[list[str]]:
    """check-jsonschema on the submission's 138 instances: one run per schema."""
    sys.path.insert(0, str(ROOT / "bench"))
    from probe import instances

    by_schema: dict[str, list[str]] = {}
    for number, (schema, value) in enumerate(instances(SUBMISSION)):
        path = work / "instances" / f"{number:03d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, ensure_ascii=False), "utf-8")
        by_schema.setdefault(schema, []).append(str(path))
    schemas = {p.name.removesuffix(".schema.json"): p for p in (ROOT / "schemas").glob("*.json")}
    commands = []
    by_id = {json.loads(p.read_text("utf-8"))["$id"]: p for p in schemas.values()}
    for schema, files in by_schema.items():
        data = _bundled(json.loads(schemas[schema].read_text("utf-8")), by_id)
        path = work / "schemas" / f"{schema}.schema.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), "utf-8")
        commands.append([venv.peer, "--schemafile", str(path), *files])
    return commands


def _bundled(schema: dict[str, Any], by_id: dict[str, Path]) -> dict[str, Any]:
    """`schema` with every schema it references by `$id` copied into its `$defs`."""
    text = json.dumps(schema)
    defs = dict(schema.get("$defs", {}))
    for sid, path in by_id.items():
        if f'"$ref": "{sid}"' in text:
            other = json.loads(path.read_text("utf-8"))
            other.pop("$id", None), other.pop("$schema", None)
            name = sid.rsplit(":", 1)[-1]
            defs[name] = other
            text = text.replace(f'"$ref": "{sid}"', f'"$ref": "#/$defs/{name}"')
    bundled = json.loads(text)
    if defs:
        bundled["$defs"] = defs
    return bundled


def cold_start(venv: Venv, rounds: int, work: Path) -> list[str]:
    submission = work / "submission"
    shutil.copytree(SUBMISSION, submission)
    peer = peer_commands(venv, work)
    for command in peer:  # the peer must agree that every instance is valid
        subprocess.run(command, check=True, capture_output=True, env=ENV, cwd=work)
    check = [venv.grader, "check", str(submission)]
    commands = {
        "python -c pass": [[venv.python, "-c", "pass"]],
        "grader check DIR --format json": [[*check, "--format", "json"]],
        "grader check DIR (text)": [[*check, "--color", "never"]],
        "grader --version": [[venv.grader, "--version"]],
        f"check-jsonschema, {len(peer)} runs, 138 instances": peer,
    }
    times = interleaved(commands, rounds, str(work))
    floor = times["python -c pass"]
    graded = times["grader check DIR --format json"]
    peer_times = times[f"check-jsonschema, {len(peer)} runs, 138 instances"]
    rows = ["| command | median | IQR | ÷ `python -c pass` (per round) |", "|---|---|---|---|"]
    for name, samples in times.items():
        median, iqr = spread(samples)
        per_round = [s / f for s, f in zip(samples, floor, strict=True)]
        rows.append(f"| `{name}` | {ms(median)} | {ms(iqr)} | {ratio_cell(per_round)} |")
    rows += [
        "",
        "- cold `grader check --format json` ÷ `python -c pass`: "
        + ratio_cell([c / f for c, f in zip(graded, floor, strict=True)])
        + " (budget ≤ 6, issue 27)",
        "- cold `grader check --format json` ÷ check-jsonschema on the same 138 instances: "
        + ratio_cell([c / p for c, p in zip(graded, peer_times, strict=True)]),
        "",
        "The 138 JSON instances of the submission (`bench/probe.py instances`): its 8 JSON "
        "documents, the 64 lines of chunks.jsonl and the 66 `data:` events of sse_raw.txt "
        "(67 less the final `[DONE]`); sse.py and server.log are not JSON. check-jsonschema "
        f"takes one schema per run: {len(peer)} runs, one per schema.",
    ]
    return rows


# -- 2. in process ---------------------------------------------------------------------


def in_process(venv: Venv, repeat: int, work: Path) -> list[str]:
    phases = venv.run(["phases", str(SUBMISSION), str(repeat)], str(work))
    rows = ["| phase (warm, one submission) | median | IQR |", "|---|---|---|"]
    for name, samples in phases.items():
        median, iqr = spread(samples)
        rows.append(f"| {name} | {median * 1e3:.2f} ms | {iqr * 1e3:.2f} ms |")
    check = venv.run(["validation", str(SUBMISSION), str(repeat)], str(work))
    ours, theirs = check["grader"], check["jsonschema"]
    rows += [
        "",
        f"Schema validation of the same {check['instances']} instances, warm: the grader "
        f"{spread(ours)[0] * 1e3:.3f} ms, jsonschema's `is_valid` {spread(theirs)[0] * 1e3:.3f} ms;"
        f" grader ÷ jsonschema {ratio_cell([a / b for a, b in zip(ours, theirs, strict=True)])}.",
    ]
    return rows


# -- 3. batch --------------------------------------------------------------------------


def batch(venv: Venv, count: int, rounds: int, work: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from bench.honest_class import make_class, registry_without_bases
    from checks.runs import OVERRIDE

    ENV[OVERRIDE] = registry_without_bases()  # every check runs: the bases are unknown
    klass = work / "class"
    made = make_class(klass, count)
    rows = ["| jobs | submissions | wall time (median) | submissions/s (median, IQR) |",
            "|---|---|---|---|"]  # fmt: skip
    seconds: dict[int, list[float]] = {1: [], 2: []}
    summary: dict[str, Any] = {}
    for round_number in range(rounds):
        for jobs in (1, 2):
            out = work / f"out-{jobs}-{round_number}"
            start = time.perf_counter()
            done = subprocess.run(
                [venv.grader, "batch", str(klass), "--out", str(out), "--jobs", str(jobs),
                 "--no-progress"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=ENV,
                cwd=work,
            )  # fmt: skip
            seconds[jobs].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"grader batch failed ({done.returncode}): {done.stderr}")
            summary = json.loads((out / "summary.json").read_text("utf-8"))
            shutil.rmtree(out)
    for jobs, samples in seconds.items():
        rates = [len(made) / s for s in samples]
        median, iqr = spread(rates)
        rows.append(f"| {jobs} | {len(made)} | {statistics.median(samples):.2f} s | "
                    f"{median:.0f} (IQR {iqr:.0f}) |")  # fmt: skip
    speedup = [one / two for one, two in zip(seconds[1], seconds[2], strict=True)]
    scores = summary.get("score", {})
    integrity = summary.get("integrity", {})
    groups = integrity.get("groups", [])
    rows += [
        "",
        f"- `--jobs 2` ÷ `--jobs 1` throughput: {ratio_cell(speedup)}",
        f"- the class: {summary.get('graded')} graded, scores {scores.get('min')}–"
        f"{scores.get('max')} (each its real base's), "
        f"{len(integrity.get('flags', {}))} students flagged, "
        f"{len(groups)} groups of one run (each base's students: "
        f"{sorted(len(g['members']) for g in groups)}; near-identical timings link from "
        f"{integrity.get('near_timings_needed')} of 22 within 0.5%, what chance gives this "
        "class)",
    ]
    return rows


def copies(venv: Venv, count: int, work: Path) -> list[str]:
    """`grader batch` of classes with copy groups: `count` byte-distinct copies of one
    run, rescaled 1.2 % apart, then the same count not rescaled (every time kept: the
    quadratic case of a pairwise comparison), then a class of 5 x `count`: the copies
    (`bench.honest_class.copy_group`) and 4 x `count` students of `make_class`: time,
    peak memory of the batch, and the size of summary.json and gradebook.csv."""
    sys.path.insert(0, str(ROOT))
    import resource

    from bench.honest_class import copy_group, make_class, registry_without_bases
    from checks.runs import OVERRIDE

    ENV[OVERRIDE] = registry_without_bases()
    classes = {
        f"{count} copies, rescaled": lambda d: copy_group(d, count),
        f"{count} copies, times kept": lambda d: copy_group(d, count, rescaled=False),
        f"{5 * count}: {count} copies + {4 * count} generated": lambda d: (
            copy_group(d, count) + make_class(d, 4 * count)
        ),
    }
    rows = ["| class | wall time | per student | peak memory | summary.json | gradebook.csv "
            "| groups (largest) |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for label, make in classes.items():
        klass = work / "copies"
        shutil.rmtree(klass, ignore_errors=True)
        made = make(klass)
        out = work / "copies-out"
        shutil.rmtree(out, ignore_errors=True)
        start = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        done = subprocess.run(
            [venv.grader, "batch", str(klass), "--out", str(out), "--jobs", "1",
             "--no-progress"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV, cwd=work,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if done.returncode != 0:
            raise SystemExit(f"grader batch failed ({done.returncode}): {done.stderr}")
        summary = json.loads((out / "summary.json").read_text("utf-8"))
        groups = summary["integrity"]["groups"]
        largest = max((len(g["members"]) for g in groups), default=0)
        rows.append(
            f"| {label} | {seconds:.1f} s | {1000 * seconds / len(made):.1f} ms | "
            f"{'≥ ' if peak == before else ''}{peak / 1024:.0f} MB | "
            f"{(out / 'summary.json').stat().st_size / 1e6:.2f} MB | "
            f"{(out / 'gradebook.csv').stat().st_size / 1e6:.2f} MB | "
            f"{len(groups)} ({largest}) |"
        )
    return rows


# -- 4. near the caps ------------------------------------------------------------------


def caps(venv: Venv) -> dict[str, int]:
    """The caps a submission is graded under: the lab's rubric over the defaults."""
    sys.path.insert(0, str(ROOT))
    from checks import LAB
    from grader.engine.rubric import load_lab_rubric

    limits = load_lab_rubric(LAB, None).make_limits(LAB.limits)
    return {name: limits[name] for name in limits.names()}


_TASK = re.compile(r"(\| task |id_task = )(\d+)")
_TIME = re.compile(r"(prompt eval time|eval time|total time) = +([\d.]+) ms / +(\d+) tokens.*")


def _own_figures(line: str, copy: int, state: dict[str, float]) -> str:
    """`line` of the real log's `copy`-th copy as a long-running server would have printed
    it: its task ids its own (the copy's number in the thousands), and a timing block's
    times slower or faster by the block's own factors (within 0.5 %, so that the clock
    stamps still hold them), its figures and total redone as llama.cpp prints them."""
    line = _TASK.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1000 * copy}", line)
    timing = _TIME.search(line) if "print_timing" in line else None
    if timing is None:
        return line
    kind, ms, n = timing.group(1), float(timing.group(2)), int(timing.group(3))
    if kind == "prompt eval time":
        state["prompt_factor"] = state["random"].uniform(0.995, 1.0)
        state["eval_factor"] = state["random"].uniform(0.995, 1.0)
        ms = state["prompt_ms"] = round(ms * state["prompt_factor"], 2)
    elif kind == "eval time":
        ms = state["eval_ms"] = round(ms * state["eval_factor"], 2)
    else:
        ms = round(state["prompt_ms"] + state["eval_ms"], 2)
    body = f"{kind} = {ms:10.2f} ms / {n:5d} tokens"
    if kind != "total time":
        body += f" ({ms / n:8.2f} ms per token, {1000 * n / ms:8.2f} tokens per second)"
    return line[: timing.start()] + body + "\n"


def near_caps_submission(
    folder: Path, cap: dict[str, int], every_file: bool, distinct: bool = False
) -> None:
    """The real capture with its lab-capped files (sse_raw.txt, server.log, sse.py) just
    under their caps; with `every_file`, every JSON file too (documents padded with an
    extra key, chunks.jsonl at its record cap).

    The log is copies of the real one, so its 3,000 timing blocks (at the lab's caps of
    4 MiB and 25,000 lines) print 14 distinct prompt times; with `distinct`, every copy
    but the first two (which the student's files still match) has its own task ids and
    every timing block its own factors (`_own_figures`), as a server that ran that long
    would print them: 1,600 distinct prompt times, and a cache of what was worked out
    for one block seldom helps the next. The verdicts are the same."""
    shutil.copytree(SUBMISSION, folder)
    events = (SUBMISSION / "sse_raw.txt").read_text("utf-8").split("\n\n")
    head, chunk = events[0] + "\n\n", events[1] + "\n\n"
    count = min(cap["sse_events"] - 10, (cap["file_bytes"] - 4096) // len(chunk.encode()))
    (folder / "sse_raw.txt").write_text(head + chunk * count + "data: [DONE]\n", "utf-8")
    lines = (SUBMISSION / "server.log").read_text("utf-8").splitlines(keepends=True)
    state: dict[str, Any] = {"random": random.Random(13)}
    out, size = [], 0
    while len(out) < cap["log_lines"] - 1:
        copy, line = divmod(len(out), len(lines))
        line = lines[line]
        if distinct and copy >= 2:
            line = _own_figures(line, copy, state)
        if size + len(line.encode()) >= cap["log_bytes"]:
            break
        out.append(line)
        size += len(line.encode())
    (folder / "server.log").write_text("".join(out), "utf-8")
    source = (SUBMISSION / "sse.py").read_text("utf-8")
    nested = "".join("    " + line if line.strip() else line for line in source.splitlines(True))
    code, number = source, 0
    while True:  # the student's code, then copies of it as classes, up to the cap
        more = f"\n\nclass Copy{number + 1}:\n{nested}"
        if len((code + more).encode()) >= cap["source_bytes"]:
            break
        code, number = code + more, number + 1
    (folder / "sse.py").write_text(code, "utf-8")
    if not every_file:
        return
    budget = cap["json_bytes"] - 1024
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text("utf-8"))
        if isinstance(data, dict):
            item = {"t_ms": 123.456, "text": "x" * 40}
            per = len(json.dumps(item)) + 2
            data["padding"] = [item] * ((budget - path.stat().st_size) // per)
            path.write_text(json.dumps(data), "utf-8")
    count, budget = cap["jsonl_records"] - 1, cap["file_bytes"] - 1024
    width = max(1, (budget // count) - 40)
    text = "".join(
        json.dumps({"t_ms": 200.0 + i, "text": "y" * width}) + "\n" for i in range(count)
    )
    (folder / "chunks.jsonl").write_text(text, "utf-8")


def memory(venv: Venv, work: Path) -> list[str]:
    cap = caps(venv)
    rows = [
        f"| case | bytes read | grading time, median of {NEAR_CAP_RUNS} (range) "
        "| peak RSS (before → after grading, the highest run) | growth ÷ bytes |",
        "|---|---|---|---|---|",
    ]
    cases: list[tuple[str, Callable[[Path], None]]] = [
        ("the real correct capture", lambda f: shutil.copytree(SUBMISSION, f)),
        ("sse_raw.txt, server.log, sse.py just under the lab's caps",
         lambda f: near_caps_submission(f, cap, False)),
        ("the same, every timing block of the log with figures of its own",
         lambda f: near_caps_submission(f, cap, False, distinct=True)),
        ("the same, server.log at its line cap, each line a timing block of its own "
         "that no fast path reads", lambda f: _bare_timings(f, cap)),
        ("every file just under its cap", lambda f: near_caps_submission(f, cap, True)),
        ("server.log of 1 GB (refused)", lambda f: _huge_log(f)),
    ]  # fmt: skip
    for index, (name, make) in enumerate(cases):
        folder = work / f"near-caps-{index}"
        shutil.rmtree(folder, ignore_errors=True)
        make(folder)
        runs = []  # each a cold grade in a fresh process; one run is at the machine's mercy
        for _ in range(NEAR_CAP_RUNS):
            got = venv.run(["grade", str(folder)], str(work), timeout=GRADE_TIMEOUT)
            if got is None:
                break
            runs.append(got)
        if len(runs) < NEAR_CAP_RUNS:
            rows.append(f"| {name} | | > {GRADE_TIMEOUT:.0f} s (stopped) | | |")
            shutil.rmtree(folder)
            continue
        got = max(runs, key=lambda run: run["hwm_after_kib"] - run["hwm_before_kib"])
        seconds = sorted(run["seconds"] * 1000 for run in runs)
        before, after = got["hwm_before_kib"] / 1024, got["hwm_after_kib"] / 1024
        growth = (after - before) * 1024 * 1024 / got["bytes"] if got["bytes"] else 0.0
        invalid = sorted(n for n, s in got["statuses"].items() if s != "valid")
        note = f" (not valid: {', '.join(invalid)})" if invalid else ""
        median, fastest, slowest = statistics.median(seconds), seconds[0], seconds[-1]
        rows.append(
            f"| {name}{note} | {got['bytes'] / 1e6:.2f} MB | {median:.0f} ms "
            f"({fastest:.0f}–{slowest:.0f}) | {before:.0f} → {after:.0f} MiB | {growth:.2f} |"
        )
        shutil.rmtree(folder)
    rows += ["", "Caps: " + ", ".join(f"{k} {v:,}" for k, v in cap.items() if "archive" not in k)]
    return rows


_BARE_TIMING = (
    "prompt eval time =     225.44 ms /    33 tokens "
    "(    6.83 ms per token,   146.38 tokens per second)\n"
)
"""A 2024-25 timing line without the prefix-only line that names its task: the scan reads
it the general way and makes a timing block of it: the dearest line known (some 8 µs)."""


def _bare_timings(folder: Path, cap: dict[str, int]) -> None:
    """The near-cap submission with a log of `_BARE_TIMING` lines up to its caps: what a
    hostile log costs, where the copies of the real one cost what an honest one does."""
    near_caps_submission(folder, cap, False)
    count = min(cap["log_lines"] - 1, (cap["log_bytes"] - 1) // len(_BARE_TIMING))
    (folder / "server.log").write_text(_BARE_TIMING * count, "utf-8")


def _huge_log(folder: Path) -> None:
    shutil.copytree(SUBMISSION, folder)
    with open(folder / "server.log", "wb") as handle:
        handle.truncate(1 << 30)  # sparse


# -- 5. growth -------------------------------------------------------------------------


def growth(venv: Venv, work: Path) -> list[str]:
    rows = ["| file | size | bytes | parse + validate | per unit |", "|---|---|---|---|---|"]
    for kind, unit, counts in (
        ("sse_raw.txt", "event", (100, 1_000, 4_096, 40_000)),
        ("server.log", "line", (1_000, 10_000, 100_000, 200_000)),
    ):
        got = venv.run(["growth", kind, str(SUBMISSION), *map(str, counts)], str(work))
        for row in got["rows"]:
            per = row["seconds"] / row["count"] * 1e6
            rows.append(
                f"| {kind} | {row['count']:,} {unit}s | {row['bytes']:,} | "
                f"{row['seconds'] * 1e3:.1f} ms | {per:.2f} µs |"
            )
    return rows


# -- the report ------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 2**20:.0f} GiB"
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.machine()}"
    return (
        f"{system}, {os.cpu_count()} cores ({cpu}){memory}, Python {platform.python_version()}"
        " (the workplace's `python` machine kind, shared with other sessions' work)"
    )


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, help="keep the venv here (built if missing)")
    parser.add_argument("--reinstall", action="store_true", help="reinstall into --venv")
    parser.add_argument("--rounds", type=int, default=30, help="rounds of the cold start")
    parser.add_argument("--batch", type=int, default=2_000, help="students in the class")
    parser.add_argument("--batch-rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="few rounds, a class of 200")
    parser.add_argument("--copies", type=int, default=2_000, help="copies of one run")
    parser.add_argument("--only", nargs="+", type=int, choices=range(1, 7), metavar="N")
    parser.add_argument("--no-write", action="store_true", help="don't write docs/benchmarks.md")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.batch, args.batch_rounds, args.copies = 8, 200, 1, 200
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp:
        work = Path(tmp)
        venv = Venv.build(args.venv or work / "venv", args.reinstall)
        load_before = load()
        sections: list[tuple[str, Callable[[], list[str]]]] = [
            ("1. Cold start, whole process", lambda: cold_start(venv, args.rounds, work)),
            ("2. In process, per submission", lambda: in_process(venv, args.rounds * 3, work)),
            ("3. Batch throughput, distinct honest submissions",
             lambda: batch(venv, args.batch, args.batch_rounds, work)),
            ("4. Near the caps: time and peak memory", lambda: memory(venv, work)),
            ("5. Growth with input size", lambda: growth(venv, work)),
            ("6. Classes with copy groups", lambda: copies(venv, args.copies, work)),
        ]  # fmt: skip
        out = [
            "# Benchmarks",
            "",
            f"Machine: {machine()}.",
            f"Installed as a user installs it: {venv.describe()}.",
            f"Command: `python bench/run.py --rounds {args.rounds} --batch {args.batch}`"
            f" (`--batch-rounds {args.batch_rounds}`).",
            "",
        ]
        for number, (title, run) in enumerate(sections, 1):
            if args.only and number not in args.only:
                continue
            print(f"## {title}", flush=True)
            rows = run()
            print("\n".join(rows), "\n", flush=True)
            out += [f"## {title}", "", *rows, ""]
        out.insert(4, f"Load average (1, 5, 15 min): {load_before} before, {load()} after.")
    if not args.no_write and not args.only:
        (ROOT / "docs" / "benchmarks.md").write_text("\n".join(out), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
