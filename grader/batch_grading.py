"""Grading a batch's tasks, in this process or on worker processes started once.

Each worker loads the lab and the rubric in its initializer (the lab by the name the
batch was given, through `grader.labs`), ties its life to the batch's
(`grader.lifeline`: a `kill -9` of the batch leaves no orphan grading), and then
receives only tasks; it writes each result file and sends back one small row. `jobs=1`
grades in this process.

An exception while grading one submission is an error row with `grader_error`. A worker
that dies (crash, OOM kill) breaks the pool: the submissions that were in flight are
graded again one by one, each alone in a fresh worker, so only the one that kills its
worker becomes an error row, and the batch goes on with a new pool.

A result file that can't be written (full disk, read-only `--out`) is no submission's
fault: `OutputError` stops the whole batch (the caller says why and exits 2), and the
results already written stay complete (each is written atomically).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from grader.batch_rows import Row, row_of
from grader.faults import OutputError, write_output


@dataclass(frozen=True)
class Task:
    """One row of the batch: what to grade (`folder`) or why it can't be (`error`)."""

    id: str
    folder: str | None
    source: str  # the result's `submission`: the path as found, or archive path/inner path
    error: str | None = None
    archive: int | None = None  # index of the archive it came from
    row: tuple[str, ...] | None = None  # its folder inside its archive (None: none to extract)
    note: str = ""  # for the gradebook
    refused: tuple[tuple[str, int, int], ...] = ()  # (artifact, size, limit) not extracted


@dataclass
class Grading:
    """What grading needs, loaded once per process."""

    lab: Any
    rubric: Any
    lang: str
    results: str
    catalog: Any


STATE: dict[str, Grading] = {}


def init_worker(
    lab_ref: str,
    rubric_path: str | None,
    lang: str,
    results: str,
    in_pool: bool = True,
    parent: int | None = None,
) -> None:
    """Load the lab and the rubric once per worker (and once in-process for jobs=1)."""
    if in_pool:
        from grader.lifeline import die_with_parent

        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    from grader.grade import catalog_for
    from grader.labs import load
    from grader.rubric import load_lab_rubric

    lab = load(lab_ref)
    rubric = load_lab_rubric(lab, rubric_path)
    catalog = catalog_for(lab, lang)
    STATE["grading"] = Grading(lab, rubric, catalog.lang, results, catalog)


def error_result(grading: Grading, source: str, message: str, grader_error: bool = False) -> Any:
    from grader import __version__
    from grader.result import Result

    return Result.ungradable(
        grader_version=__version__,
        lab=grading.lab.name,
        rubric_version=grading.rubric.version,
        language=grading.lang,
        submission=source,
        errors=[message],
        grader_error=grader_error,
    )


def _save(grading: Grading, task: Task, result: Any) -> Row:
    from grader.visible import visible_result

    path = os.path.join(grading.results, task.id + ".json")
    shown = visible_result(result)  # what the file holds, as --resume will read it back
    write_output(path, shown.to_json().encode("utf-8"))  # OutputError stops the batch
    return dataclasses.replace(row_of(task.id, shown), source=task.source, note=task.note)


def refusals(grading: Grading, task: Task) -> dict[str, Any]:
    from grader.problems import Location, Problem

    files = {a.name: a.filename for a in grading.lab.artifacts}
    return {
        name: Problem(
            "file.too_big",
            {"file": files[name], "size": size, "limit": limit},
            Location(files[name]),
        )
        for name, size, limit in task.refused
    }


