#!/usr/bin/env python3
"""Build the derived sample submissions from the real `correct` capture.

Each derived submission is the real correct run with one change a student could make to
a file, chosen so that it breaks exactly one check (plus the checks skipped because it
failed: those that read a broken file, or whose numbers it confirms). A change is made
only where it stays consistent with the server's own record, or where breaking that
record is the point; mistakes that change what the server did are real captures, not
derived ones. Every number is taken from the source capture, never typed here.

Run from the repository root: `python scripts/make_derived.py`. It rewrites
`sample_submissions/derived/` and the derived entries of `sample_submissions/EXPECTED.json`.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.log_time import restarted_after_prefill  # noqa: E402
from tests.verdicts import SAMPLES, SOURCE, verdict, write_expected  # noqa: E402

DERIVED = SAMPLES / "derived"

Mutation = Callable[[Path], None]


def edit_json(name: str, change: Callable[[object], None]) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / name
        data = json.loads(path.read_text("utf-8"))
        change(data)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")

    return mutate


def edit_text(name: str, change: Callable[[str], str]) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / name
        path.write_text(change(path.read_text("utf-8")), "utf-8")

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(folder: Path) -> None:
        for mutation in mutations:
            mutation(folder)

    return mutate


def _set(path: list[str | int], value: object) -> Callable[[object], None]:
    def change(data: object) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]  # type: ignore[index]
        target[path[-1]] = value  # type: ignore[index]

    return change


def _drop_role_chunk(text: str) -> str:
    first, _, rest = text.partition("\n\n")
    assert '"role"' in first
    return rest


def _drop_last_timings(text: str) -> str:
    lines = text.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if '"timings"' in lines[i]:
            chunk = json.loads(lines[i][len("data: ") :])
            del chunk["timings"]
            lines[i] = "data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False)
            break
    return "\n".join(lines)


def _change_fragment(text: str) -> str:
    lines = text.split("\n")
    record = json.loads(lines[5])
    record["text"] = record["text"] + "!"
    lines[5] = json.dumps(record, ensure_ascii=False)
    return "\n".join(lines)


def _swap_times(text: str) -> str:
    lines = text.split("\n")
    a, b = json.loads(lines[3]), json.loads(lines[4])
    a["t_ms"], b["t_ms"] = b["t_ms"], a["t_ms"]
    lines[3], lines[4] = json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)
    return "\n".join(lines)


def _drop_run(data: object) -> None:
    del data["runs"][3]  # type: ignore[index]


def _source(name: str) -> Any:
    return json.loads((SOURCE / name).read_text("utf-8"))


def _nan_time(text: str) -> str:
    lines = text.split("\n")
    lines[2] = re.sub(r'"t_ms": [0-9.]+', '"t_ms": NaN', lines[2], count=1)
    return "\n".join(lines)


def _total_before_first(data: Any) -> None:
    run = min(data["runs"], key=lambda r: r["total_ms"])  # the median is unchanged
    run["total_ms"] = round(run["ttft_ms"] - 3.5, 3)


def _mean_total(data: Any) -> float:
    return round(sum(r["total_ms"] for r in data["runs"]) / len(data["runs"]), 3)


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


def map_times(folder: Path, change: Callable[[float], float | int]) -> None:
    """Apply `change` to every time the client wrote (every float of the JSON files and
    every t_ms of chunks.jsonl)."""
    for name in JSON_FILES:
        _rewrite_json(folder / name, lambda data: _map_floats(data, change))
    lines = (folder / "chunks.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    (folder / "chunks.jsonl").write_text(
        "".join(json.dumps(_map_floats(r, change), ensure_ascii=False) + "\n" for r in records),
        "utf-8",
    )


def _rewrite_json(path: Path, change: Callable[[Any], Any]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text("utf-8"))), indent=2) + "\n")


def _with_extra_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {**data, "note": "measured on my pod"}
    return [{**entry, "run": index} for index, entry in enumerate(data)]


# -- honest variations ---------------------------------------------------------------------


def round_times(folder: Path, digits: int) -> None:
    """Every time written rounded to `digits` decimals (0: whole ms, written as ints)."""
    map_times(folder, lambda v: round(v) if digits == 0 else round(v, digits))


def add_extra_keys(folder: Path) -> None:
    """Keys the lab does not ask for, in every JSON file."""
    for name in JSON_FILES:
        _rewrite_json(folder / name, _with_extra_keys)


SENTENCE_TEXT = "Bring your insurance card. Also bring a photo ID and a list of medicines."
_LATE = round(_source("sentence.json")["total_ms"] + 41.7, 3)

# name -> (what the student did, mutation, must_fail ids, may_fail ids)
CASES: dict[str, tuple[str, Mutation, list[str], list[str]]] = {
    "rounded_to_0.1_ms": (
        "rounded every time to 0.1 ms (honest: full marks)",
        lambda folder: round_times(folder, 1),
        [],
        [],
    ),
    "rounded_to_whole_ms": (
        "rounded every time to whole ms (honest: full marks)",
        lambda folder: round_times(folder, 0),
        [],
        [],
    ),
    "extra_keys": (
        "added keys of their own to every JSON file (honest: full marks)",
        add_extra_keys,
        [],
        [],
    ),
    "health_not_ok": (
        "saved /health while the model was still loading",
        edit_json("health.json", _set(["status"], "loading model")),
        ["health.ok"],
        [],
    ),
    "sse_py_requests": (
        "wrote the client with requests instead of http.client",
        edit_text("sse.py", lambda s: s.replace("import http.client", "import requests")),
        ["sse_py.static"],
        [],
    ),
    "sse_py_syntax_error": (
        "saved sse.py half-edited (a syntax error)",
        edit_text("sse.py", lambda s: s.replace("def stream(", "def stream(:", 1)),
        ["sse_py.schema"],
        [],
    ),
    "sse_no_role_chunk": (
        "saved the stream without its first line",
        edit_text("sse_raw.txt", _drop_role_chunk),
        ["sse.role_chunk_first"],
        [],
    ),
    "sse_no_done": (
        "stopped writing before data: [DONE]",
        edit_text("sse_raw.txt", lambda s: s[: s.rindex("data: [DONE]")]),
        ["sse.content_streamed"],
        [],
    ),
    "sse_no_timings": (
        "kept the final chunk but not its timings",
        edit_text("sse_raw.txt", _drop_last_timings),
        ["sse.timings_final"],
        [],
    ),
    "chunks_changed_fragment": (
        "edited a fragment in chunks.jsonl",
        edit_text("chunks.jsonl", _change_fragment),
        ["chunks.match_sse"],
        [],
    ),
    "chunks_out_of_order": (
        "wrote fragments with swapped times",
        edit_text("chunks.jsonl", _swap_times),
        ["chunks.time_order"],
        [],
    ),
    "chunks_nan_time": (
        "wrote NaN as a time in chunks.jsonl",
        edit_text("chunks.jsonl", _nan_time),
        ["chunks.schema"],
        [],
    ),
    "ttft_total_before_first": (
        "recorded a total_ms shorter than its ttft_ms",
        edit_json("ttft.json", _total_before_first),
        ["ttft.before_total"],
        [],
    ),
    "ttft_mean_not_median": (
        "wrote the mean instead of the median",
        both(
            edit_json("ttft.json", _set(["total_p50"], _mean_total(_source("ttft.json")))),
            edit_json("report.json", _set(["total_p50_ms"], _mean_total(_source("ttft.json")))),
        ),
        ["ttft.medians"],
        [],
    ),
    "ttft_four_runs": (
        "measured four runs instead of five",
        edit_json("ttft.json", _drop_run),
        ["ttft.tokens"],
        [],
    ),
    "ttft_tokens_as_text": (
        'wrote tokens as a string ("64")',
        edit_json("ttft.json", _set(["runs", 0, "tokens"], "64")),
        ["ttft.schema"],
        [],
    ),
    "prefill_eight_docs": (
        "measured 8 documents instead of 12",
        edit_json("prefill.json", _set([2, "docs"], 8)),
        ["prefill.doc_counts"],
        [],
    ),
    "prefill_ttft_before_prefill": (
        "measured ttft from the response headers, after prefill began",
        edit_json(
            "prefill.json",
            _set([1, "ttft_ms"], round(_source("prefill.json")[1]["prompt_ms"] * 0.92, 3)),
        ),
        ["prefill.ttft_covers_prefill"],
        [],
    ),
    "prefill_numbers_not_in_log": (
        "typed a prompt_n the server never reported",
        edit_json(
            "prefill.json", _set([1, "prompt_n"], _source("prefill.json")[1]["prompt_n"] + 4)
        ),
        ["prefill.in_log"],
        [],
    ),
    "sentence_after_total": (
        "took first_sentence_ms after the end of the stream",
        both(
            edit_json("sentence.json", _set(["first_sentence_ms"], _LATE)),
            edit_json("report.json", _set(["first_sentence_ms"], _LATE)),
        ),
        ["sentence.order"],
        [],
    ),
    "sentence_cut_at_period": (
        "cut the first sentence at the first period without whitespace rule",
        both(
            edit_json("sentence.json", _set(["text"], SENTENCE_TEXT)),
            edit_json("sentence.json", _set(["first_sentence"], SENTENCE_TEXT)),
        ),
        ["sentence.first_sentence_rule"],
        [],
    ),
    "report_typed_number": (
        "typed ttft_12docs_ms into report.json by hand",
        edit_json(
            "report.json",
            _set(["ttft_12docs_ms"], round(_source("report.json")["ttft_12docs_ms"] * 0.96)),
        ),
        ["report.copies_sources"],
        [],
    ),
    "props_html_error_page": (
        "saved an HTML error page as props.json (the server was not up)",
        lambda folder: (folder / "props.json").write_text(
            "<html><body>502 Bad Gateway</body></html>\n"
        ),
        ["props.schema"],
        [],
    ),
    "prefill_no_prompt_ms": (
        "left prompt_ms out of the 4-doc entry",
        edit_json("prefill.json", lambda d: d[1].pop("prompt_ms")),
        ["prefill.schema"],
        ["report.copies_sources"],
    ),
    "sentence_negative_time": (
        "subtracted the times the wrong way round (a negative ttft_ms)",
        edit_json("sentence.json", _set(["ttft_ms"], -_source("sentence.json")["ttft_ms"])),
        ["sentence.schema"],
        ["report.copies_sources"],
    ),
    "report_missing_field": (
        "forgot cancel_idle_ms in report.json",
        edit_json("report.json", lambda d: d.pop("cancel_idle_ms")),
        ["report.schema"],
        [],
    ),
    "health_missing": (
        "forgot to save health.json",
        lambda folder: (folder / "health.json").unlink(),
        ["health.schema"],
        [],
    ),
    "restart_log_overwritten": (
        "restarted the server after step 4; the saved log holds only the new run "
        "(steps 2-4 unconfirmed, not contradicted)",
        edit_text("server.log", restarted_after_prefill),
        ["sse.in_log", "ttft.in_log", "prefill.in_log"],
        [],
    ),
}


def main() -> None:
    shutil.rmtree(DERIVED, ignore_errors=True)
    entries: dict[str, dict[str, object]] = {}
    for name, (_, mutate, must, may) in CASES.items():
        folder = DERIVED / name
        shutil.copytree(SOURCE, folder)
        mutate(folder)
        entries[f"derived/{name}"] = verdict(must, may)
    write_expected("derived/", entries)
    lines = ["| folder | what the student did | must fail |", "|---|---|---|"]
    lines += [
        f"| `derived/{n}` | {what} | {', '.join(f'`{m}`' for m in must) or 'full marks'} |"
        for n, (what, _, must, _m) in CASES.items()
    ]
    readme = SAMPLES / "README.md"
    head = readme.read_text("utf-8").split("| folder | what the student did | must fail |")[0]
    assert "## Derived" in head, "README.md must keep its Derived section"
    readme.write_text(head + "\n".join(lines) + "\n", "utf-8")


if __name__ == "__main__":
    main()
