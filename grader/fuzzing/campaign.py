"""A fuzzing campaign: cases one after another, counted, the failing ones saved.

`run_in_process` runs a campaign in this process, with `SIGALRM` as its watchdog;
`grader.fuzzing.parallel` runs one on worker processes. Either way a `Campaign` counts
the outcomes by kind and by signature (what most likely is one bug) and saves each
failing case (the mutant, its notes, its results) under `out`, at most `save_cap` per
signature.
"""

from __future__ import annotations

import re
import shutil
import signal
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grader.fuzzing.files import State, write_submission
from grader.fuzzing.runner import CaseRunner, Outcome, WatchdogTimeout
from grader.fuzzing.target import Target, make_case

if TYPE_CHECKING:
    from types import FrameType

DEFAULT_WATCHDOG = 30.0
"""A case still running after this many seconds is killed and counted as a hang."""
DEFAULT_SAVE_CAP = 50
"""Failing cases saved per distinct failure signature (all are counted)."""
_DIGITS = re.compile(r"\d+")


def signature(outcome: Outcome, kind: str) -> str:
    """Groups failing cases that are most likely one bug."""
    if kind == "crash":
        return outcome.crash_signature or "crash"
    if kind == "hang":
        # "file: mutation"; when some mutation made a file big, that one is the likely cause
        named = sorted({m.split(" (")[0] for m in outcome.mutations})
        big = [m for m in named if m.split(": ", 1)[-1].startswith("amplify")]
        return ("killed: " if outcome.killed else "slow: ") + " + ".join(big or named)
    if kind == "invalid":
        text = re.sub(r"'[^']*'", "'...'", outcome.invalid or "")
        return re.sub(r"/\d+(?=/|\b)", "/N", text)[:160]
    if kind == "nondeterministic":
        return _DIGITS.sub("N", (outcome.nondeterministic or "").split(":")[0])
    if kind == "fuzzer_error":
        lines = (outcome.fuzzer_error or "").strip().splitlines()
        return lines[-1][:160] if lines else "fuzzer error"
    if kind == "check_error":
        return _DIGITS.sub("N", outcome.check_errors[0])[:160]
    return _DIGITS.sub("N", outcome.parser_fallbacks[0])[:160]


@dataclass
class Summary:
    seed: int
    cases: int = 0
    crashes: int = 0
    hangs: int = 0
    invalid: int = 0
    nondeterministic: int = 0
    check_errors: int = 0
    parser_fallbacks: int = 0
    fuzzer_errors: int = 0
    seconds: float = 0.0
    jobs: int = 1
    slowest: tuple[float, int] = (0.0, -1)
    grade_seconds: float = 0.0
    grades: int = 0
    signatures: dict[str, Counter[str]] = field(default_factory=dict)
    examples: dict[tuple[str, str], int] = field(default_factory=dict)
    saved: list[Path] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)

    @property
    def failures(self) -> int:
        return self.crashes + self.hangs + self.invalid + self.nondeterministic

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds > 0 else 0.0


