"""The lab's physics per student: read from the submissions, kept in `physics.json`.

Results carry checks, not the measured numbers, so the physics charts read them from the
submissions: given the submission folders (`folders`: id -> folder, which the batch
knows), `write_physics` loads the artifacts the lab's `PhysicsSpec` names with the
grader's own strict loader and the lab's schemas (a file that is missing, too big, not
strict JSON or not valid is left out: that student has no mark on that chart) and writes
what it found to `OUT_DIR/physics.json`, so that `grader report OUT_DIR` can draw the
charts later without the folders (archives are extracted only while the batch runs).
The file:

    {"about": "...", "version": 1,
     "submissions": {"<id>": {"prefill": [{"docs", "prompt_n", "prompt_ms", "ttft_ms"}, ...]
                                          or null,
                              "cache": {"first": {"prompt_n", "ttft_ms"}, "second": {...},
                                        "changed_prefix": {...}} or null,
                              "cancel": {"max_tokens", "received_tokens", "closed_at_ms",
                                         "slot_idle_after_ms"} or null}}}

ids sorted, null where the file was missing or invalid. It is read back as strictly (a
malformed entry counts as no data). Writing it again keeps the entries of submissions
whose folders were not given, for ids that still have a result. A lab without a
`PhysicsSpec` has no physics: nothing is extracted and no file is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.class_report.results import (
    RESULT_MAX_BYTES,
    BadShape,
    number_of,
    read_json,
    read_results,
)
from grader.class_report.spec import INSTALLED, PhysicsSpec, lab_of, spec_of

PHYSICS_FILE = "physics.json"
PHYSICS_VERSION = 1


@dataclass(frozen=True)
class PrefillEntry:
    docs: int
    prompt_n: int
    prompt_ms: float
    ttft_ms: float


@dataclass(frozen=True)
class CacheRun:
    prompt_n: int
    ttft_ms: float


@dataclass(frozen=True)
class CancelRun:
    max_tokens: int
    received_tokens: int
    closed_at_ms: float
    slot_idle_after_ms: float


@dataclass(frozen=True)
class Physics:
    """One submission's measured numbers; None where its file was missing or invalid."""

    prefill: tuple[PrefillEntry, ...] | None = None
    cache: dict[str, CacheRun] | None = None
    cancel: CancelRun | None = None


_MAX_PREFILL_ENTRIES = 50
_CACHE_KEYS = ("first", "second", "changed_prefix")


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**12:
        raise BadShape("not a count")
    return value


def _ms(value: Any) -> float:
    number = number_of(value, "time")
    if number < 0:
        raise BadShape("negative time")
    return number


def _prefill_of(value: Any) -> tuple[PrefillEntry, ...] | None:
    try:
        if not isinstance(value, list) or not value:
            return None
        return tuple(
            PrefillEntry(
                _count(e["docs"]), _count(e["prompt_n"]), _ms(e["prompt_ms"]), _ms(e["ttft_ms"])
            )
            for e in value[:_MAX_PREFILL_ENTRIES]
        )
    except (KeyError, TypeError, ValueError):
        return None


def _cache_of(value: Any) -> dict[str, CacheRun] | None:
    try:
        return {
            k: CacheRun(_count(value[k]["prompt_n"]), _ms(value[k]["ttft_ms"])) for k in _CACHE_KEYS
        }
    except (KeyError, TypeError, ValueError):
        return None


