"""Measure the run fingerprint (`checks/fingerprint.py`) on the real captures.

For every real run this repository holds (the published samples' real captures, the tests'
real data and era runs): the stream rhythm's correlation with every other run's, and how
many keys it shares with every other run; then, for each run, copies re-encoded and
rescaled as a forger would make them (every time x1.012 and re-rounded to 3 decimals, to
0.1 ms, to whole ms; the log's last block dropped; the log appended to another run's) and
how many keys each keeps with its source. Prints the separation.

    PYTHONPATH=$PWD python3 scripts/measure_fingerprints.py
"""

from __future__ import annotations

import json
import re
import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks import fingerprint as fp  # noqa: E402

SKIP = {"derived", "fabricated", "hostile"}


def real_runs() -> dict[str, Path]:
    """Every folder of a real run: the published real captures and the tests' real data."""
    found: dict[str, Path] = {}
    for base in (
        "sample_submissions",
        "tests/data/real",
        "tests/data/unpublished",
        "tests/data/eras/real_runs",
    ):
        for folder in sorted((ROOT / base).iterdir()):
            if folder.is_dir() and folder.name not in SKIP and (folder / "server.log").is_file():
                found[f"{base}/{folder.name}"] = folder
    return found


def text(folder: Path, name: str) -> str | None:
    path = folder / name
    return path.read_text("utf-8", errors="replace") if path.is_file() else None


def times(chunks: str | None) -> list[float]:
    return fp.times_of([json.loads(line) for line in (chunks or "").splitlines() if line.strip()])


NUMBER = re.compile(r"(\d+\.\d+)( ms)")


def rescale_log(log: str, k: float) -> str:
    return NUMBER.sub(lambda m: f"{float(m.group(1)) * k:.2f}{m.group(2)}", log)


def rescale_chunks(chunks: str, k: float, digits: int) -> str:
    out = []
    for line in chunks.splitlines():
        if line.strip():
            record = json.loads(line)
            record["t_ms"] = (
                round(record["t_ms"] * k, digits) if digits else round(record["t_ms"] * k)
            )
            out.append(json.dumps(record, indent=1).replace("\n", ""))
    return "\n".join(out)


def drop_last_block(log: str) -> str:
    lines = log.splitlines()
    at = max(i for i, line in enumerate(lines) if "prompt eval time" in line)
    return "\n".join(lines[:at])


def main() -> None:
    runs = real_runs()
    texts = {name: (text(f, "server.log"), text(f, "chunks.jsonl")) for name, f in runs.items()}
    keys = {name: fp.keys_of_texts(*t) for name, t in texts.items()}
    shapes = {name: fp.gap_shape(times(t[1])) for name, t in texts.items()}
    print(
        f"{len(runs)} real runs; keys per run: "
        f"{min(map(len, keys.values()))}..{max(map(len, keys.values()))}"
    )
    corr = []
    shared = []
    for a, b in combinations(sorted(runs), 2):
        if shapes[a] and shapes[b]:
            corr.append((fp.correlation(shapes[a], shapes[b]), a, b))
        shared.append((fp.shared(keys[a], keys[b]), a, b))
    corr.sort(reverse=True)
    shared.sort(reverse=True)
    print(
        f"independent pairs: {len(shared)}; rhythm correlation max {corr[0][0]:.3f} "
        f"({corr[0][1]} ~ {corr[0][2]}), median {corr[len(corr) // 2][0]:.3f}"
    )
    for n, a, b in shared[:8]:
        print(f"  shares {n} keys: {a} ~ {b}")
    print(f"pairs sharing >= {fp.MIN_SHARED} keys: {sum(n >= fp.MIN_SHARED for n, _, _ in shared)}")
    other = texts[sorted(runs)[0]][0] or ""
    worst: dict[str, tuple[int, str]] = {}
    for name, (log, chunks) in sorted(texts.items()):
        variants = {
            "x1.012, 3 decimals": (
                rescale_log(log or "", 1.012),
                rescale_chunks(chunks or "", 1.012, 3),
            ),
            "x0.93, 0.1 ms": (rescale_log(log or "", 0.93), rescale_chunks(chunks or "", 0.93, 1)),
            "x1.25, whole ms": (
                rescale_log(log or "", 1.25),
                rescale_chunks(chunks or "", 1.25, 0),
            ),
            "last block dropped": (drop_last_block(log or ""), chunks),
            "appended to another log": (other + "\n" + (log or ""), chunks),
        }
        for label, (vlog, vchunks) in variants.items():
            if chunks is None and "ms" in label and "x" in label:
                pass
            n = fp.shared(keys[name], fp.keys_of_texts(vlog, vchunks))
            if label not in worst or n < worst[label][0]:
                worst[label] = (n, name)
            if name.endswith("correct") and name.startswith("sample"):
                c = fp.correlation(shapes[name], fp.gap_shape(times(vchunks)))
                print(f"  correct {label}: {n}/{len(keys[name])} keys kept, rhythm corr {c:.4f}")
    for label, (n, name) in worst.items():
        print(f"copies '{label}': fewest keys kept {n} ({name})")


if __name__ == "__main__":
    main()