def grade_task(task: Task) -> Row:
    """Grade one submission and write its result; never raises for the submission."""
    from grader import grade as grading_module

    grading = STATE["grading"]
    if task.folder is None:
        return _save(grading, task, error_result(grading, task.source, task.error or "?"))
    try:
        result = grading_module.grade(
            grading.lab,
            task.folder,
            grading.rubric,
            lang=grading.lang,
            refused=refusals(grading, task),
        )
    except grading_module.NotGradable as exc:
        result = grading_module.not_gradable(
            grading.lab, task.folder, grading.rubric.version, exc.problem, grading.lang
        )
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}"
        message = grading.catalog.text("batch.grading_failed", {"detail": detail}) or detail
        result = error_result(grading, task.source, message, grader_error=True)
    if result.submission != task.source:
        result = dataclasses.replace(result, submission=task.source)
    return _save(grading, task, result)


def _crashed(task: Task) -> Row:
    grading = STATE["grading"]
    message = grading.catalog.text("batch.worker_died") or "the worker died"
    return _save(grading, task, error_result(grading, task.source, message, True))


def _failed(task: Task, exc: BaseException) -> Row:
    grading = STATE["grading"]
    detail = f"{type(exc).__name__}: {exc}"
    message = grading.catalog.text("batch.grading_failed", {"detail": detail}) or detail
    return _save(grading, task, error_result(grading, task.source, message, True))


def _start_method(mp_context: Any) -> str:
    context = mp_context or multiprocessing.get_context()
    return str(context.get_start_method())


class Workers:
    """Grades tasks on `jobs` worker processes, started once and reused by every call to
    `grade` (a batch grades its folders, then its archives a few at a time)."""

    def __init__(self, jobs: int, initargs: tuple[Any, ...], mp_context: Any = None) -> None:
        self.jobs = jobs
        self.mp_context = mp_context
        # a forkserver worker's parent is the server, not us: it dies with the server
        parent = os.getpid() if _start_method(mp_context) in ("fork", "spawn") else None
        self.initargs = (*initargs, True, parent)
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> Workers:
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
            initializer=init_worker,
            initargs=self.initargs,
        )

    def grade(self, todo: Sequence[Task], on_row: Callable[[Row], None]) -> None:
        """Grade `todo`, calling `on_row` with each row as it comes; a dead worker never
        ends the batch, an `OutputError` does (after the pool is stopped)."""
        if self.jobs <= 1 or len(todo) <= 1:
            for task in todo:
                on_row(grade_task(task))
            return
        pending = deque(todo)
        while pending:
            suspects = self._round(pending, on_row)
            for task in suspects:  # alone in a fresh worker: only the culprit dies again
                with self._pool(1) as alone:
                    try:
                        on_row(alone.submit(grade_task, task).result())
                    except BrokenProcessPool:
                        on_row(_crashed(task))
                    except OutputError:
                        raise
                    except Exception as exc:
                        on_row(_failed(task, exc))

    def _round(self, pending: deque[Task], on_row: Callable[[Row], None]) -> list[Task]:
        """Grade from `pending` until it is empty or the pool breaks; returns the tasks
        that were in flight when it broke."""
        if self._executor is None:
            self._executor = self._pool(self.jobs)
        executor = self._executor
        window = self.jobs * 4  # keeps workers busy; bounds the work a crash puts in doubt
        inflight: dict[Future[Row], Task] = {}
        broken = False
        suspects: list[Task] = []
        try:
            while not broken and (pending or inflight):
                while pending and len(inflight) < window:
                    task = pending.popleft()
                    try:
                        inflight[executor.submit(grade_task, task)] = task
                    except BrokenProcessPool:
                        pending.appendleft(task)
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
                    task = inflight.pop(future)
                    error = future.exception()
                    if isinstance(error, BrokenProcessPool):
                        suspects.append(task)
                    elif isinstance(error, OutputError):
                        raise error
                    elif error is not None:
                        on_row(_failed(task, error))
                    else:
                        on_row(future.result())
        except BaseException:
            self.close()
            raise
        if broken:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        return suspects


def _in_order(done: Iterable[Future[Row]], inflight: dict[Future[Row], Task]) -> list[Future[Row]]:
    order = {future: i for i, future in enumerate(inflight)}
    return sorted(done, key=lambda f: order[f])
