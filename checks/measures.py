"""What this lab keeps of its measured files in the result, for the class report.

Each function takes a file's value once it is valid against its schema and returns the
numbers the class report's physics charts draw (`checks.report_physics`); they travel
as the `data` of the file's `.schema` check, so `grader report` draws the charts from
the result files alone. The keys are the files' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the typed views are for the type checker: grader check need not import them
    from checks.models import Cache, Cancel, PrefillEntry
    from grader.words.problems import JSONValue

PREFILL_ENTRIES = 50
"""Prefill entries kept (a real prefill.json has 3; a hostile one may have thousands)."""
CACHE_RUNS = ("first", "second", "changed_prefix")
CANCEL_KEYS = ("max_tokens", "received_tokens", "closed_at_ms", "slot_idle_after_ms")


def prefill(value: list[PrefillEntry]) -> dict[str, JSONValue]:
    """`entries`: each entry's docs, prompt_n, prompt_ms and ttft_ms, in the file's order."""
    entries = [
        {
            "docs": e["docs"],
            "prompt_n": e["prompt_n"],
            "prompt_ms": e["prompt_ms"],
            "ttft_ms": e["ttft_ms"],
        }
        for e in value[:PREFILL_ENTRIES]
    ]
    return {"entries": entries}


def cache(value: Cache) -> dict[str, JSONValue]:
    """`first`, `second`, `changed_prefix`: each run's prompt_n and ttft_ms."""
    runs = {k: value[k] for k in CACHE_RUNS}  # type: ignore[literal-required]
    return {k: {"prompt_n": run["prompt_n"], "ttft_ms": run["ttft_ms"]} for k, run in runs.items()}


def cancel(value: Cancel) -> dict[str, JSONValue]:
    """max_tokens, received_tokens, closed_at_ms and slot_idle_after_ms."""
    return {k: value[k] for k in CANCEL_KEYS}  # type: ignore[literal-required]
