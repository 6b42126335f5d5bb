"""Grading one batch task, in this process or in a worker process (`grader.batch.pool`).

Each worker loads the lab and the rubric in its initializer (the lab by the name the
batch was given, through `grader.engine.labs`), ties its life to the batch's
(`grader.system.lifeline`: a `kill -9` of the batch leaves no orphan grading), and then
receives only tasks; it writes each result file and sends back one small row.

An exception while grading one submission is an error row with `grader_error`; so is a
submission whose worker died twice (`crashed_row`). A result file that can't be written
(full disk, read-only `--out`) is no submission's fault: `OutputError` stops the whole
batch (the caller says why and exits 2), and the results already written stay complete
(each is written atomically).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grader.batch.rows import Row, result_evidence, row_of
from grader.engine.result import Result
from grader.system.faults import write_output

if TYPE_CHECKING:
    from grader.class_report.spec import ClassReportSpec
    from grader.engine.lab import Lab
    from grader.engine.rubric import Rubric
    from grader.words.i18n import Catalog


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
    root: str | None = None  # the PATH folder `folder` was found below (`grade`'s `root`)


@dataclass
class Grading:
    """What grading needs, loaded once per process."""

    lab: Lab
    rubric: Rubric
    lang: str
    results: str
    catalog: Catalog
    spec: ClassReportSpec | None  # what a row's integrity evidence is


_grading: Grading | None = None
"""This process's `Grading`, set by `init_worker`: a pool's initializer can give its
worker nothing else, and each task (`grade_task`...) is a plain function of the task."""


def grading_of_this_process() -> Grading:
    """The `Grading` `init_worker` loaded in this process."""
    if _grading is None:
        raise RuntimeError("init_worker was not called in this process")
    return _grading


def init_worker(
    lab_ref: str,
    rubric_path: str | None,
    lang: str,
    results: str,
    in_pool: bool = True,
    parent: int | None = None,
) -> None:
    """Load the lab and the rubric once per worker (and once in-process for jobs=1): the
    `Grading` this process's tasks use (`grading_of_this_process`)."""
    global _grading
    if in_pool:
        from grader.system.lifeline import die_with_parent, ignore_signals

        die_with_parent(parent)
        ignore_signals()  # Ctrl-C and SIGTERM are the parent's to handle
    from grader.class_report.spec import spec_of
    from grader.engine.grade import catalog_for
    from grader.engine.labs import load
    from grader.engine.rubric import load_lab_rubric

    lab = load(lab_ref)
    rubric = load_lab_rubric(lab, rubric_path)
    catalog = catalog_for(lab, lang)
    _grading = Grading(lab, rubric, catalog.lang, results, catalog, spec_of(lab))


def error_result(grading: Grading, source: str, message: str, grader_error: bool = False) -> Result:
    from grader import __version__
    from grader.engine.result import Result

    return Result.ungradable(
        grader_version=__version__,
        lab=grading.lab.name,
        rubric_version=grading.rubric.version,
        language=grading.lang,
        submission=source,
        errors=[message],
        grader_error=grader_error,
    )


def _save(grading: Grading, task: Task, result: Result) -> Row:
    """Write the result file, and make its row and its integrity evidence from the result
    as a reader of that file gets it (as --resume reads it back).

    One walk of the result gives the visible plain data the file is written from and the
    read back is built from (`visible_plain`): no second walk to escape, none to copy,
    no parsing of the text just written (unless an object key is no string, which JSON
    would turn into one: then the text is read back)."""
    from grader.engine.result import json_text, schema_version_first
    from grader.words.visible import visible_plain

    path = os.path.join(grading.results, task.id + ".json")
    plain, as_read = visible_plain(result)
    data = schema_version_first(plain)
    text = json_text(data)
    write_output(path, text.encode("utf-8"))  # OutputError stops the batch
    back = Result.from_own_data(data) if as_read else Result.from_own_json(text)
    return dataclasses.replace(
        row_of(task.id, back),
        source=task.source,
        note=task.note,
        evidence=result_evidence(task.id, back, grading.spec),
    )


def refusals(grading: Grading, task: Task) -> dict[str, Any]:
    from grader.words.problems import Location, Problem

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
    from grader.engine import grade as grading_module

    grading = grading_of_this_process()
    if task.folder is None:
        return _save(grading, task, error_result(grading, task.source, task.error or "?"))
    try:
        result = grading_module.grade(
            grading.lab,
            task.folder,
            grading.rubric,
            lang=grading.lang,
            refused=refusals(grading, task),
            root=task.root,
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


def crashed_row(task: Task) -> Row:
    """The row of a task whose worker died, twice (once alone)."""
    grading = grading_of_this_process()
    message = grading.catalog.text("batch.worker_died") or "the worker died"
    return _save(grading, task, error_result(grading, task.source, message, True))


def failed_row(task: Task, exc: BaseException) -> Row:
    """The row of a task whose grading raised in the pool's machinery (not in a check)."""
    grading = grading_of_this_process()
    detail = f"{type(exc).__name__}: {exc}"
    message = grading.catalog.text("batch.grading_failed", {"detail": detail}) or detail
    return _save(grading, task, error_result(grading, task.source, message, True))
