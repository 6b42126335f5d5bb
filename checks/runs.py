"""Every run the project has ever published, known by its fingerprint.

`runs.json` holds the keys (`checks/fingerprint.py`) of every real run this repository
has held, in any version (`scripts/make_run_registry.py` walks the git history and only
adds): a submission that shares `MIN_SHARED` keys with one of them hands in that run,
whatever its bytes (re-indented, new ids, lines dropped or added, every time rescaled).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from checks.evidence import agree
from checks.fingerprint import MIN_SHARED
from grader.words.package_data import package_file

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

REGISTRY = "runs.json"
OVERRIDE = "GRADER_FIRST_TOKEN_RUNS"
"""An environment variable naming another registry file to use instead (the project's
own test suite: its real captures stand for students' own runs there, so it grades with
a registry that does not know them, `tests/conftest.py`). A student cannot set the
grader's environment; an instructor never needs to."""
RUN_FILES = ("server.log", "chunks.jsonl")
"""The files a run's fingerprint is made of."""
NO_RUN = frozenset({"hostile", "fabricated"})
"""Folders of samples that are no run of their own (`is_run_folder`)."""
HERE = os.path.dirname(os.path.abspath(__file__))
REGISTRY_PATH: Path


def __getattr__(name: str) -> object:
    if name == "REGISTRY_PATH":  # for the registry's builder: pathlib only there
        from pathlib import Path

        return Path(HERE, REGISTRY)
    raise AttributeError(name)


def is_run_folder(folder: str) -> bool:
    """Whether a folder of the repository (posix, relative) holds a run of its own."""
    return not NO_RUN.intersection(folder.split("/"))


def registry_file() -> str:
    """The registry in use: the shipped one, or the one `OVERRIDE` names."""
    return os.environ.get(OVERRIDE) or package_file("checks", REGISTRY)


def registry() -> dict[str, list[str]]:
    """Run name -> its keys."""
    return _registry(registry_file())


@cache
def _registry(path: str) -> dict[str, list[str]]:
    with open(path, encoding="utf-8") as handle:
        runs: dict[str, list[str]] = json.load(handle)["runs"]
    return runs


SERVER_RECORD = ("server.log", "sse_raw.txt")
"""The files the server wrote (its log, and the stream as it sent it): what makes a run
the run it is. The other files are what the student typed of it."""


def is_reference(name: str, digests: Mapping[str, str | None], typed: Mapping[str, object]) -> bool:
    """Whether a submission whose run is the registered run `name`, whose measured files
    have these sha256 `digests` and whose typed files hold these parsed values `typed`
    hands in one of the lab's reference captures as it is (`tests/data/real`, which the
    lab's shared fixtures hold byte for byte): the runs a grader of this lab is judged
    by, which stand for a student's own run. It passes `submission.original` with a note,
    and the class report flags it as strongly as a published sample.

    As it is: the server record byte for byte, and every typed file the reference's
    up to how it is written (`same_typed`: reformatted, every number rounded however
    far). A reference whose server record was edited (re-timed, lines dropped or
    typed), or whose typed numbers were changed (a mistake mended from the log), is a
    published run laundered, and fails: an edit of a capture never outscores it."""
    return any(
        entry["run"] == name
        and all(digests.get(file) == entry["files"].get(file) for file in SERVER_RECORD)
        and all(
            same_typed(shape, typed.get(file)) for file, shape in entry.get("typed", {}).items()
        )
        for entry in _references(registry_file())
    )


def typed_shape(value: object) -> dict[str, Any]:
    """What a typed file of a reference is, written however: the sha256 of its JSON with
    every number made 0 (its keys, strings and structure) and its numbers in order."""
    numbers: list[float] = []

    def skeleton(item: object) -> object:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if isinstance(item, (int, float)):
            numbers.append(item)
            return 0
        if isinstance(item, list):
            return [skeleton(v) for v in item]
        if isinstance(item, dict):
            return {str(k): skeleton(v) for k, v in sorted(item.items())}
        return repr(item)

    text = json.dumps(skeleton(value), ensure_ascii=False, separators=(",", ":"))
    return {"skeleton": hashlib.sha256(text.encode("utf-8")).hexdigest(), "numbers": numbers}


def same_typed(reference: Mapping[str, Any], value: object) -> bool:
    """Whether `value` is a reference's typed file (`typed_shape`) up to rounding: the same
    skeleton, and each number the reference's as both are written (`checks.evidence.agree`:
    12.3 stands for anything from 12.25 to 12.35; 12 for 11.5 to 12.5)."""
    if value is None:
        return False
    shape = typed_shape(value)
    if shape["skeleton"] != reference["skeleton"]:
        return False
    ours, theirs = shape["numbers"], reference["numbers"]
    return len(ours) == len(theirs) and all(agree(a, b) for a, b in zip(ours, theirs, strict=True))


@cache
def _references(path: str) -> tuple[dict[str, Any], ...]:
    with open(path, encoding="utf-8") as handle:
        return tuple(json.load(handle).get("references", ()))


@cache
def _index(path: str) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for name, keys in _registry(path).items():
        for key in keys:
            index.setdefault(key, []).append(name)
    return {key: tuple(names) for key, names in index.items()}


def known_run(keys: Sequence[str]) -> tuple[str, int] | None:
    """The published run that shares the most keys with `keys`, and how many, when it
    shares `MIN_SHARED` or more; found through the keys' index, never by comparing runs."""
    index = _index(registry_file())
    counts: Counter[str] = Counter()
    for key in set(keys):
        counts.update(index.get(key, ()))
    if not counts:
        return None
    name, shared = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return (name, shared) if shared >= MIN_SHARED else None


def without_runs_of(folders: Sequence[Path]) -> dict[str, list[str]]:
    """The registry in use without every run that shares `MIN_SHARED` keys with a run of
    one of `folders` (for a suite whose own real captures stand for students' own runs:
    the project's tests, `verdicts.py` on its fixtures)."""
    from checks.fingerprint import keys_of_texts, shared

    def text(path: Path) -> str | None:
        return path.read_text("utf-8", errors="replace") if path.is_file() else None

    own = [keys_of_texts(text(f / "server.log"), text(f / "chunks.jsonl")) for f in folders]
    return {
        name: keys
        for name, keys in registry().items()
        if not any(shared(keys, mine) >= MIN_SHARED for mine in own)
    }


def preload() -> None:
    """Read the registry in use now, before a grade's sandbox confines reading to the
    submission and the package (an `OVERRIDE` file is outside both)."""
    _index(registry_file())


if os.environ.get(OVERRIDE):
    preload()
