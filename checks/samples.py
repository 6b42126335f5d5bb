"""The public samples, known by their bytes: a submission must not be one of them.

Every real and derived sample this project publishes is a complete, self-consistent lab
run: handed in as it is (or with new client times), every check it was built to pass
passes. So the grader knows them. `samples.json` holds, for each sample, the sha256 of
its measured files and the chatcmpl ids of its stream; it is generated from
`sample_submissions/` by `scripts/make_sample_registry.py` and a test fails when it is
out of date. `props.json`, `health.json` and `sse.py` are legitimately identical across
honest runs (the same server, the same lab client) and are not counted.

A sample graded in its own published folder is that sample, and passes as itself; the
folder is compared as named, never resolved, so a link to a sample is not the sample.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from grader.words.package_data import package_file

if TYPE_CHECKING:  # pathlib is for the registry's builder: `grader check` never imports it
    from pathlib import Path
    from typing import Any

MEASURED = (
    "sse_raw.txt",
    "chunks.jsonl",
    "ttft.json",
    "prefill.json",
    "cache.json",
    "sentence.json",
    "cancel.json",
    "report.json",
    "server.log",
)
"""The files a run measures: no two honest runs share one of them byte for byte."""
MIN_BYTES = 64
"""Smaller files are too small to be a fingerprint of a run."""
REGISTRY = "samples.json"
SAMPLE_FOLDERS = ("samples", "../sample_submissions")
"""Where the published samples live, relative to this package: the copy a wheel ships
(pyproject maps `sample_submissions/` to `checks/samples/`), then a checkout's folder.
The lab declares the same (`Lab.samples`), so `grader check --sample` finds them."""
HERE = os.path.dirname(os.path.abspath(__file__))


def samples_root() -> Path:
    """Where the published samples live in a source checkout (what the registry is built
    from)."""
    from pathlib import Path

    return Path(HERE, SAMPLE_FOLDERS[1]).resolve()


def stream_ids(text: str) -> list[str]:
    """The chatcmpl ids of a saved stream, in order, each once (no SSE parse: ids are
    found as llama-server writes them, `"id":"chatcmpl-..."`)."""
    found: list[str] = []
    for part in text.split('"id":"chatcmpl-')[1:]:
        ident = "chatcmpl-" + part.split('"', 1)[0]
        if ident not in found and len(ident) <= 80:
            found.append(ident)
    return found


def fingerprint(folder: Path) -> dict[str, Any]:
    """sha256 of each measured file of a sample folder, and its stream's chatcmpl ids."""
    files: dict[str, str] = {}
    for name in MEASURED:
        path = folder / name
        if path.is_file() and path.stat().st_size >= MIN_BYTES:
            files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    raw = folder / "sse_raw.txt"
    ids = stream_ids(raw.read_text("utf-8", errors="replace")) if raw.is_file() else []
    return {"files": files, "ids": ids}


def build_registry(root: Path) -> dict[str, Any]:
    """The registry of every sample folder under `root` (a folder holding one of the lab's
    files), keyed by its path relative to `root`. Hostile samples are known by their
    folder (graded in place they are themselves) but not by their bytes: they are not
    runs, and their odd files could collide with a student's broken one."""
    samples: dict[str, Any] = {}
    folders = {
        p.parent for name in ("server.log", "ttft.json", "health.json") for p in root.rglob(name)
    }
    for folder in sorted(folders):
        relative = folder.relative_to(root).as_posix()
        if relative.split("/")[0] == "fabricated":
            continue  # fabrications are graded as a student's submission, not as samples
        hostile = relative.split("/")[0] == "hostile"
        samples[relative] = {"files": {}, "ids": []} if hostile else fingerprint(folder)
    return {"samples": samples}


@cache
def _registry_text() -> str:
    with open(package_file("checks", REGISTRY), encoding="utf-8") as handle:
        return handle.read()


@cache
def registry() -> dict[str, Any]:
    """The shipped registry: sample name -> {"files": {file: sha256}, "ids": [...]}."""
    samples: dict[str, Any] = json.loads(_registry_text())["samples"]
    return samples


def may_share(values: Iterable[str]) -> bool:
    """False when none of `values` (a submission's digests and stream ids) is anywhere in
    the registry: the submission then shares nothing with any sample, which is nearly
    every submission. That is found by searching the registry's text, not by parsing it
    into sets (≈2.7 M instructions, 1 % of a cold `grader check`). The registry is written
    by `json.dumps` with its default escaping (`scripts/make_sample_registry.py`), so a
    value in it appears in its text exactly as `json.dumps(value)`; True only says to
    look in the parsed registry, which tells whose file or id it is, if anyone's."""
    text = _registry_text()
    return any(json.dumps(value) in text for value in values)


@cache
def _sample_roots() -> tuple[str, ...]:
    return tuple(os.path.normpath(os.path.join(HERE, relative)) for relative in SAMPLE_FOLDERS)


def sample_at(folder: str) -> str | None:
    """The sample whose published folder `folder` is (as named, not resolved), if any."""
    if not folder:
        return None
    here = os.path.normpath(os.path.abspath(folder))
    for root in _sample_roots():
        name = os.path.relpath(here, root).replace(os.sep, "/")
        # a folder outside the root (nearly every one) is no sample's: no registry needed
        if name.partition("/")[0] != ".." and name in registry():
            return name
    return None
