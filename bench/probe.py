"""In-process measurements, run by `bench/run.py` with the bench venv's interpreter.

This file is run as a script (`venv/bin/python bench/probe.py KIND ...`), so what it
imports is the installed grader, never the checkout's (its own folder, `bench/`, holds
no package of the grader). Each kind prints one JSON object on stdout.

- `phases DIR REPEAT`: one submission, warm, per phase: load (read, parse, validate),
  checks, the whole `grade`, rendering JSON and text.
- `validation DIR REPEAT`: the submission's JSON instances (`instances`) validated by the
  lab's schemas as the grader does (its fast path) and by jsonschema's validator.
- `grade DIR`: one cold grade of DIR in this fresh process: seconds, the bytes its
  artifacts hold, and the peak resident memory before and after (VmHWM).
- `growth KIND N...`: parse time of an sse_raw.txt of N events, or of a server.log of N
  lines, with the lab's caps raised out of the way.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def _hwm_kib() -> int:
    """The process's peak resident memory so far (VmHWM), in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _lab() -> tuple[Any, Any]:
    from grader.engine.labs import choose
    from grader.engine.rubric import load_lab_rubric

    lab = choose(None)
    return lab, load_lab_rubric(lab, None)


def instances(folder: Path) -> list[tuple[str, Any]]:
    """Every JSON instance of a submission, with the schema it is valid against: the
    eight JSON documents, each line of chunks.jsonl, each `data:` event of sse_raw.txt
    but the final `[DONE]` (138 for the real correct capture: 8 + 64 + 66)."""
    documents = ("health", "props", "ttft", "prefill", "cache", "sentence", "cancel", "report")
    found = [(n, json.loads((folder / f"{n}.json").read_text("utf-8"))) for n in documents]
    for line in (folder / "chunks.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            found.append(("chunks_record", json.loads(line)))
    for line in (folder / "sse_raw.txt").read_text("utf-8").splitlines():
        if line.startswith("data: ") and line[6:].strip() != "[DONE]":
            found.append(("sse_chunk", json.loads(line[6:])))
    return found


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def phases(folder: str, repeat: int) -> dict[str, Any]:
    from grader.engine.grade import catalog_for, grade, load_artifacts
    from grader.engine.runner import run_checks
    from grader.render import RenderOptions, renderer

    lab, rubric = _lab()
    limits = rubric.make_limits(lab.limits)
    catalog = catalog_for(lab, "en")
    options = RenderOptions(catalog)
    json_render, text_render = renderer("json"), renderer("text")
    result = grade(lab, folder, rubric)
    json_render(result, options), text_render(result, options)  # warm: catalogs, validators
    samples: dict[str, list[float]] = {
        k: [] for k in ("load", "checks", "grade", "render json", "render text")
    }
    for _ in range(repeat):
        t0 = time.perf_counter()
        artifacts = load_artifacts(lab, folder, {}, limits)
        t1 = time.perf_counter()
        run_checks(lab, artifacts, rubric.settings(), os.path.abspath(folder))
        t2 = time.perf_counter()
        result = grade(lab, folder, rubric)
        t3 = time.perf_counter()
        json_render(result, options)
        t4 = time.perf_counter()
        text_render(result, options)
        t5 = time.perf_counter()
        spans = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
        for key, seconds in zip(samples, spans, strict=True):
            samples[key].append(seconds)
    return samples


def validation(folder: str, repeat: int) -> dict[str, Any]:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    lab, _ = _lab()
    schemas = lab.schemas
    found = instances(Path(folder))
    registry = Registry().with_resources(
        (sid, Resource.from_contents(s)) for sid, s in schemas.by_id().items()
    )
    validators = {n: Draft202012Validator(schemas.load(n), registry=registry) for n, _ in found}
    for name, value in found:  # warm both: compiled once per process
        assert not schemas.validate(name, value), name
        assert validators[name].is_valid(value), name
    ours, theirs = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        for name, value in found:
            schemas.validate(name, value)
        middle = time.perf_counter()
        for name, value in found:
            validators[name].is_valid(value)
        ours.append(middle - start)
        theirs.append(time.perf_counter() - middle)
    return {"instances": len(found), "grader": ours, "jsonschema": theirs}


def grade_once(folder: str) -> dict[str, Any]:
    from grader.engine.grade import grade

    lab, rubric = _lab()
    before = _hwm_kib()
    start = time.perf_counter()
    result = grade(lab, folder, rubric)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "bytes": sum(a.bytes or 0 for a in result.artifacts),
        "hwm_before_kib": before,
        "hwm_after_kib": _hwm_kib(),
        "statuses": {a.name: a.status for a in result.artifacts},
    }


def growth(kind: str, counts: list[int], source: str) -> dict[str, Any]:
    from grader.reading.limits import Limits

    lab, _ = _lab()
    spec = next(a for a in lab.artifacts if a.filename == kind)
    caps = {**lab.limits, "sse_events": 10**8, "log_lines": 10**9, "log_bytes": 1 << 31}
    limits = Limits(file_bytes=1 << 31, submission_bytes=1 << 32, lab=caps)
    text = Path(source, kind).read_text("utf-8")
    rows = []
    for count in counts:
        big = _grown(kind, text, count)
        samples = []
        for _ in range(max(1, min(20, 200_000 // count))):
            start = time.perf_counter()
            spec.parser(big, kind, limits)
            samples.append(time.perf_counter() - start)
        rows.append({"count": count, "bytes": len(big.encode()), "seconds": min(samples)})
    return {"rows": rows}


def _grown(kind: str, text: str, count: int) -> str:
    """`text` (a real file) made `count` events or lines long, by repeating its middle."""
    if kind == "sse_raw.txt":
        events = text.split("\n\n")
        return events[0] + "\n\n" + (events[1] + "\n\n") * (count - 2) + "data: [DONE]\n"
    lines = text.splitlines(keepends=True)
    return "".join(lines[i % len(lines)] for i in range(count))


def main(argv: list[str]) -> int:
    kind, *args = argv
    if kind == "phases":
        out = phases(args[0], int(args[1]))
    elif kind == "validation":
        out = validation(args[0], int(args[1]))
    elif kind == "grade":
        out = grade_once(args[0])
    elif kind == "growth":
        out = growth(args[0], [int(a) for a in args[2:]], args[1])
    else:
        raise SystemExit(f"unknown probe {kind!r}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
