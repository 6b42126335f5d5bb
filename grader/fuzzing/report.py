"""What a fuzzing campaign says: its table, its report by kind and signature, the replay
of one case, and progress lines."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grader.fuzzing.campaign import Summary
from grader.fuzzing.files import write_submission
from grader.fuzzing.runner import FAILURE_KINDS, INFO_KINDS, CaseRunner
from grader.fuzzing.target import Target, make_case


def table(summary: Summary) -> str:
    headers = ("cases", "crashes", "hangs", "invalid", "nondeterministic", "seconds", "cases/s")
    values = (
        str(summary.cases),
        str(summary.crashes),
        str(summary.hangs),
        str(summary.invalid),
        str(summary.nondeterministic),
        f"{summary.seconds:.1f}",
        f"{summary.rate:.1f}",
    )
    widths = [max(len(h), len(v)) for h, v in zip(headers, values, strict=True)]
    line = "  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))
    row = "  ".join(v.rjust(w) for v, w in zip(values, widths, strict=True))
    return f"{line}\n{row}"


def report(summary: Summary, out: Path | None) -> str:
    lines = [table(summary), ""]
    per_job = summary.rate / max(summary.jobs, 1)
    mean_ms = 1000 * summary.grade_seconds / summary.grades if summary.grades else 0.0
    lines.append(
        f"seed {summary.seed}, {summary.jobs} job(s): {per_job:.1f} cases/s per job, "
        f"{mean_ms:.1f} ms per grade on average, slowest grade {summary.slowest[0]:.3f} s "
        f"(case {summary.slowest[1]})"
    )
    lines.append(
        f"information (not failures): {summary.check_errors} case(s) with a check in status "
        f"error, {summary.parser_fallbacks} with a parser fallback (file.unparseable)"
    )
    if summary.fuzzer_errors:
        lines.append(f"ERRORS IN THE FUZZER ITSELF: {summary.fuzzer_errors} case(s); see below")
    for kind in (*FAILURE_KINDS, *INFO_KINDS):
        found = summary.signatures.get(kind)
        if not found:
            continue
        lines.append(f"{kind}: {len(found)} distinct")
        for sig, count in found.most_common():
            example = summary.examples[(kind, sig)]
            lines.append(f"  {count:6d} x {sig}  (e.g. --replay {example})")
    if summary.saved and out is not None:
        lines.append(f"saved {len(summary.saved)} case folder(s) under {out}/")
    return "\n".join(lines)


def replay(target: Target, seed: int, index: int, out: Path | None) -> int:
    """Grade one case in-process and show what happened; the mutant is written to `out`."""
    seeds = target.seeds()
    case = make_case(target, seeds, seed, index)
    print(f"case {index} of seed {seed}, from {target.seeds_root.name}/{case.seed_name}:")
    for line in case.mutations:
        print(f"  - {line}")
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        outcome = CaseRunner(target, seed, Path(tmp), seeds).run_case(case)
    if out is not None:
        where = out / "replay" / f"seed{seed}-case{index:07d}"
        if where.exists():
            shutil.rmtree(where)
        write_submission(where, case.files)
        print(f"mutant written to {where}")
    print("grade seconds: " + ", ".join(f"{s:.3f}" for s in outcome.seconds))
    for kind in outcome.kinds() or ["ok"]:
        print(f"outcome: {kind}")
    if outcome.crash:
        print(outcome.crash)
    for text in (outcome.invalid, outcome.nondeterministic):
        if text:
            print(text)
    for text in (*outcome.check_errors, *outcome.parser_fallbacks):
        print(f"  {text}")
    failed = [k for k in outcome.kinds() if k in FAILURE_KINDS]
    return 1 if failed else 0


def progress_printer(every: float) -> Callable[[Summary], None]:
    last = [time.perf_counter()]

    def show(summary: Summary) -> None:
        now = time.perf_counter()
        if now - last[0] >= every:
            last[0] = now
            print(
                f"[{summary.seconds:7.1f}s] {summary.cases} cases, {summary.rate:.1f}/s, "
                f"{summary.failures} failing, {summary.check_errors} check errors",
                file=sys.stderr,
                flush=True,
            )

    return show
