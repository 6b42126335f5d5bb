#!/usr/bin/env python3
"""A demonstration class for the class report: 260 students made of real runs.

Every student is one of the real captures no published sample is (so the sample
registry knows none of them and `submission.original` judges them as a student's own
runs): the five of `tests/data/real/` and `tests/data/unpublished/two_slots`, chosen in
the proportions a class shows (most students right, the lab's three common mistakes, a
few servers started with `-np 2`). Students are varied the ways real students vary, never
by changing a measured number:

- **real mistakes**, a few students each, made as `scripts/make_derived.py` makes its
  samples (a client written with `requests`, `/health` saved while loading, a median
  that is a mean, four runs instead of five, 8 documents instead of 12, chunk times
  swapped, `report.json` missing a field, ...), each failing the check it names;
- **honest byte-level variations**, which keep every number the server's log confirms:
  JSON written with another indent or key order, keys of the student's own added, every
  time rounded to 0.1 ms or to whole ms (as `make_derived` shows to be honest), the log
  saved by `docker compose logs` or journald (their line prefixes).

A few students are fabricated on purpose (`scripts/make_fabricated.py`'s edits: an
open connection hidden by typing a small `slot_idle_after_ms`, the cache left on hidden
by typing whole prompt sizes, a published sample handed in) to show the integrity
flags, and two handed in no lab files (not gradable). Students of one real run share
its timings and its stream's id, so the report's pairs section shows each run as one
group of the students who handed it in: what it would show of a class that copied six
runs around. A real class of independent runs has none.

Then the class is graded with `grader batch`, the report is written from the result
files alone, every student is checked to fail the checks its run and its mistakes
explain and no other (a corroboration check failing where it should not is a problem),
and, with `--screenshots DIR`, headless Chromium takes the page at 1400 and 800 px wide
and prints it to PDF.

Run from the repository root:

    .venv/bin/python scripts/make_class_demo.py --out /tmp/class_demo --screenshots /tmp/shots

Same seed, same class, same report bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from make_derived import CASES, add_extra_keys, map_times  # noqa: E402
from make_fabricated import hide_cache_on_in_json, hide_no_close  # noqa: E402

from checks import LAB  # noqa: E402
from grader.batch import run as batch  # noqa: E402
from grader.class_report import write_class_report  # noqa: E402
from grader.words.i18n import LANGUAGES  # noqa: E402

REAL = ROOT / "tests" / "data" / "real"
BASES: dict[str, tuple[Path, float]] = {
    "correct": (REAL / "correct", 56.0),
    "role_chunk_counted": (REAL / "role_chunk_counted", 10.0),
    "cache_on_in_prefill": (REAL / "cache_on_in_prefill", 11.0),
    "no_close_on_cancel": (REAL / "no_close_on_cancel", 12.0),
    "no_cache_ram_flag": (REAL / "no_cache_ram_flag", 7.0),
    "two_slots": (ROOT / "tests" / "data" / "unpublished" / "two_slots", 4.0),
}
"""Real run -> (its folder, its share of the class)."""
MARKER = ".class-demo"
JSON_FILES = ("health.json", "props.json", "ttft.json", "prefill.json", "cache.json",
              "sentence.json", "cancel.json", "report.json")  # fmt: skip
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars")  # fmt: skip

Change = Callable[[Path], None]


def _mean_not_median(folder: Path) -> None:
    """ttft.json's total_p50 (and report.json's copy) written as the mean of the runs."""
    ttft = json.loads((folder / "ttft.json").read_text("utf-8"))
    mean = round(sum(r["total_ms"] for r in ttft["runs"]) / len(ttft["runs"]), 3)
    for name, key in (("ttft.json", "total_p50"), ("report.json", "total_p50_ms")):
        data = json.loads((folder / name).read_text("utf-8"))
        data[key] = mean
        (folder / name).write_text(json.dumps(data, indent=2) + "\n", "utf-8")


_DERIVED_WEIGHTS = (
    ("sse_py_requests", 3.0), ("health_not_ok", 2.0), ("health_missing", 1.5),
    ("ttft_four_runs", 2.0), ("prefill_eight_docs", 2.0), ("chunks_out_of_order", 1.0),
    ("sentence_cut_at_period", 2.0), ("report_missing_field", 2.0), ("sse_no_done", 1.0),
    ("props_html_error_page", 0.5), ("chunks_nan_time", 0.5), ("ttft_tokens_as_text", 0.5),
    ("sse_py_syntax_error", 0.5),
)  # fmt: skip
MISTAKES: dict[str, tuple[Change, float]] = {
    **{name: (CASES[name][1], weight) for name, weight in _DERIVED_WEIGHTS},
    "ttft_mean_not_median": (_mean_not_median, 2.0),
}
"""A real mistake -> (how a student makes it in the files, how often)."""
MUST_FAIL = {name: set(CASES[name][2]) for name in MISTAKES if name in CASES}
MUST_FAIL["ttft_mean_not_median"] = {"ttft.medians"}
MAY_FAIL = {name: set(CASES[name][3]) for name in MISTAKES if name in CASES}
MAY_FAIL["ttft_four_runs"] = {"ttft.medians"}  # four runs have no middle one
MAY_FAIL["ttft_mean_not_median"] = set()
FABRICATED: dict[str, tuple[str, Change | None, set[str]]] = {
    "open_connection_hidden": ("no_close_on_cancel", hide_no_close, {"cancel.in_log"}),
    "cache_on_hidden": ("cache_on_in_prefill", hide_cache_on_in_json, {"prefill.in_log"}),
    "published_sample": ("", None, {"submission.original"}),
}
"""A cheat -> (the real run it edits, the edit, the checks that catch it)."""


# --------------------------------------------------------------------------- variations


def restyle_json(folder: Path, rng: random.Random) -> None:
    """Every JSON file written again with one student's style: indent and key order."""
    indent = rng.choice([2, 4, None, "\t"])
    order = rng.choice(["kept", "sorted", "reversed"])

    def reorder(value: Any) -> Any:
        if isinstance(value, dict):
            items = [(k, reorder(v)) for k, v in value.items()]
            if order == "sorted":
                items.sort()
            elif order == "reversed":
                items.reverse()
            return dict(items)
        if isinstance(value, list):
            return [reorder(v) for v in value]
        return value

    for name in JSON_FILES:
        path = folder / name
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue  # a mistake removed it or made it no JSON: keep it as the student broke it
        text = json.dumps(reorder(data), indent=indent, ensure_ascii=rng.random() < 0.5)
        path.write_text(text + "\n", "utf-8")


