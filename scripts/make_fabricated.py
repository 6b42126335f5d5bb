#!/usr/bin/env python3
"""Build the fabricated samples: real captures edited the way a student would to cheat.

Each case copies a real capture and changes it in place, with a text editor's care:
client times jittered, files typed by hand, a mistake edited away in the JSON only or in
the JSON and the log, files stitched from two runs, props.json edited to hide `-np 2`, a
published sample handed in. Each must be caught by a named check, and must never score
more than the honest capture it was made from (`ORIGINALS.json`; tests/test_integrity.py
checks both). The bases are the real captures of `tests/data/real/`, which are not
published samples (so the registry does not hide what the other checks find), except
where handing in a published sample is the point.

Run from the repository root: `python scripts/make_fabricated.py`. It rewrites
`sample_submissions/fabricated/` and the fabricated entries of
`sample_submissions/EXPECTED.json`.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_derived import ROOT, SAMPLES, map_times, write_expected

sys.path.insert(0, str(ROOT))
from checks import LAB

REAL = ROOT / "tests" / "data" / "real"
UNPUBLISHED = ROOT / "tests" / "data" / "unpublished"
"""Real captures of honest mistakes that are no published sample (made for these tests)."""
FABRICATED = SAMPLES / "fabricated"


def edit_json(folder: Path, name: str, change: Callable[[Any], Any]) -> None:
    """Change a JSON file in place (`change` edits the data, or returns new data)."""
    path = folder / name
    data = json.loads(path.read_text("utf-8"))
    result = change(data)
    data = data if result is None else result
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")


def edit_text(folder: Path, name: str, change: Callable[[str], str]) -> None:
    path = folder / name
    path.write_text(change(path.read_text("utf-8")), "utf-8")


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
    from checks.formats.llama_log import scan_log

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


def sentence_from_a_ttft_run(folder: Path) -> None:
    """The sentence step not run: sentence.json's times taken from the third ttft run
    (its first sentence kept at the same share of the answer), report.json to match."""
    run = json.loads((folder / "ttft.json").read_text("utf-8"))["runs"][2]

    def change(s: dict) -> None:
        share = (s["first_sentence_ms"] - s["ttft_ms"]) / (s["total_ms"] - s["ttft_ms"])
        s["ttft_ms"], s["total_ms"] = run["ttft_ms"], run["total_ms"]
        generated = run["total_ms"] - run["ttft_ms"]
        s["first_sentence_ms"] = round(run["ttft_ms"] + share * generated, 3)

    edit_json(folder, "sentence.json", change)
    first = json.loads((folder / "sentence.json").read_text("utf-8"))["first_sentence_ms"]
    edit_json(folder, "report.json", lambda r: r.update(first_sentence_ms=first))


def hide_two_slots_in_log(folder: Path) -> None:
    """-np 2 hidden in props.json and in the log's start-up line too."""
    hide_two_slots(folder)
    edit_text(
        folder,
        "server.log",
        lambda t: t.replace("n_slots = 2, n_ctx_slot = 2048", "n_slots = 1, n_ctx_slot = 4096"),
    )


def _stamp(ms: float) -> str:
    """llama.cpp's `m.ss.mmm.uuu` time prefix of `ms` since the server started."""
    us = round(ms * 1000)
    return f"{us // 60_000_000}.{us // 1_000_000 % 60:02d}.{us // 1000 % 1000:03d}.{us % 1000:03d}"


def _time_of(line: str) -> float:
    m, s, ms, us = line.split(" ", 1)[0].split(".")
    return (int(m) * 60 + int(s)) * 1000 + int(ms) + int(us) / 1000


