"""A crash-isolating process pool: the batch's workers, started once, reused, replaced.

`Workers.run(tasks, on_row)` runs `work(task)` on `jobs` worker processes (in this
process for `jobs=1`) and calls `on_row` with each result as it comes. Tasks travel in
chunks of up to `CHUNK` (one round trip to a worker per chunk, not per task: a task's
own round trip cost about as much as grading a small submission), 2 chunks in flight
per worker. A worker that dies (a crash, an out-of-memory kill) breaks the pool: the
tasks that were in flight are run again one by one, each alone in a fresh worker, so
only the one that kills its worker gets `crashed(task)`, and the batch goes on with a new
pool. An exception of the pool's own costs only its task (`failed(task, exc)`, when the
task is run again alone); one of `fatal` (a full disk) stops everything, after the pool
is stopped.

Each worker runs `initializer(*initargs, True, parent)` first: `True` says it runs in a
pool, `parent` is the pid it must die with (None under forkserver, whose workers die
with the server).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 8
"""Most tasks sent to a worker at once (fewer when there are few tasks per worker)."""


def _run_chunk(work: Callable[[T], R], chunk: list[T]) -> list[R]:
    """What a worker does with a chunk: each task in turn."""
    return [work(task) for task in chunk]


def _start_method(mp_context: BaseContext | None) -> str:
    context = mp_context or multiprocessing.get_context()
    return str(context.get_start_method())


class Workers(Generic[T, R]):
    """Runs tasks on `jobs` worker processes, started once and reused by every call to
    `run` (a batch grades its folders, then its archives a few at a time)."""

    def __init__(
        self,
        jobs: int,
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        mp_context: BaseContext | None = None,
        *,
        work: Callable[[T], R],
        crashed: Callable[[T], R],
        failed: Callable[[T, BaseException], R],
        fatal: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.jobs = jobs
        self.mp_context = mp_context
        self.initializer = initializer
        self.work, self.crashed, self.failed, self.fatal = work, crashed, failed, fatal
        # a forkserver worker's parent is the server, not us: it dies with the server
        parent = os.getpid() if _start_method(mp_context) in ("fork", "spawn") else None
        self.initargs = (*initargs, True, parent)
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> Workers[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=self.mp_context,
            initializer=self.initializer,
            initargs=self.initargs,
        )

    def run(self, todo: Sequence[T], on_row: Callable[[R], None]) -> None:
        """Run `todo`, calling `on_row` with each result as it comes; a dead worker never
        ends the run, a `fatal` exception does (after the pool is stopped)."""
        if self.jobs <= 1 or len(todo) <= 1:
            for task in todo:
                on_row(self.work(task))
            return
        pending = deque(todo)
        while pending:
            suspects = self._round(pending, on_row)
            for task in suspects:  # alone in a fresh worker: only the culprit dies again
                with self._pool(1) as alone:
                    try:
                        on_row(alone.submit(self.work, task).result())
                    except BrokenProcessPool:
                        on_row(self.crashed(task))
                    except self.fatal:
                        raise
                    except Exception as exc:
                        on_row(self.failed(task, exc))

    def _round(self, pending: deque[T], on_row: Callable[[R], None]) -> list[T]:
        """Grade from `pending` until it is empty or the pool breaks; returns the tasks
        that were in flight when it broke (or whose chunk raised: each is run again alone,
        where its own exception is its own)."""
        if self._executor is None:
            self._executor = self._pool(self.jobs)
        executor = self._executor
        window = self.jobs * 2  # chunks: keeps workers busy; bounds the work a crash puts in doubt
        size = max(1, min(CHUNK, len(pending) // (self.jobs * 4)))
        inflight: dict[Future[list[R]], list[T]] = {}
        broken = False
        suspects: list[T] = []
        try:
            while not broken and (pending or inflight):
                while pending and len(inflight) < window:
                    chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
                    try:
                        inflight[executor.submit(_run_chunk, self.work, chunk)] = chunk
                    except BrokenProcessPool:
                        pending.extendleft(reversed(chunk))
                        broken = True
                        break
                if not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                if not broken:
                    broken = any(isinstance(f.exception(), BrokenProcessPool) for f in done)
                if broken:  # every other future of this pool fails too: collect them all
                    done, _ = wait(inflight)
                for future in _in_order(done, inflight):
                    chunk = inflight.pop(future)
                    error = future.exception()
                    if isinstance(error, self.fatal):
                        raise error
                    elif error is not None:
                        suspects.extend(chunk)
                    else:
                        for row in future.result():
                            on_row(row)
        except BaseException:
            self.close()
            raise
        if broken:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        return suspects


def _in_order(done: Iterable[Future[R]], inflight: Iterable[Future[R]]) -> list[Future[R]]:
    order = {future: i for i, future in enumerate(inflight)}
    return sorted(done, key=lambda f: order[f])