def prefix_log(folder: Path, rng: random.Random) -> None:
    """server.log as `docker compose logs` or journald saved it (their line prefixes)."""
    journald = f"Dec  2 10:{rng.randrange(60):02d}:07 pod llama-server[812]: "
    prefix = rng.choice(["llm-1  | ", journald])
    path = folder / "server.log"
    lines = path.read_text("utf-8").split("\n")
    path.write_text("\n".join(prefix + line if line else line for line in lines), "utf-8")


def round_times(folder: Path, rng: random.Random) -> None:
    """Every time the student wrote rounded to 0.1 ms or to whole ms (one of them: a
    client rounds once; rounding a rounded value again is no honest measurement)."""
    digits = rng.choice([1, 0])
    map_times(folder, lambda v: round(v, digits) if digits else round(v))


VARIATIONS: tuple[tuple[str, float, Callable[[Path, random.Random], None]], ...] = (
    ("rounded", 0.25, round_times),
    ("extra keys", 0.2, lambda folder, rng: add_extra_keys(folder)),
    ("JSON style", 0.7, restyle_json),
    ("log prefix", 0.25, prefix_log),
)
"""Honest variation -> (how often, how): none changes a number the log confirms."""
BREAKS_JSON = ("chunks_nan_time", "ttft_tokens_as_text", "props_html_error_page")
"""Mistakes after which a file is no longer the JSON a rounding client would rewrite."""


# --------------------------------------------------------------------------- the class


def student(folder: Path, rng: random.Random) -> dict[str, Any]:
    """One generated student: a real run, maybe a mistake or two, honest variations."""
    names = list(BASES)
    base = rng.choices(names, [BASES[n][1] for n in names])[0]
    shutil.copytree(BASES[base][0], folder)
    mistakes: list[str] = []
    if rng.random() < 0.24:
        pool = list(MISTAKES)
        count = 2 if rng.random() < 0.12 else 1
        mistakes = sorted(set(rng.choices(pool, [MISTAKES[m][1] for m in pool], k=count)))
    for name in mistakes:
        MISTAKES[name][0](folder)
    done = []
    broken_json = any(m in BREAKS_JSON for m in mistakes)
    for name, share, vary in VARIATIONS:
        if rng.random() < share and not (name == "rounded" and broken_json):
            vary(folder, rng)
            done.append(name)
    return {"base": base, "mistakes": mistakes, "variations": done}