def type_cancel_over_finished_task(folder: Path) -> None:
    """Mistake 3 hidden in the log too: the 256-token task's timing block and progress
    line removed, a prefixed `cancel task` line typed 518 ms after its launch, its
    release moved right after it (its token count left as the server printed it)."""
    hide_no_close(folder)

    def change(text: str) -> str:
        lines = text.splitlines(keepends=True)
        launch = next(i for i, line in enumerate(lines) if "task 774 | processing task" in line)
        start = _time_of(lines[launch])
        release = next(line for line in lines if "task 774 | stop processing" in line)
        kept = [line for line in lines if "task 774 |" not in line or "processing task" in line]
        at = kept.index(lines[launch]) + 1
        kept[at:at] = [
            f"{_stamp(start + 517.9)} W srv          stop: cancel task, id_task = 774\n",
            f"{_stamp(start + 518.4)} I" + release.split(" I", 1)[1],
        ]
        return "".join(kept)

    edit_text(folder, "server.log", change)


def hide_no_cache_ram_in_log(folder: Path) -> None:
    """The host cache's whole-prompt hit of cache.first rewritten as a cold prefill: the
    block at the 12-document prefill's own ms per token, its totals recomputed, every
    later time stamp shifted by the added time, cache.json and report.json to match."""
    text = (folder / "server.log").read_text("utf-8")
    prefill = re.search(r"prompt eval time =\s+([\d.]+) ms /\s+1366 tokens", text)
    block = re.search(
        r"task 554 \| prompt eval time =\s+([\d.]+) ms /\s+1 tokens.*\n(.*\n)"
        r"(.*total time =\s+([\d.]+) ms /\s+(\d+) tokens)",
        text,
    )
    assert prefill is not None and block is not None
    rate = float(prefill.group(1)) / 1366
    prompt_ms = round(rate * 1366, 2)
    added = prompt_ms - float(block.group(1))
    total = round(float(block.group(4)) + added, 2)
    new_block = (
        f"task 554 | prompt eval time = {prompt_ms:10.2f} ms /  1366 tokens "
        f"({rate:8.2f} ms per token, {1000 / rate:8.2f} tokens per second)\n"
        + block.group(2)
        + block.group(3)
        .replace(block.group(4), f"{total:.2f}")
        .replace(f"/    {block.group(5)} tokens", f"/  {1365 + int(block.group(5))} tokens")
    )
    text = text.replace(block.group(0), new_block)
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if "task 554 | prompt eval time" in line)
    shifted = lines[:first] + [
        f"{_stamp(_time_of(line) + added)}{line[line.index(' ') :]}" if line[:1].isdigit() else line
        for line in lines[first:]
    ]
    (folder / "server.log").write_text("".join(shifted), "utf-8")
    cache = json.loads((folder / "cache.json").read_text("utf-8"))
    ttft = round(cache["first"]["ttft_ms"] + added, 3)
    edit_json(folder, "cache.json", lambda c: c.update(first={"prompt_n": 1366, "ttft_ms": ttft}))


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


def strip_time_prefixes(folder: Path) -> None:
    """The log as a server without time stamps prints it (2025 builds by default)."""
    edit_text(
        folder, "server.log", lambda t: re.sub(r"(?m)^\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] ", "", t)
    )


def faster_prefill_without_time_stamps(folder: Path) -> None:
    """The 3 ms prefill typed into a log without time stamps, its block recomputed to add
    up (ms per token, tokens per second, total time): only physics can tell."""
    strip_time_prefixes(folder)
    entries = json.loads((folder / "prefill.json").read_text("utf-8"))
    twelve = next(e for e in entries if e["docs"] == 12)
    faster_prefill_in_json_and_log(folder)
    ms = 3.0
    old_total = re.search(
        r"task (\d+) \| prompt eval time = +3\.00 ms", (folder / "server.log").read_text("utf-8")
    )
    assert old_total is not None
    task = old_total.group(1)

    def total(text: str) -> str:
        evals = re.search(rf"task {task} \| +eval time = +([0-9.]+) ms", text)
        assert evals is not None
        new = ms + float(evals.group(1))
        return re.sub(
            rf"(task {task} \| +total time = +)[0-9.]+( ms)",
            lambda m: f"{m.group(1)}{new:8.2f}{m.group(2)}",
            text,
        )

    edit_text(folder, "server.log", total)
    del twelve


