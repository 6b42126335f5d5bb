"""Ways a student could edit a real capture: honest variations and fabrications.

Each function changes a copy of a real capture in place, the way a student with a text
editor (or a script) would. Honest variations must keep every mark; fabrications must be
caught by a named check, and must never score more than the honest mistake they hide.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

JSON_FILES = (
    "ttft.json",
    "prefill.json",
    "cache.json",
    "sentence.json",
    "cancel.json",
    "report.json",
)


def _map_floats(value: Any, change: Callable[[float], float | int]) -> Any:
    if isinstance(value, float):
        return change(value)
    if isinstance(value, list):
        return [_map_floats(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _map_floats(v, change) for k, v in value.items()}
    return value


def edit_json(folder: Path, name: str, change: Callable[[Any], Any]) -> None:
    path = folder / name
    data = json.loads(path.read_text("utf-8"))
    result = change(data)
    data = data if result is None else result
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")


def edit_text(folder: Path, name: str, change: Callable[[str], str]) -> None:
    path = folder / name
    path.write_text(change(path.read_text("utf-8")), "utf-8")


def map_times(folder: Path, change: Callable[[float], float | int]) -> None:
    """Apply `change` to every time the client wrote (every float of the JSON files and
    every t_ms of chunks.jsonl)."""
    for name in JSON_FILES:
        edit_json(folder, name, lambda data: _map_floats(data, change))
    lines = (folder / "chunks.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    (folder / "chunks.jsonl").write_text(
        "".join(json.dumps(_map_floats(r, change), ensure_ascii=False) + "\n" for r in records),
        "utf-8",
    )


# -- honest variations ---------------------------------------------------------------------


def round_times(folder: Path, digits: int) -> None:
    """Every time written rounded to `digits` decimals (0: whole ms, written as ints)."""
    map_times(folder, lambda v: round(v) if digits == 0 else round(v, digits))


def add_extra_keys(folder: Path) -> None:
    """Keys the lab does not ask for, in every JSON file."""
    for name in JSON_FILES:
        edit_json(
            folder,
            name,
            lambda d: d.update(note="my pod") if isinstance(d, dict) else d.append({"extra": 1}),
        )


# -- fabrications --------------------------------------------------------------------------


def jitter_times(folder: Path, fraction: float = 0.03, seed: int = 7) -> None:
    """Every client time scaled by a random 1 ± `fraction`, and a new chatcmpl id."""
    rng = random.Random(seed)
    map_times(folder, lambda v: round(v * (1 + rng.uniform(-fraction, fraction)), 3))
    edit_text(
        folder,
        "sse_raw.txt",
        lambda t: re.sub(r'"chatcmpl-[A-Za-z0-9]+"', '"chatcmpl-JitteredJitteredJitteredJi"', t),
    )


LECTURE = {
    "ttft.json": {
        "runs": [
            {"ttft_ms": t, "total_ms": t + 1270, "tokens": 64} for t in (127, 131, 125, 129, 128)
        ],
        "ttft_p50": 128,
        "total_p50": 1398,
    },
    "prefill.json": [
        {"docs": 0, "prompt_n": 35, "prompt_ms": 120.0, "ttft_ms": 127.0},
        {"docs": 4, "prompt_n": 258, "prompt_ms": 790.0, "ttft_ms": 801.0},
        {"docs": 12, "prompt_n": 1366, "prompt_ms": 3.0, "ttft_ms": 9.0},
    ],
    "cache.json": {
        "first": {"prompt_n": 1366, "ttft_ms": 4200.0},
        "second": {"prompt_n": 1, "ttft_ms": 24.0},
        "changed_prefix": {"prompt_n": 1370, "ttft_ms": 4190.0},
    },
    "sentence.json": None,  # kept: the text is not a number
    "cancel.json": {
        "max_tokens": 256,
        "received_tokens": 20,
        "closed_at_ms": 500.0,
        "slot_idle_after_ms": 1.0,
    },
}


def hand_typed(folder: Path) -> None:
    """The JSON files typed from the lecture's numbers (even impossible ones: a 1,366-token
    prefill in 3 ms), with a server.log that is the single line `cancel task`."""
    for name, data in LECTURE.items():
        if data is not None:
            (folder / name).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    edit_json(
        folder,
        "report.json",
        lambda r: r.update(
            ttft_p50_ms=128,
            total_p50_ms=1398,
            ttft_12docs_ms=9.0,
            prompt_n_12docs=1366,
            cache_ttft_ms=24.0,
            cancel_idle_ms=1.0,
        ),
    )
    (folder / "server.log").write_text("cancel task, id_task = 1\n", "utf-8")


def whole_prompt_sizes(folder: Path) -> dict[int, int]:
    """prefill.json docs -> the whole prompt size the log's release lines give."""
    from grader.formats.llama_log import scan_log

    log = scan_log((folder / "server.log").read_text("utf-8"))
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    sizes = {}
    for entry in entries:
        timing = next(
            t
            for t in log.timings
            if t.prompt_n == entry["prompt_n"] and abs(t.prompt_ms - entry["prompt_ms"]) < 0.01
        )
        sizes[entry["docs"]] = log.full_prompt_tokens(timing)
    return sizes


