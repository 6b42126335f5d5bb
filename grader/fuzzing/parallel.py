"""A fuzzing campaign on worker processes, each grading in its own temporary folder.

Unlike the batch's pool (`grader.batch.pool`), a case here may hang on purpose: the
parent hands out one case at a time and kills a worker whose case outlives the
watchdog, then replaces it; a worker that dies is a crash of its case.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.fuzzing.campaign import (
    DEFAULT_SAVE_CAP,
    DEFAULT_WATCHDOG,
    Campaign,
    Summary,
    indexes,
    safe_run,
)
from grader.fuzzing.files import State
from grader.fuzzing.runner import CaseRunner, Outcome
from grader.fuzzing.target import Target, make_case

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess


def target_of(target: Target | str) -> Target:
    """A `Target`, given one or its "package.module:ATTRIBUTE" (loaded by `grader.engine.labs`)."""
    if isinstance(target, Target):
        return target
    from grader.engine.labs import attribute

    found = attribute(target)
    if not isinstance(found, Target):
        raise TypeError(f"{target} is a {type(found).__name__}, not a fuzzing Target")
    return found


def _worker_main(
    conn: Connection,
    target: Target | str,
    seed: int,
    folder: str,
    seeds: dict[str, dict[str, State]],
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    runner = CaseRunner(target_of(target), seed, Path(folder), seeds)
    while True:
        index = conn.recv()
        if index is None:
            break
        conn.send(safe_run(runner, index))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    tmp: tempfile.TemporaryDirectory[str]
    index: int | None = None
    started: float = 0.0


def run_parallel(
    target: Target | str,
    cases: int | None,
    seed: int = 0,
    *,
    jobs: int = 2,
    seconds: float | None = None,
    out: Path | None = None,
    watchdog: float = DEFAULT_WATCHDOG,
    save_cap: int = DEFAULT_SAVE_CAP,
    progress: Callable[[Summary], None] | None = None,
) -> Summary:
    """Run a campaign in `jobs` worker processes, each with its own temporary folder.

    The parent hands out one case index at a time and kills (by its own process handle) a
    worker whose case outlives `watchdog` seconds; a worker that dies is a crash. Either
    way the worker is replaced and the campaign goes on. `target` is a `Target` or its
    "package.module:ATTRIBUTE" (what a worker started by spawn loads it by).
    """
    the_target = target_of(target)
    seeds = the_target.seeds()
    campaign = Campaign(the_target, seed, seeds, out, save_cap, jobs)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    # each method by name: the typing stubs give `Process` to a context of a known method
    context = (
        multiprocessing.get_context("fork")
        if method == "fork"
        else multiprocessing.get_context("spawn")
    )
    sent = the_target if method == "fork" else target  # spawn: the name, loaded again
    deadline = None if seconds is None else time.perf_counter() + seconds
    pending = indexes(cases)
    workers: list[_Worker] = []
    busy: list[_Worker] = []

    def start() -> _Worker:
        tmp = tempfile.TemporaryDirectory(prefix="fuzz-")
        parent, child = context.Pipe()
        process = context.Process(
            target=_worker_main, args=(child, sent, seed, tmp.name, seeds), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent, tmp)

    def stop(worker: _Worker, kill: bool) -> None:
        if kill:
            worker.process.kill()
        else:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        worker.process.join(5)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
        worker.tmp.cleanup()

    def dispatch(worker: _Worker) -> bool:
        if deadline is not None and time.perf_counter() > deadline:
            return False
        index = next(pending, None)
        if index is None:
            return False
        worker.index, worker.started = index, time.perf_counter()
        with contextlib.suppress(OSError):  # a dead worker shows up as EOF in the wait
            worker.conn.send(index)
        return True

    def lost(worker: _Worker, killed: bool) -> Outcome:
        assert worker.index is not None
        case = make_case(the_target, seeds, seed, worker.index)
        outcome = Outcome(worker.index, case.seed_name, case.mutations, killed=killed)
        if not killed:
            code = worker.process.exitcode
            outcome.crash = f"the worker process died (exit code {code}) grading this case"
            outcome.crash_signature = f"worker died with exit code {code}"
        return outcome

    try:
        workers.extend(start() for _ in range(max(1, jobs)))
        busy.extend(w for w in workers if dispatch(w))
        while busy:
            now = time.perf_counter()
            timeout = max(0.0, min(w.started + watchdog for w in busy) - now)
            ready = multiprocessing.connection.wait([w.conn for w in busy], timeout)
            for worker in list(busy):
                outcome: Outcome | None = None
                replace = False
                if worker.conn in ready:
                    try:
                        outcome = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(5)
                        outcome, replace = lost(worker, killed=False), True
                elif time.perf_counter() - worker.started > watchdog:
                    outcome, replace = lost(worker, killed=True), True
                if outcome is None:
                    continue
                campaign.record(outcome)
                if progress is not None:
                    progress(campaign.summary)
                busy.remove(worker)
                if replace:
                    stop(worker, kill=True)
                    workers.remove(worker)
                    worker = start()
                    workers.append(worker)
                if dispatch(worker):
                    busy.append(worker)
    except KeyboardInterrupt:
        print("interrupted: the counts below are for the cases finished so far", file=sys.stderr)
    finally:
        for worker in workers:
            stop(worker, kill=worker in busy)
    campaign.summary.seconds = time.perf_counter() - campaign.started
    return campaign.summary