class Campaign:
    """Counts outcomes and saves failing cases; the same for one process or many."""

    def __init__(
        self,
        target: Target,
        seed: int,
        seeds: dict[str, dict[str, State]],
        out: Path | None,
        save_cap: int = DEFAULT_SAVE_CAP,
        jobs: int = 1,
    ) -> None:
        self.target = target
        self.seed = seed
        self.seeds = seeds
        self.out = out
        self.save_cap = save_cap
        self.summary = Summary(seed=seed, jobs=jobs)
        self.started = time.perf_counter()

    def record(self, outcome: Outcome) -> None:
        s = self.summary
        s.cases += 1
        s.crashes += outcome.crash is not None
        s.hangs += outcome.hang
        s.invalid += outcome.invalid is not None
        s.nondeterministic += outcome.nondeterministic is not None
        s.check_errors += bool(outcome.check_errors)
        s.parser_fallbacks += bool(outcome.parser_fallbacks)
        s.fuzzer_errors += outcome.fuzzer_error is not None
        s.grades += len(outcome.seconds)
        s.grade_seconds += sum(outcome.seconds)
        slowest = max(outcome.seconds, default=0.0)
        if slowest > s.slowest[0]:
            s.slowest = (slowest, outcome.index)
        if outcome.digest:
            s.digests[outcome.index] = outcome.digest
        for kind in outcome.kinds():
            sig = signature(outcome, kind)
            count = s.signatures.setdefault(kind, Counter())
            count[sig] += 1
            s.examples.setdefault((kind, sig), outcome.index)
            if self.out is not None and (self.save_cap <= 0 or count[sig] <= self.save_cap):
                self.save(outcome, kind, sig)
        s.seconds = time.perf_counter() - self.started

    def save(self, outcome: Outcome, kind: str, sig: str) -> None:
        assert self.out is not None
        target = self.out / kind / f"seed{self.seed}-case{outcome.index:07d}"
        if target.exists():
            shutil.rmtree(target)
        case = make_case(self.target, self.seeds, self.seed, outcome.index)
        write_submission(target / "submission", case.files)
        notes = [
            f"kind: {kind}",
            f"signature: {sig}",
            f"replay: {self.target.replay} --seed {self.seed} --replay {outcome.index}",
            f"seed submission: {self.target.seeds_root.name}/{outcome.seed_name}",
            "mutations:",
            *(f"  - {m}" for m in outcome.mutations),
            "grade seconds: " + (", ".join(f"{s:.3f}" for s in outcome.seconds) or "-"),
        ]
        if outcome.killed:
            notes.append("killed by the watchdog (the case never finished)")
        if outcome.crash:
            notes += ["", "traceback:", outcome.crash]
        if outcome.invalid:
            notes += ["", f"invalid result: {outcome.invalid}"]
        if outcome.nondeterministic:
            notes += ["", f"nondeterministic: first difference at {outcome.nondeterministic}"]
        if outcome.check_errors:
            notes += ["", "checks with status error:", *(f"  - {e}" for e in outcome.check_errors)]
        if outcome.parser_fallbacks:
            notes += ["", "parser fallbacks:", *(f"  - {e}" for e in outcome.parser_fallbacks)]
        if outcome.fuzzer_error:
            notes += ["", "error in the fuzzer itself (not the grader):", outcome.fuzzer_error]
        # a result may hold lone surrogates (that is a finding): written as \udXXX escapes
        (target / "notes.txt").write_text("\n".join(notes) + "\n", "utf-8", "backslashreplace")
        for number, text in enumerate(outcome.results, start=1):
            path = target / f"result-{number}.json"
            path.write_text(text, "utf-8", "backslashreplace")
        self.summary.saved.append(target)


def safe_run(runner: CaseRunner, index: int) -> Outcome:
    """`runner.run(index)`, with the fuzzer's own errors reported instead of raised."""
    try:
        return runner.run(index)
    except Exception:  # grade's exceptions are caught in run_case: this is a fuzzer bug
        runner.forget()
        return Outcome(index, "?", (), fuzzer_error=traceback.format_exc())


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise WatchdogTimeout()


def run_in_process(
    target: Target,
    cases: int | None,
    seed: int = 0,
    *,
    seconds: float | None = None,
    out: Path | None = None,
    watchdog: float = DEFAULT_WATCHDOG,
    save_cap: int = DEFAULT_SAVE_CAP,
    progress: Callable[[Summary], None] | None = None,
) -> Summary:
    """Run a campaign in this process (no workers); the watchdog is `SIGALRM` when usable."""
    seeds = target.seeds()
    campaign = Campaign(target, seed, seeds, out, save_cap)
    use_alarm = hasattr(signal, "setitimer") and _in_main_thread()
    previous = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
            runner = CaseRunner(target, seed, Path(tmp), seeds)
            for index in indexes(cases):
                if deadline is not None and time.perf_counter() > deadline:
                    break
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, watchdog)
                try:
                    outcome = safe_run(runner, index)
                except WatchdogTimeout:
                    case = make_case(target, seeds, seed, index)
                    outcome = Outcome(index, case.seed_name, case.mutations, killed=True)
                    runner.forget()
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                campaign.record(outcome)
                if progress is not None:
                    progress(campaign.summary)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    campaign.summary.seconds = time.perf_counter() - campaign.started
    return campaign.summary


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def indexes(cases: int | None) -> Iterator[int]:
    index = 0
    while cases is None or index < cases:
        yield index
        index += 1
