"""Write `checks/runs.json`: the fingerprint of every run this project has ever published.

A run is known by its fingerprint (`checks/fingerprint.py`), not its bytes, so every
version of every real run the repository has held is registered: the published samples,
the tests' real data (`tests/data/real`, `tests/data/unpublished`, the era runs), and
every earlier version of each in the git history (`git rev-list --all`, every folder of
every commit that holds a `server.log` or a `chunks.jsonl`). Hostile and fabricated
folders are no runs of their own (a fabrication is an edit of a registered run, and is
known by it). The registry only grows: the runs already in it are kept, whatever the
checkout now holds.

    PYTHONPATH=$PWD python3 scripts/make_run_registry.py          # write it
    PYTHONPATH=$PWD python3 scripts/make_run_registry.py --without DIR... --out FILE
        # a registry without the runs of the folders under DIR (each folder holding a
        # server.log): for grading a suite whose captures stand for students' own runs,
        # GRADER_FIRST_TOKEN_RUNS=FILE python3 /work/shared/tools/verdicts.py DIR
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks.fingerprint import keys_of_texts  # noqa: E402
from checks.runs import (  # noqa: E402
    REGISTRY_PATH,
    RUN_FILES,
    is_run_folder,
    without_runs_of,
)


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def blob_text(blob: str) -> str:
    return subprocess.run(
        ["git", "cat-file", "blob", blob], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode("utf-8", errors="replace")


def history_runs() -> dict[tuple[str, ...], str]:
    """(log blob, chunks blob) -> the first folder (in history order) that held it."""
    found: dict[tuple[str, ...], str] = {}
    for commit in reversed(git("rev-list", "--all").split()):
        folders: dict[str, dict[str, str]] = defaultdict(dict)
        for line in git("ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            folder, _, name = path.rpartition("/")
            if name in RUN_FILES and is_run_folder(folder):
                folders[folder][name] = meta.split()[2]
        for folder, blobs in folders.items():
            if "server.log" not in blobs:
                continue
            key = tuple(blobs.get(name, "") for name in RUN_FILES)
            found.setdefault(key, f"{folder}@{commit[:10]}")
    return found


def build() -> dict[str, list[str]]:
    runs: dict[str, list[str]] = {}
    old = REGISTRY_PATH.is_file() and json.loads(REGISTRY_PATH.read_text("utf-8"))["runs"]
    for (log, chunks), name in history_runs().items():
        keys = keys_of_texts(blob_text(log), blob_text(chunks) if chunks else None)
        if keys and keys not in runs.values():
            runs[name] = keys
    # the working tree's runs too (a capture not yet committed is published once it is)
    for base in ("sample_submissions", "tests/data"):
        for log in sorted((ROOT / base).rglob("server.log")):
            folder = log.parent.relative_to(ROOT).as_posix()
            if not is_run_folder(folder):
                continue
            chunks = log.parent / "chunks.jsonl"
            keys = keys_of_texts(
                log.read_text("utf-8", errors="replace"),
                chunks.read_text("utf-8", errors="replace") if chunks.is_file() else None,
            )
            if keys and keys not in runs.values():
                runs[f"{folder}@worktree"] = keys
    if old:  # the registry only grows
        for name, keys in old.items():
            if keys not in runs.values():
                runs[name] = keys
    return dict(sorted(runs.items()))


REFERENCES = "tests/data/real"
"""The lab's reference captures (../shared/fixtures/real byte for byte): the runs a
grader of this lab is judged by, so graded they pass, with a note (`checks.runs`)."""


def json_of(path: Path) -> object:
    """A typed file's value as the grader reads it: a JSON document, or JSON Lines as the
    list of its records."""
    text = path.read_text("utf-8-sig")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def references(runs: dict[str, list[str]]) -> list[dict[str, object]]:
    """Each reference capture: the registered run it is, the sha256 of its measured
    files and the shape of its typed ones (it passes only as itself, its server record
    byte for byte and its typed numbers up to rounding: `checks.runs.is_reference`)."""
    from checks.fingerprint import MIN_SHARED, shared
    from checks.runs import SERVER_RECORD, typed_shape
    from checks.samples import MEASURED, fingerprint

    found: list[dict[str, object]] = []
    for log in sorted((ROOT / REFERENCES).rglob("server.log")):
        chunks = log.parent / "chunks.jsonl"
        keys = keys_of_texts(
            log.read_text("utf-8", errors="replace"),
            chunks.read_text("utf-8", errors="replace") if chunks.is_file() else None,
        )
        for name, known in sorted(runs.items()):
            if shared(known, keys) >= MIN_SHARED:
                typed = {
                    file: typed_shape(json_of(log.parent / file))
                    for file in MEASURED
                    if file not in SERVER_RECORD and (log.parent / file).is_file()
                }
                found.append(
                    {"run": name, "files": fingerprint(log.parent)["files"], "typed": typed}
                )
    return found


def main() -> int:
    if "--without" in sys.argv:
        at = sys.argv.index("--without")
        out = Path(sys.argv[sys.argv.index("--out") + 1])
        roots = [Path(a) for a in sys.argv[at + 1 :] if not a.startswith("--")]
        roots = roots[: roots.index(out)] if out in roots else roots
        folders = [log.parent for root in roots for log in sorted(root.rglob("server.log"))]
        out.write_text(json.dumps({"runs": without_runs_of(folders)}) + "\n", "utf-8")
        return 0
    runs = build()
    text = json.dumps({"runs": runs, "references": references(runs)}, indent=0, sort_keys=True)
    text += "\n"
    if "--check" in sys.argv:
        return 0 if REGISTRY_PATH.read_text("utf-8") == text else 1
    REGISTRY_PATH.write_text(text, "utf-8")
    print(f"{REGISTRY_PATH.relative_to(ROOT)}: {len(runs)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
