#!/usr/bin/env python3
"""How close each capture comes to each rubric threshold: the evidence for tuning them.

Grades each folder and reads, for every threshold of checks/rubric.toml a real run can
come near, the value the capture reaches (the measurements the checks record in their
results). Prints a summary (the worst value among the runs whose check passed, and the
values of those where it failed: the mistakes it catches) and, with `--all`, every
capture's value. Usage: python scripts/margins.py [--all] [FOLDER ...]  (default: every
real capture the repository holds: tests/data/real/* and the top-level samples).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks import LAB  # noqa: E402
from grader.engine.grade import grade  # noqa: E402
from grader.engine.rubric import load_lab_rubric  # noqa: E402


@dataclass(frozen=True)
class Row:
    """One threshold: its label (`{check.param}` from the rubric), where the value is
    recorded, and which way is worse ("low": a minimum is the limit, "high": a maximum,
    "far": the distance from 0 either way)."""

    label: str
    check: str
    key: str
    worse: str
    digits: int = 1


ROWS = [
    Row("prefill.cache_off: prompt_n / whole prompt in the log >= {min_full_fraction}",
        "prefill.cache_off", "whole_prompt_share", "low", 3),
    Row("prefill.cache_off: 12-doc prompt_n / cache.json's prompt >= {min_cache_prompt_fraction}",
        "prefill.cache_off", "cache_prompt_share", "low", 3),
    Row("prefill.cache_off: smallest prompt_n >= {min_prompt_tokens}",
        "prefill.cache_off", "smallest_prompt_n", "low", 0),
    Row("cache.first_is_miss: first / whole prompt >= {min_full_fraction}",
        "cache.first_is_miss", "first_share", "low", 3),
    Row("cache.hit_faster: second / first prompt_n <= {max_hit_fraction}",
        "cache.hit_faster", "hit_share", "high", 3),
    Row("cache.hit_faster: second / first ttft < {max_ttft_ratio}",
        "cache.hit_faster", "ttft_ratio", "high", 3),
    Row("cache.prefix_breaks_reuse: changed / whole prompt >= {min_recompute_fraction}",
        "cache.prefix_breaks_reuse", "recompute_share", "low", 3),
    Row("cancel.interrupted: closed_at_ms in {close_min_ms}..{close_max_ms}",
        "cancel.interrupted", "closed_at_ms", "high", 0),
    Row("cancel.slot_freed: idle / time to generate the rest <= {max_idle_fraction}",
        "cancel.slot_freed", "idle_share", "high", 4),
    Row("ttft.in_log: client decode - log eval, within {noise_ms} + {noise_share}x ms",
        "ttft.in_log", "generation_residual_ms", "far"),
    Row("ttft.in_log: ttft - log prompt time <= {overhead_ms} ms",
        "ttft.in_log", "first_token_delay_ms", "high"),
    Row("sentence.in_log: client decode - log eval, within {noise_ms} + {noise_share}x ms",
        "sentence.in_log", "generation_residual_ms", "far"),
    Row("sentence.in_log: ttft - log prompt time <= {overhead_ms} ms",
        "sentence.in_log", "first_token_delay_ms", "high"),
    Row("prefill.in_log: ttft - log prompt time <= {overhead_ms} ms",
        "prefill.in_log", "first_token_delay_ms", "high"),
    Row("cache.in_log: ttft - log prompt time <= {overhead_ms} ms",
        "cache.in_log", "first_token_delay_ms", "high"),
    Row("chunks.in_stream: last - first - predicted_ms, within {noise_ms} + {noise_share}x ms",
        "chunks.in_stream", "span_residual_ms", "far"),
    Row("cancel.in_log: log cancel - launch - closed_at in -{early_ms}..{late_ms} ms",
        "cancel.in_log", "cancel_seen_residual_ms", "far"),
    Row("cancel.in_log: log release - launch - (closed_at + idle) <= {early_ms} ms",
        "cancel.in_log", "release_residual_ms", "high"),
    Row("log.intact: print time - launch - block's total <= {max_print_delay_ms} ms",
        "log.intact", "print_delay_ms", "high", 3),
    Row("log.story: a cancelled task's time / its tokens at the median speed >= 1/{max_speedup}",
        "log.story", "cancel_time_share", "low", 3),
    Row("log.story: release - launch - block's prompt + eval >= -{clock_slack_ms} ms",
        "log.story", "release_margin_ms", "low", 3),
    Row("log.plausible: fastest prefill / median >= 1/{max_speedup}",
        "log.plausible", "fastest_prefill_share", "low", 3),
    Row("log.plausible: fastest decode / median >= 1/{max_speedup}",
        "log.plausible", "fastest_decode_share", "low", 3),
    Row("sse.one_response: content events / predicted_n >= {min_content_fraction}",
        "sse.one_response", "content_per_token", "low", 3),
]  # fmt: skip


def _numbers(value: Any) -> list[float]:
    items = value if isinstance(value, list) else [value]
    return [float(v) for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _worst(values: list[float], worse: str) -> float | None:
    if not values:
        return None
    if worse == "low":
        return min(values)
    if worse == "high":
        return max(values)
    return max(values, key=abs)


def real_captures() -> list[Path]:
    """Every real capture of the repository: the test copies of the shared fixtures, and
    the published real samples (the top-level folders of sample_submissions/)."""
    folders = sorted(p for p in (ROOT / "tests" / "data" / "real").iterdir() if p.is_dir())
    samples = ROOT / "sample_submissions"
    others = ("derived", "hostile", "fabricated")
    return folders + sorted(p for p in samples.iterdir() if p.is_dir() and p.name not in others)


def _fmt(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every capture's value too")
    parser.add_argument("folders", nargs="*", type=Path)
    args = parser.parse_args()
    folders = args.folders or real_captures()
    rubric = load_lab_rubric(LAB, None, "checks")
    settings = rubric.settings()
    results = {folder: grade(LAB, str(folder), rubric) for folder in folders}

    def label(row: Row) -> str:
        values = settings[row.check]
        return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "?")), row.label)

    def value(folder: Path, row: Row) -> tuple[str, float | None]:
        check = next(c for c in results[folder].checks if c.id == row.check)
        return check.status, _worst(_numbers(check.data.get(row.key)), row.worse)

    print(f"| threshold | worst of {len(folders)} real runs that pass | runs that fail |")
    print("|---|---|---|")
    for row in ROWS:
        seen = [(f, *value(f, row)) for f in folders]
        passing = [v for _, s, v in seen if s == "passed" and v is not None]
        failing = [f"{_fmt(v, row.digits)} ({f.name})" for f, s, v in seen if s == "failed"]
        worst = _worst(passing, row.worse)
        print(f"| {label(row)} | {_fmt(worst, row.digits)} | {', '.join(failing) or '—'} |")
    if args.all:
        print()
        print("| threshold | " + " | ".join(f.name for f in folders) + " |")
        print("|---" * (len(folders) + 1) + "|")
        for row in ROWS:
            cells = [_fmt(value(f, row)[1], row.digits) for f in folders]
            print(f"| {label(row)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
