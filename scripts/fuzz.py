#!/usr/bin/env python3
"""Mutation fuzzer for the grader: break real captures at random and grade the wreckage.

The grader promises to be a pure function from a folder to a `Result`: it never raises
(except `NotGradable` for a missing folder), always gives a result valid against
`grader/schemas/result.schema.json`, and gives the same bytes for the same input. This script
tests those promises on mutants of the real captures in `sample_submissions/`:

    python scripts/fuzz.py --cases N [--seed S] [--seconds T] [--out DIR] [--jobs J]

For each case one real capture is taken as the seed, 1-3 random mutations are applied to
its artifact files (byte flips, truncation, JSON key deletion, type swaps, extreme numbers,
SSE framing changes, log garbage, non-Python `sse.py`, a file replaced by a directory,
UTF-16, ...), and the mutant is graded twice in-process. The outcome is one of:

- crash: an exception escaped `grade` (or a worker process died);
- hang: one `grade` call took more than 1 s of wall time (measured, not interrupted), or
  the case was killed by the hard watchdog (`--watchdog`, default 30 s);
- invalid: the result's JSON is not strict JSON or not valid against the result schema;
- nondeterministic: the two grades of the same mutant gave different JSON bytes.

Checks that end with status `error` (a check's exception, caught by the engine) and files
the loader could only call "unparseable" (a parser's exception, caught by the loader) are
not failures of the promises above, but they are bugs in `checks/` or `grader/`; they are
counted and saved as well (as information; they don't change the exit status).

Mutants are a function of (--seed, case index) only, so a run is reproducible and one case
can be replayed with `--replay INDEX`. Grading twice in one process cannot see a result that
depends on the hash seed; for that, run twice with different `PYTHONHASHSEED` values and
`--digests FILE` (a hash of every result, submission path left out) and compare the files.

Failing cases are saved under --out (default `fuzz-failures/`), one folder per case: the
mutated submission and `notes.txt` (seed, mutations, traceback or difference, timings), at
most --save-cap per distinct failure (all are counted). The exit status is 1 when any of
crashes, hangs, invalid or nondeterministic results (or an error of this script) is
non-zero, else 0.

The fuzzer is `grader.fuzzing` (generic: cases, runner, campaigns, report) with this
lab's `checks.mutators:TARGET` (its seeds and its formats' mutations); this script is
its command line. `tests/test_fuzz_sample.py` runs a short fixed-seed sample in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader.fuzzing import (  # noqa: E402
    DEFAULT_SAVE_CAP,
    DEFAULT_WATCHDOG,
    progress_printer,
    replay,
    report,
    run_parallel,
    target_of,
)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, help="number of cases (default: until --seconds)")
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--seconds", type=float, help="stop starting cases after this long")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"), help="failing cases")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--watchdog", type=float, default=DEFAULT_WATCHDOG, help="kill after s")
    parser.add_argument(
        "--save-cap", type=int, default=DEFAULT_SAVE_CAP, help="cases saved per signature (0: all)"
    )
    parser.add_argument("--replay", type=int, metavar="INDEX", help="grade one case and explain")
    parser.add_argument("--digests", type=Path, help="write 'index digest' of every result here")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--target",
        default="checks.mutators:TARGET",
        help="the lab's fuzzing Target, as package.module:ATTRIBUTE (default: this lab's)",
    )
    args = parser.parse_args(None if argv is None else list(argv))
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    target = target_of(args.target)
    if args.replay is not None:
        return replay(target, args.seed, args.replay, args.out)
    if args.cases is None and args.seconds is None:
        parser.error("give --cases, --seconds or both")
    progress = None if args.quiet else progress_printer(10.0)
    summary = run_parallel(
        args.target,
        args.cases,
        args.seed,
        jobs=args.jobs,
        seconds=args.seconds,
        out=args.out,
        watchdog=args.watchdog,
        save_cap=args.save_cap,
        progress=progress,
    )
    print(report(summary, args.out))
    if args.digests is not None:
        args.digests.write_text(
            "".join(f"{i} {d}\n" for i, d in sorted(summary.digests.items())), "utf-8"
        )
    return 1 if summary.failures or summary.fuzzer_errors else 0


if __name__ == "__main__":
    sys.exit(main())
