#!/usr/bin/env python3
"""How close each sample came to each rubric threshold: the evidence for tuning them.

For every ratio threshold in checks/rubric.toml, prints the value each real capture
reaches and the threshold, so an instructor can see the margin before changing one.
Usage: python scripts/margins.py [FOLDER ...]  (default: the five real captures)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks import LAB  # noqa: E402
from checks.cache import _full_prompt  # noqa: E402
from checks.cancel import decode_ms_per_token  # noqa: E402
from checks.prefill import _full_size_from_log  # noqa: E402
from grader.engine import Context  # noqa: E402
from grader.grade import load_artifacts  # noqa: E402
from grader.rubric import load_lab_rubric  # noqa: E402

REAL = [
    "correct",
    "role_chunk_counted",
    "cache_on_in_prefill",
    "no_close_on_cancel",
    "no_cache_ram_flag",
]


def measures(folder: Path, settings: dict) -> dict[str, str]:
    rubric = load_lab_rubric(LAB, None, "checks")
    artifacts = load_artifacts(LAB, str(folder), {}, rubric.make_limits())
    value = {name: a.value for name, a in artifacts.items()}
    prefill, cache, cancel, log = value["prefill"], value["cache"], value["cancel"], value["log"]
    out: dict[str, str] = {}
    p = settings["prefill.cache_off"]
    fractions = [
        e["prompt_n"] / full
        for e in prefill
        if (full := _full_size_from_log(log, e, p["log_tolerance_ms"]))
    ]
    out[
        "prefill.cache_off: prompt_n / whole prompt in log (>= {})".format(p["min_full_fraction"])
    ] = f"{min(fractions):.3f}"
    reference = max(cache["first"]["prompt_n"], cache["changed_prefix"]["prompt_n"])
    out[
        "prefill.cache_off: 12-doc prompt_n / cache prompt (>= {})".format(
            p["min_cache_prompt_fraction"]
        )
    ] = f"{prefill[-1]['prompt_n'] / reference:.3f}"
    out["prefill.cache_off: smallest prompt_n (>= {})".format(p["min_prompt_tokens"])] = str(
        min(e["prompt_n"] for e in prefill)
    )
    ctx = Context(artifacts, {}, "margins")
    full = _full_prompt(ctx)
    out[
        "cache.first_is_miss: first / whole (>= {})".format(
            settings["cache.first_is_miss"]["min_full_fraction"]
        )
    ] = f"{cache['first']['prompt_n'] / full:.3f}"
    h = settings["cache.hit_faster"]
    out["cache.hit_faster: second / first prompt_n (<= {})".format(h["max_hit_fraction"])] = (
        f"{cache['second']['prompt_n'] / cache['first']['prompt_n']:.3f}"
    )
    out["cache.hit_faster: second / first ttft (< {})".format(h["max_ttft_ratio"])] = (
        f"{cache['second']['ttft_ms'] / cache['first']['ttft_ms']:.3f}"
    )
    r = settings["cache.prefix_breaks_reuse"]["min_recompute_fraction"]
    out[f"cache.prefix_breaks_reuse: changed / whole (>= {r})"] = (
        f"{cache['changed_prefix']['prompt_n'] / full:.3f}"
    )
    c = settings["cancel.interrupted"]
    out[
        "cancel.interrupted: closed_at_ms ({}..{})".format(c["close_min_ms"], c["close_max_ms"])
    ] = f"{cancel['closed_at_ms']:.0f}"
    per_token, _ = decode_ms_per_token(value["ttft"], value["sse"], cancel)
    rest = (cancel["max_tokens"] - cancel["received_tokens"]) * per_token
    f = settings["cancel.slot_freed"]["max_idle_fraction"]
    out[f"cancel.slot_freed: idle / rest of answer (<= {f})"] = (
        f"{cancel['slot_idle_after_ms'] / rest:.4f}"
    )
    return out


def main() -> None:
    names = sys.argv[1:] or REAL
    settings = load_lab_rubric(LAB, None, "checks").settings()
    table = {
        name: measures(
            ROOT / "sample_submissions" / name if "/" not in name else Path(name), settings
        )
        for name in names
    }
    rows = list(next(iter(table.values())))
    print("| threshold | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for row in rows:
        print(f"| {row} | " + " | ".join(table[n][row] for n in names) + " |")


if __name__ == "__main__":
    main()