def _cancel_of(value: Any) -> CancelRun | None:
    try:
        return CancelRun(
            _count(value["max_tokens"]),
            _count(value["received_tokens"]),
            _ms(value["closed_at_ms"]),
            _ms(value["slot_idle_after_ms"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def physics_of(data: Mapping[str, Any]) -> Physics:
    """`Physics` from plain values ({"prefill": ..., "cache": ..., "cancel": ...}), as the
    lab's files or physics.json hold them; anything malformed becomes None."""
    return Physics(
        _prefill_of(data.get("prefill")),
        _cache_of(data.get("cache")),
        _cancel_of(data.get("cancel")),
    )


def physics_json(physics: Physics) -> dict[str, Any]:
    return {
        "prefill": None
        if physics.prefill is None
        else [
            {"docs": e.docs, "prompt_n": e.prompt_n, "prompt_ms": e.prompt_ms, "ttft_ms": e.ttft_ms}
            for e in physics.prefill
        ],
        "cache": None
        if physics.cache is None
        else {
            k: {"prompt_n": physics.cache[k].prompt_n, "ttft_ms": physics.cache[k].ttft_ms}
            for k in _CACHE_KEYS
        },
        "cancel": None
        if physics.cancel is None
        else {
            "max_tokens": physics.cancel.max_tokens,
            "received_tokens": physics.cancel.received_tokens,
            "closed_at_ms": physics.cancel.closed_at_ms,
            "slot_idle_after_ms": physics.cancel.slot_idle_after_ms,
        },
    }


def _extract(folder: Path | str, artifacts: Mapping[str, Any], spec: PhysicsSpec) -> Physics:
    """The physics of one folder: each part's artifact (`artifacts`: the lab's artifact
    declarations by name) loaded strictly; a file that did not load is None."""
    from grader.limits import DEFAULT_LIMITS
    from grader.loading import load

    values: dict[str, Any] = {}
    for part, name in spec.artifacts.items():
        if name not in artifacts:
            continue
        try:
            artifact = load(artifacts[name], str(folder), DEFAULT_LIMITS)
        except Exception:  # load() never raises; a report must not die for one folder
            continue
        if artifact.status == "valid":
            values[part] = artifact.value
    return physics_of(values)


def extract_physics(folder: Path | str, lab: Any = INSTALLED) -> Physics:
    """The physics of one submission folder: the artifacts its lab's `PhysicsSpec` names,
    loaded by the grader's strict loader and validated by the lab's schemas (`lab`: a `Lab`
    or its "package:attribute" name). Never raises for the folder; a file that did not load
    is None, and a lab without physics gives an empty `Physics`."""
    the_lab = lab_of(lab)
    spec = spec_of(the_lab)
    if spec is None or spec.physics is None:
        return Physics()
    return _extract(folder, {a.name: a for a in the_lab.artifacts}, spec.physics)


def read_physics(out_dir: Path | str) -> dict[str, Physics] | None:
    """`OUT_DIR/physics.json` as id -> Physics, or None when there is no usable file."""
    path = Path(out_dir) / PHYSICS_FILE
    try:
        data = read_json(path, RESULT_MAX_BYTES)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("submissions"), dict):
        return None
    return {
        str(k): physics_of(v) if isinstance(v, dict) else Physics()
        for k, v in data["submissions"].items()
    }


def write_physics(
    out_dir: Path | str, folders: Mapping[str, Path | str | None], lab: Any = INSTALLED
) -> Path | None:
    """Extract the physics of each folder (id -> folder; None: no folder, no data) into
    `OUT_DIR/physics.json`, keeping the entries of other ids that still have a result;
    returns the file's path. One line per submission, ASCII only, ids sorted. A lab
    without physics (`lab`: a `Lab` or its "package:attribute" name) writes nothing and
    returns None."""
    from grader.atomic import write_atomic

    the_lab = lab_of(lab)
    spec = spec_of(the_lab)
    if spec is None or spec.physics is None:
        return None
    artifacts = {a.name: a for a in the_lab.artifacts}
    out = Path(out_dir)
    entries = read_physics(out) or {}
    for result_id, folder in folders.items():
        entries[result_id] = (
            Physics() if folder is None else _extract(folder, artifacts, spec.physics)
        )
    if (out / "results").is_dir():
        students, unreadable = read_results(out)
        ids = {s.id for s in students} | {u.name[: -len(".json")] for u in unreadable}
        entries = {k: v for k, v in entries.items() if k in ids or k in folders}

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))

    files = [
        artifacts[name].filename if name in artifacts else name
        for name in spec.physics.artifacts.values()
    ]
    about = (
        f"Numbers from each submission's {files[0]}, {files[1]} and {files[2]} (files that "
        "loaded and passed their schema; null otherwise), for the class report: grader report "
        "OUT_DIR. Written by grader batch --html."
    )
    rows = ",\n".join(f"  {dump(k)}: {dump(physics_json(entries[k]))}" for k in sorted(entries))
    text = (
        f'{{\n "about": {dump(about)},\n "version": {PHYSICS_VERSION},\n'
        f' "submissions": {{\n{rows}\n }}\n}}\n'
    )
    path = out / PHYSICS_FILE
    write_atomic(str(path), text.encode("ascii"))
    return path