def fabricated(folder: Path, name: str) -> dict[str, Any]:
    base, edit, _ = FABRICATED[name]
    if edit is None:
        shutil.copytree(ROOT / "sample_submissions" / "correct", folder)
    else:
        shutil.copytree(BASES[base][0], folder)
        edit(folder)
    return {"base": base or "published sample correct", "fabricated": name}


def not_passed(result: dict[str, Any]) -> set[str]:
    return {c["id"] for c in result["checks"] if c["status"] != "passed"}


def build(out: Path, count: int, seed: int, lang: str, jobs: int) -> tuple[Path, list[str]]:
    """Make the class, grade it, write the report; returns the report and the problems."""
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise SystemExit(f"make_class_demo: {out} exists and is not a demo folder; not touching it")
    shutil.rmtree(out, ignore_errors=True)
    klass = out / "class"
    klass.mkdir(parents=True)
    (out / MARKER).write_text("made by scripts/make_class_demo.py\n", "utf-8")
    rng = random.Random(seed)
    made: dict[str, dict[str, Any]] = {}
    for number in range(1, count + 1):
        made[f"student-{number:03d}"] = student(klass / f"student-{number:03d}", rng)
    for number, name in enumerate(FABRICATED, start=count + 1):
        made[f"student-{number:03d}"] = fabricated(klass / f"student-{number:03d}", name)
    for number in (count + len(FABRICATED) + 1, count + len(FABRICATED) + 2):
        folder = klass / f"student-{number:03d}"
        folder.mkdir()
        (folder / "notes.txt").write_text("I will upload my files tomorrow.\n", "utf-8")
        made[folder.name] = {"base": "", "ungradable": True}
    (out / "class.json").write_text(json.dumps(made, indent=1) + "\n", "utf-8")

    results = out / "batch"
    batch.run([str(klass)], str(results), jobs=jobs, lang=lang)
    html = results / "report.html"
    write_class_report(results, html, lang)
    return html, check_class(results, made)


def check_class(results: Path, made: dict[str, dict[str, Any]]) -> list[str]:
    """Each student fails what its run, mistakes or cheat explain, and nothing else."""
    graded = {
        name: json.loads((results / "results" / f"{name}.json").read_text("utf-8")) for name in made
    }
    base_failures = {
        base: not_passed(graded[name])
        for name, info in reversed(made.items())
        if not info.get("mistakes") and not info.get("fabricated") and (base := info["base"])
    }
    problems = []
    for name, info in made.items():
        result = graded[name]
        if info.get("ungradable"):
            if result["gradable"]:
                problems.append(f"{name}: graded, but it has no lab files")
            continue
        mistakes = info.get("mistakes", [])
        must = set().union(*(MUST_FAIL[m] for m in mistakes))
        if info.get("fabricated"):
            must = FABRICATED[info["fabricated"]][2]
        allowed = must | base_failures.get(info["base"], set())
        allowed |= set().union(*(MAY_FAIL[m] for m in mistakes))
        allowed |= set(LAB.downstream(allowed))
        failed = not_passed(result)
        if not must <= failed:
            problems.append(f"{name} ({info}): should fail {sorted(must - failed)}")
        if not failed <= allowed:
            problems.append(f"{name} ({info}): also fails {sorted(failed - allowed)}")
    return problems


# --------------------------------------------------------------------------- screenshots


def chromium(*args: str) -> bool:
    """Run headless Chromium once with a fresh profile; False when there is none."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("make_class_demo: no chromium on PATH, no screenshots", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory(prefix="class-demo-chromium-") as profile:
        command = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return True


def screenshots(html: Path, folder: Path) -> list[Path]:
    """The page at 1400 and 800 px wide (the top 2400 px), and printed to PDF."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for width in (1400, 800):
        png = folder / f"class_report_{width}.png"
        if chromium(f"--screenshot={png}", f"--window-size={width},2400", html.as_uri()):
            made.append(png)
    pdf = folder / "class_report.pdf"
    if chromium(f"--print-to-pdf={pdf}", "--no-pdf-header-footer", html.as_uri()):
        made.append(pdf)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="/tmp/class_demo", help="folder to (re)create")
    parser.add_argument("--count", type=int, default=255, help="generated honest students")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--lang", default="en", choices=list(LANGUAGES))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--screenshots", metavar="DIR", help="also take screenshots of the page")
    args = parser.parse_args(argv)
    html, problems = build(Path(args.out), args.count, args.seed, args.lang, args.jobs)
    for problem in problems:
        print(f"make_class_demo: {problem}", file=sys.stderr)
    print(f"make_class_demo: report in {html}", file=sys.stderr)
    if args.screenshots:
        for path in screenshots(html, Path(args.screenshots)):
            print(f"make_class_demo: {path}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