def hide_cache_on_in_json(folder: Path) -> None:
    """Mistake 2 hidden: prefill.json's prompt_n replaced by the whole prompt sizes."""
    sizes = whole_prompt_sizes(folder)
    edit_json(folder, "prefill.json", lambda es: [e | {"prompt_n": sizes[e["docs"]]} for e in es])
    edit_json(folder, "report.json", lambda r: r.update(prompt_n_12docs=sizes[12]))


def hide_cache_on_in_json_and_log(folder: Path) -> None:
    """Mistake 2 hidden in prefill.json and in the log's `prompt eval time` token counts."""
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    sizes = whole_prompt_sizes(folder)
    hide_cache_on_in_json(folder)

    def change(text: str) -> str:
        for entry in entries:
            ms = f"{entry['prompt_ms']:.2f}"
            text = re.sub(
                rf"(prompt eval time = +{re.escape(ms)} ms / +){entry['prompt_n']} tokens",
                lambda m, size=sizes[entry["docs"]]: f"{m.group(1)}{size} tokens",
                text,
            )
        return text

    edit_text(folder, "server.log", change)


def hide_cache_on_deleting_log_lines(folder: Path) -> None:
    """Mistake 2 hidden in prefill.json, and the prefill requests' timing lines deleted."""
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    hide_cache_on_in_json(folder)
    log = (folder / "server.log").read_text("utf-8")
    printed = [re.escape(format(e["prompt_ms"], ".2f")) for e in entries]
    tasks = {
        m.group(1)
        for ms in printed
        for m in re.finditer(rf"task (\d+) \| prompt eval time = +{ms} ms", log)
    }
    edit_text(
        folder,
        "server.log",
        lambda t: "".join(
            line
            for line in t.splitlines(keepends=True)
            if not ("print_timing" in line and any(f"task {k} |" in line for k in tasks))
        ),
    )


def hide_no_close(folder: Path) -> None:
    """Mistake 3 hidden: a small slot_idle_after_ms typed into cancel.json (and report)."""
    edit_json(folder, "cancel.json", lambda c: c.update(slot_idle_after_ms=0.93))
    edit_json(folder, "report.json", lambda r: r.update(cancel_idle_ms=0.93))


def hide_no_close_with_cancel_line(folder: Path) -> None:
    """Mistake 3 hidden, and a `cancel task` line appended to the log after its end,
    without the time prefix every other line has."""
    hide_no_close(folder)
    edit_text(folder, "server.log", lambda t: t + "srv          stop: cancel task, id_task = 774\n")


def hide_no_cache_ram(folder: Path) -> None:
    """The host-memory cache's hit in cache.first hidden: prompt_n and ttft_ms of the
    12-document prefill request typed in."""
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    twelve = next(e for e in entries if e["docs"] == 12)
    edit_json(
        folder,
        "cache.json",
        lambda c: c.update(first={"prompt_n": twelve["prompt_n"], "ttft_ms": twelve["ttft_ms"]}),
    )


def hide_two_slots(folder: Path) -> None:
    """A server started with -np 2, props.json edited to say one slot of 4096."""

    def change(props: dict) -> None:
        props["total_slots"] = 1
        props["default_generation_settings"]["n_ctx"] = 4096

    edit_json(folder, "props.json", change)


def stitch(
    folder: Path, other: Path, files: tuple[str, ...] = ("ttft.json", "sentence.json")
) -> None:
    """Files of another run copied over this one's."""
    for name in files:
        (folder / name).write_bytes((other / name).read_bytes())


def faster_prefill_in_json_and_log(folder: Path) -> None:
    """A 12-document prefill typed as 3 ms, in prefill.json and in its log line (with the
    line's ms per token and tokens per second recomputed to match)."""
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    twelve = next(e for e in entries if e["docs"] == 12)
    edit_json(
        folder,
        "prefill.json",
        lambda es: [e | {"prompt_ms": 3.0, "ttft_ms": 9.0} if e["docs"] == 12 else e for e in es],
    )
    edit_json(folder, "report.json", lambda r: r.update(ttft_12docs_ms=9.0))
    n = twelve["prompt_n"]

    ms = re.escape(format(twelve["prompt_ms"], ".2f"))
    typed = (
        f"prompt eval time =       3.00 ms / {n:5d} tokens (    {3 / n:.2f} ms per token,"
        f" {1000 * n / 3:8.2f} tokens per second)"
    )

    def change(text: str) -> str:
        return re.sub(rf"prompt eval time = +{ms} ms / +{n} tokens \([^)]*\)", typed, text)

    edit_text(folder, "server.log", change)
