#!/usr/bin/env python3
"""A demonstration class for the class report: the samples plus generated students.

Builds `OUT/class/` with every bundled sample (real captures, derived and hostile ones)
and COUNT generated students. Each generated student is a copy of a real capture or of a
derived sample, with every time it measured scaled by one factor drawn from 0.7–2.0 (a
slower or faster pod), so that every relation the checks test holds exactly as in the
sample it came from:

- JSON files: every `*_ms` value and ttft.json's `ttft_p50` / `total_p50` times the factor
  (report.json copies the same scaled numbers), except cancel.json's `closed_at_ms` (the
  client's own 0.5 s timer); `received_tokens` divided by it (a slower pod streams fewer
  tokens before the close);
- sse_raw.txt and chunks.jsonl: `*_ms` times the factor, `*_per_second` divided by it;
- server.log: the timing lines' milliseconds times the factor, tokens per second divided
  by it; the prompt lines of prefill.json's tasks get the scaled prompt_ms itself, rounded
  to the log's 2 decimals, so the log still confirms them.

A few students are fabricated on purpose ("cancel.json typed": the cancel run of a
student who never closed the connection, with a small slot_idle_after_ms typed in), to
show the integrity flags. Then the class is graded with `grader batch`, the report is
written with `write_class_report` (from the result files alone),
every generated student is checked to fail exactly the checks its sample fails, and a
headless Chromium takes a screenshot of the page.

Run from the repository root:

    .venv/bin/python scripts/make_class_demo.py --out /tmp/class_demo \
        --screenshot /tmp/class_report.png

Same seed, same class, same report bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks import LAB  # noqa: E402
from grader import batch  # noqa: E402
from grader.class_report import write_class_report  # noqa: E402
from grader.grade import grade  # noqa: E402
from grader.i18n import LANGUAGES  # noqa: E402
from grader.rubric import load_lab_rubric  # noqa: E402

SAMPLES = ROOT / "sample_submissions"
REAL = ("correct", "role_chunk_counted", "cache_on_in_prefill", "no_close_on_cancel",
        "no_cache_ram_flag")  # fmt: skip
MARKER = ".class-demo"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_JSON_TIME = re.compile(rf'"(\w+_ms|ttft_p50|total_p50|\w+_per_second)"(\s*:\s*)({_NUMBER})')
_LOG_TIME = re.compile(
    r"((?:prompt eval time|eval time|total time) =)(\s*)(\d+\.\d+)( ms /\s*)(\d+)"
)
_LOG_RATE = re.compile(r"\((\s*)(\d+\.\d+)( ms per token,\s*)(\d+\.\d+)( tokens per second\))")


def _scaled(value: float, factor: float) -> float:
    return round(value * factor, 3)


def scale_json_text(text: str, factor: float) -> str:
    """Scale the times of a JSON (or JSON Lines, or SSE) text in place, keeping its layout."""

    def one(match: re.Match[str]) -> str:
        key, sep, number = match.groups()
        value = float(number)
        if key == "closed_at_ms":
            return match.group(0)
        new = value / factor if key.endswith("_per_second") else value * factor
        return f'"{key}"{sep}{round(new, 3)!r}'

    return _JSON_TIME.sub(one, text)


def scale_log(text: str, factor: float, prefill: list[dict[str, float]]) -> str:
    """Scale the timing lines of a llama-server log; the prompt lines of prefill.json's
    tasks get exactly the scaled prompt_ms (2 decimals), so the log still confirms them."""

    def timing(match: re.Match[str]) -> str:
        head, pad, number, mid, tokens = match.groups()
        value = float(number)
        new = value * factor
        if head.startswith("prompt"):
            for entry in prefill:
                if int(tokens) == entry["prompt_n"] and abs(value - entry["prompt_ms"]) <= 0.01:
                    new = _scaled(entry["prompt_ms"], factor)
        width = len(pad) + len(number)
        return f"{head}{f'{new:.2f}'.rjust(width)}{mid}{tokens}"

    def rate(match: re.Match[str]) -> str:
        pad, per_token, mid, per_second, tail = match.groups()
        a = f"{float(per_token) * factor:.2f}".rjust(len(pad) + len(per_token))
        return f"({a}{mid}{float(per_second) / factor:.2f}{tail}"

    return _LOG_RATE.sub(rate, _LOG_TIME.sub(timing, text))


def scale_submission(folder: Path, factor: float) -> None:
    """Every time the student measured, times `factor` (see the module's docstring)."""
    prefill: list[dict[str, float]] = []
    with contextlib.suppress(OSError, ValueError, TypeError):
        entries = json.loads((folder / "prefill.json").read_text("utf-8"))
        prefill = [e for e in entries if isinstance(e, dict)]
    for name in ("ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json",
                 "report.json", "chunks.jsonl", "sse_raw.txt"):  # fmt: skip
        path = folder / name
        if path.is_file():
            path.write_text(scale_json_text(path.read_text("utf-8"), factor), "utf-8")
    cancel = folder / "cancel.json"
    if cancel.is_file():
        text = cancel.read_text("utf-8")
        match = re.search(r'"received_tokens"(\s*:\s*)(\d+)', text)
        if match:
            fewer = max(1, round(int(match.group(2)) / factor))
            text = text[: match.start(2)] + str(fewer) + text[match.end(2) :]
            cancel.write_text(text, "utf-8")
    log = folder / "server.log"
    if log.is_file():
        log.write_text(scale_log(log.read_text("utf-8"), factor, prefill), "utf-8")


def type_cancel_idle(folder: Path, rng: random.Random) -> None:
    """The fabrication: a slot_idle_after_ms typed in (and copied to report.json)."""
    typed = round(rng.uniform(0.5, 4.0), 2)
    for name, key in (("cancel.json", "slot_idle_after_ms"), ("report.json", "cancel_idle_ms")):
        path = folder / name
        data = json.loads(path.read_text("utf-8"))
        data[key] = typed
        path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")


# (base sample, weight, extra change, checks it fails beyond the base's)
Variant = tuple[str, float, Callable[[Path, random.Random], None] | None, frozenset[str]]


def variants() -> list[Variant]:
    derived = sorted(p.name for p in (SAMPLES / "derived").iterdir() if p.is_dir())
    table: list[Variant] = [
        ("correct", 50.0, None, frozenset()),
        ("role_chunk_counted", 8.0, None, frozenset()),
        ("cache_on_in_prefill", 8.0, None, frozenset()),
        ("no_close_on_cancel", 7.0, None, frozenset()),
        ("no_cache_ram_flag", 4.0, None, frozenset()),
        ("no_close_on_cancel", 2.0, type_cancel_idle, frozenset({"-cancel.slot_freed"})),
    ]
    table.extend((f"derived/{name}", 21.0 / len(derived), None, frozenset()) for name in derived)
    return table


def not_passed(result: object) -> frozenset[str]:
    return frozenset(c.id for c in result.checks if c.status != "passed")  # type: ignore[attr-defined]


def expected_failures(base: frozenset[str], extra: frozenset[str]) -> frozenset[str]:
    add = {e for e in extra if not e.startswith("-")}
    drop = {e[1:] for e in extra if e.startswith("-")}
    return frozenset((base | add) - drop)


def screenshot(html: Path, png: Path, size: str = "1280,4000") -> bool:
    """A headless Chromium screenshot of `html`; False when there is no Chromium."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("make_class_demo: no chromium on PATH, no screenshot", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory(prefix="class-demo-chromium-") as profile:
        command = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            f"--window-size={size}",
            html.resolve().as_uri(),
        ]
        subprocess.run(command, check=True, capture_output=True, timeout=180)
    return png.is_file()


def build(out: Path, count: int, seed: int, lang: str, jobs: int) -> tuple[Path, list[str]]:
    """Make the class, grade it, write the report; returns the report and the problems."""
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise SystemExit(f"make_class_demo: {out} exists and is not a demo folder; not touching it")
    shutil.rmtree(out, ignore_errors=True)
    klass = out / "class"
    klass.mkdir(parents=True)
    (out / MARKER).write_text("made by scripts/make_class_demo.py\n", "utf-8")
    rubric = load_lab_rubric(LAB, None, "checks")

    expected: dict[str, frozenset[str]] = {}
    base_failures: dict[str, frozenset[str]] = {}
    for group in ("", "derived", "hostile"):
        root = SAMPLES / group if group else SAMPLES
        for sample in sorted(p for p in root.iterdir() if p.is_dir()):
            if not group and sample.name not in REAL:
                continue
            name = f"{group or 'sample'}-{sample.name}"
            shutil.copytree(sample, klass / name)

    rng = random.Random(seed)
    table = variants()
    weights = [w for _, w, _, _ in table]
    for number in range(1, count + 1):
        base, _, change, extra = rng.choices(table, weights)[0]
        factor = round(rng.uniform(0.7, 2.0), 3)
        student = klass / f"student-{number:03d}"
        shutil.copytree(SAMPLES / base, student)
        scale_submission(student, factor)
        if change is not None:
            change(student, rng)
        if base not in base_failures:
            base_failures[base] = not_passed(grade(LAB, str(SAMPLES / base), rubric))
        expected[student.name] = expected_failures(base_failures[base], extra)
        (student / ".demo.json").write_text(
            json.dumps({"base": base, "factor": factor, "changed": change is not None}) + "\n",
            "utf-8",
        )

    results = out / "batch"
    batch.run([str(klass)], str(results), jobs=jobs, lang=lang)
    html = results / "report.html"
    write_class_report(results, html, lang)

    problems = []
    for name, failures in sorted(expected.items()):
        data = json.loads((results / "results" / f"{name}.json").read_text("utf-8"))
        got = frozenset(c["id"] for c in data["checks"] if c["status"] != "passed")
        if got != failures:
            problems.append(f"{name}: expected not passed {sorted(failures)}, got {sorted(got)}")
    return html, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="/tmp/class_demo", help="folder to (re)create")
    parser.add_argument("--count", type=int, default=200, help="generated students")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--lang", default="en", choices=list(LANGUAGES))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--screenshot", metavar="PNG", help="also take a screenshot of the page")
    args = parser.parse_args(argv)
    html, problems = build(Path(args.out), args.count, args.seed, args.lang, args.jobs)
    for problem in problems:
        print(f"make_class_demo: {problem}", file=sys.stderr)
    print(f"make_class_demo: report in {html}", file=sys.stderr)
    if args.screenshot and screenshot(html, Path(args.screenshot)):
        print(f"make_class_demo: screenshot in {args.screenshot}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