def splice_two_streams(folder: Path, other: Path) -> None:
    """The first content events of sse_raw.txt taken from another run's stream (another
    chatcmpl id), with chunks.jsonl following the spliced stream."""
    mine = (folder / "sse_raw.txt").read_text("utf-8").split("\n\n")
    theirs = (other / "sse_raw.txt").read_text("utf-8").split("\n\n")
    spliced = [mine[0], *theirs[1:11], *mine[11:]]
    (folder / "sse_raw.txt").write_text("\n\n".join(spliced), "utf-8")
    records = [
        json.loads(x) for x in (folder / "chunks.jsonl").read_text("utf-8").splitlines() if x
    ]
    others = [json.loads(x) for x in (other / "chunks.jsonl").read_text("utf-8").splitlines() if x]
    content = [r for r in records if r["text"]]
    merged = [others[i] if i < 10 else content[i] for i in range(len(content))]
    (folder / "chunks.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in merged), "utf-8"
    )


def halve_chunk_times(folder: Path) -> None:
    """chunks.jsonl's times typed as half what was measured."""
    lines = (folder / "chunks.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(x) for x in lines if x.strip()]
    for record in records:
        record["t_ms"] = round(record["t_ms"] / 2, 3)
    (folder / "chunks.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8"
    )


# name -> (what the student did, base folder, edit, checks that catch it)
CASES: dict[str, tuple[str, Path, Callable[[Path], None], list[str]]] = {
    "public_sample_handed_in": (
        "handed in the published sample `correct` as it is",
        SAMPLES / "correct",
        lambda folder: None,
        ["submission.original"],
    ),
    "public_sample_new_times": (
        "handed in the published sample with its times jittered and a new chatcmpl id",
        SAMPLES / "correct",
        jitter_times,
        ["submission.original"],
    ),
    "jittered_times": (
        "jittered every client time by up to 3 % and changed the chatcmpl id",
        REAL / "correct",
        jitter_times,
        ["prefill.in_log|log.one_request_each"],
    ),
    "hand_typed": (
        "typed the JSON files from the lecture's numbers, server.log one `cancel task` line",
        REAL / "correct",
        hand_typed,
        ["log.intact"],
    ),
    "cache_on_hidden": (
        "hid the cache left on: typed the whole prompt sizes into prefill.json",
        REAL / "cache_on_in_prefill",
        hide_cache_on_in_json,
        ["prefill.in_log"],
    ),
    "cache_on_hidden_in_log": (
        "hid the cache left on in prefill.json and in the log's token counts",
        REAL / "cache_on_in_prefill",
        hide_cache_on_in_json_and_log,
        ["log.intact"],
    ),
    "cache_on_hidden_log_lines_deleted": (
        "hid the cache left on in prefill.json and deleted the log's prefill timing lines",
        REAL / "cache_on_in_prefill",
        hide_cache_on_deleting_log_lines,
        ["log.intact"],
    ),
    "open_connection_hidden": (
        "hid the open connection: typed a small slot_idle_after_ms",
        REAL / "no_close_on_cancel",
        hide_no_close,
        ["cancel.in_log"],
    ),
    "open_connection_hidden_cancel_line": (
        "hid the open connection, and appended a `cancel task` line to the log",
        REAL / "no_close_on_cancel",
        hide_no_close_with_cancel_line,
        ["log.intact"],
    ),
    "cache_hit_hidden": (
        "hid the host-memory cache's hit: typed the 12-doc prefill numbers as cache.first",
        REAL / "no_cache_ram_flag",
        hide_no_cache_ram,
        ["cache.in_log|log.one_request_each"],
    ),
    "impossible_prefill": (
        "typed a 1,366-token prefill of 3 ms into prefill.json and the log",
        REAL / "correct",
        faster_prefill_in_json_and_log,
        ["log.intact"],
    ),
    "impossible_prefill_no_time_stamps": (
        "typed a 3 ms prefill into a log without time stamps, its figures recomputed",
        REAL / "correct",
        faster_prefill_without_time_stamps,
        ["log.plausible"],
    ),
    "stitched_runs": (
        "put ttft.json and sentence.json of another run beside this run's files",
        REAL / "correct",
        lambda folder: stitch(folder, REAL / "role_chunk_counted"),
        ["ttft.in_log|log.one_request_each", "sentence.in_log|log.one_request_each"],
    ),
    "stream_of_another_run": (
        "saved sse_raw.txt and chunks.jsonl of another run",
        REAL / "correct",
        lambda folder: stitch(
            folder, REAL / "cache_on_in_prefill", ("sse_raw.txt", "chunks.jsonl")
        ),
        ["sse.in_log"],
    ),
    "two_streams_spliced": (
        "spliced the start of another run's stream into sse_raw.txt",
        REAL / "correct",
        lambda folder: splice_two_streams(folder, REAL / "no_cache_ram_flag"),
        ["sse.one_response"],
    ),
    "chunk_times_typed": (
        "typed chunks.jsonl's times as half what was measured",
        REAL / "correct",
        halve_chunk_times,
        ["chunks.in_stream"],
    ),
    "two_slots_hidden": (
        "ran the server with -np 2 and edited props.json to one slot of 4096",
        UNPUBLISHED / "two_slots",
        hide_two_slots,
        ["log.lab_run"],
    ),
    "sentence_from_a_ttft_run": (
        "did not run the sentence step: sentence.json's times are the third ttft run's",
        REAL / "correct",
        sentence_from_a_ttft_run,
        ["log.one_request_each"],
    ),
    "two_slots_hidden_in_log": (
        "ran the server with -np 2, edited props.json and the log's start-up line to one slot",
        UNPUBLISHED / "two_slots",
        hide_two_slots_in_log,
        ["log.story"],
    ),
    "cancel_typed_over_a_finished_task": (
        "kept the connection open, removed the task's timing block and typed a `cancel task`",
        REAL / "no_close_on_cancel",
        type_cancel_over_finished_task,
        ["log.story"],
    ),
    "cache_hit_rewritten_as_cold": (
        "hid the host cache's hit in cache.first by rewriting its block as a cold prefill",
        REAL / "no_cache_ram_flag",
        hide_no_cache_ram_in_log,
        ["log.story"],
    ),
}


def main() -> None:
    shutil.rmtree(FABRICATED, ignore_errors=True)
    entries: dict[str, dict[str, object]] = {}
    originals: dict[str, str] = {}
    for name, (_, base, edit, catchers) in CASES.items():
        folder = FABRICATED / name
        shutil.copytree(base, folder)
        edit(folder)
        # what else an edit breaks is the edit's business: only its catchers are named
        named = {c for group in catchers for c in group.split("|")}
        others = [c for c in LAB.all_check_ids() if c not in named]
        # every base is a run the project publishes (`checks/runs.json`): with the
        # shipped registry `submission.original` knows it first; its catchers catch it
        # as a student's own run (the tests grade with a registry without their runs)
        must = [f"{c}|submission.original" for c in catchers]
        others = [c for c in others if c != "submission.original"]
        entries[f"fabricated/{name}"] = {"must_fail": must, "may_fail": others}
        originals[name] = base.relative_to(ROOT).as_posix()
    write_expected("fabricated/", entries)
    (FABRICATED / "ORIGINALS.json").write_text(json.dumps(originals, indent=2) + "\n", "utf-8")
    rows = [
        "# Fabricated samples",
        "",
        "Real captures edited the way a student could, to cheat (`scripts/make_fabricated.py`).",
        "Each is caught by the checks named, and none scores more than the honest capture it",
        "was made from (`ORIGINALS.json`). The bases are `tests/data/real/`, which are not",
        "published samples, except where handing in a published sample is the point.",
        "",
        "| case | what the student did | caught by |",
        "|---|---|---|",
    ]
    for name, (what, _, _, catchers) in CASES.items():
        rows.append(f"| `{name}` | {what} | {', '.join(f'`{c}`' for c in catchers)} |")
    (FABRICATED / "README.md").write_text("\n".join(rows) + "\n", "utf-8")


if __name__ == "__main__":
    main()
