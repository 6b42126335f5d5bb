#!/usr/bin/env python3
"""How close each capture comes to each rubric threshold: the evidence for tuning them.

Grades each folder and prints, for every threshold of checks/rubric.toml that a real run
can come near, the value the capture reaches (from the measurements the checks record in
their results), beside the threshold, so an instructor sees the margin before changing
one. Usage: python scripts/margins.py [FOLDER ...]  (default: every real capture the
repository holds: tests/data/real/* and the real samples of sample_submissions/)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks import LAB  # noqa: E402
from grader.grade import grade  # noqa: E402
from grader.rubric import load_lab_rubric  # noqa: E402

Row = tuple[str, Callable[[dict[str, dict[str, Any]], dict[str, dict[str, Any]]], str]]


def _extreme(values: Any, pick: Callable[..., float] = max) -> float | None:
    items = [v for v in (values if isinstance(values, list) else [values]) if v is not None]
    return pick(items, key=abs) if items else None


def _fmt(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _ratio(data: dict[str, dict[str, Any]], check: str, key: str) -> float | None:
    value = data.get(check, {}).get(key)
    return value if isinstance(value, (int, float)) else None


ROWS: list[Row] = [
    (
        "ttft.in_log: |client (total - ttft) - log eval time| <= {ttft.in_log.noise_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("ttft.in_log", {}).get("generation_residual_ms"))),
    ),
    (
        "ttft.in_log: ttft - log prompt time <= {ttft.in_log.overhead_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("ttft.in_log", {}).get("first_token_delay_ms"))),
    ),
    (
        "sentence.in_log: |client (total - ttft) - log eval time| <= {sentence.in_log.noise_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("sentence.in_log", {}).get("generation_residual_ms"))),
    ),
    (
        "sentence.in_log: ttft - log prompt time <= {sentence.in_log.overhead_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("sentence.in_log", {}).get("first_token_delay_ms"))),
    ),
    (
        "prefill.in_log: ttft - log prompt time <= {prefill.in_log.overhead_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("prefill.in_log", {}).get("first_token_delay_ms"))),
    ),
    (
        "cache.in_log: ttft - log prompt time <= {cache.in_log.overhead_ms} ms",
        lambda d, p: _fmt(_extreme(d.get("cache.in_log", {}).get("first_token_delay_ms"))),
    ),
    (
        "chunks.in_stream: |last - first fragment - predicted_ms|"
        " <= {chunks.in_stream.noise_ms} ms",
        lambda d, p: _fmt(_ratio(d, "chunks.in_stream", "span_residual_ms")),
    ),
    (
        "cancel.in_log: log cancel - launch - closed_at"
        " in -{cancel.in_log.early_ms}..{cancel.in_log.late_ms} ms",
        lambda d, p: _fmt(_ratio(d, "cancel.in_log", "cancel_seen_residual_ms")),
    ),
    (
        "cancel.in_log: log release - launch - (closed_at + idle) <= {cancel.in_log.early_ms} ms",
        lambda d, p: _fmt(_ratio(d, "cancel.in_log", "release_residual_ms")),
    ),
    (
        "log.intact: print time - launch - block's total"
        " in -{log.intact.clock_slack_ms}..{log.intact.max_print_delay_ms} ms",
        lambda d, p: "{}..{}".format(
            *(d.get("log.intact", {}).get("print_delay_ms") or ["—", "—"])
        ),
    ),
    (
        "log.plausible: fastest prefill / median >= 1/{log.plausible.max_speedup}",
        lambda d, p: _fmt(_ratio(d, "log.plausible", "fastest_prefill_share"), 3),
    ),
    (
        "log.plausible: fastest decode / median >= 1/{log.plausible.max_speedup}",
        lambda d, p: _fmt(_ratio(d, "log.plausible", "fastest_decode_share"), 3),
    ),
    (
        "sse.one_response: content events / predicted_n >= {sse.one_response.min_content_fraction}",
        lambda d, p: _fmt(_ratio(d, "sse.one_response", "content_per_token"), 3),
    ),
]


def real_captures() -> list[Path]:
    """Every real capture of the repository: the test copies of the shared fixtures, and
    the published real samples (the top-level folders of sample_submissions/)."""
    folders = sorted(p for p in (ROOT / "tests" / "data" / "real").iterdir() if p.is_dir())
    samples = ROOT / "sample_submissions"
    others = ("derived", "hostile", "fabricated")
    return folders + sorted(p for p in samples.iterdir() if p.is_dir() and p.name not in others)


def main() -> None:
    folders = [Path(a) for a in sys.argv[1:]] or real_captures()
    rubric = load_lab_rubric(LAB, None, "checks")
    settings = rubric.settings()
    params = {f"{cid}.{k}": v for cid, entry in settings.items() for k, v in entry.items()}
    print("| threshold | " + " | ".join(f.name for f in folders) + " |")
    print("|---" * (len(folders) + 1) + "|")
    data = {}
    for folder in folders:
        result = grade(LAB, str(folder), rubric)
        data[folder] = {c.id: c.data for c in result.checks}
    for label, value in ROWS:
        shown = re.sub(r"\{([^}]+)\}", lambda m: str(params.get(m.group(1), "?")), label)
        print(f"| {shown} | " + " | ".join(value(data[f], params) for f in folders) + " |")


if __name__ == "__main__":
    main()
