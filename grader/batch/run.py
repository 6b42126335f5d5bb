"""`grader batch PATH... --out DIR`: grade a whole class, in parallel, into a gradebook.

The jobs are split over small modules: `grader.batch.discovery` finds the submissions under
the PATHs (folders, folders of folders, archives, two levels deep) and plans each
archive from its member names; `grader.batch.ids` gives each row its id;
`grader.batch.grading` grades one task and writes its result, `grader.batch.pool` runs
the tasks on worker processes that may crash; `grader.batch.archives` extracts the
archives' artifact files a few archives at a time and deletes them after grading;
`grader.batch.rows` makes a row of a result (and reads results back for `--resume`),
`grader.batch.gradebook` writes the gradebook and the summary; `grader.batch.outdir` locks `--out`
and removes what a killed batch left there; `grader.batch.progress` is the progress bar and
`grader.cli.batch` the command line. This module runs them in order.

Ids. Derived from each submission's source path alone, never from the order folders are
met in nor from the other folders (`grader.batch.ids`): `alice`, `section_a__bob`, and
for a name that had to be changed to be safe and case-proof, a short hash of its source
path (`Zoë_Smith-3f1c0e9a2b`). Rows are sorted by id. The results of ids this batch does
not have (a student gone or renamed) are moved to `DIR/stale-results/` before grading,
so results/ and the summary's `ids` name this batch's submissions and nothing else.

Output, all written atomically (temporary file in the same folder, then `os.replace`):
- `DIR/results/<id>.json`: the result as `grader check --format json` gives it; a
  submission that could not be graded gets a result with `"gradable": false` and the
  reason in `format_errors`. Its `submission` is the source path: the folder as found,
  or `<archive path>/<inner path>` for a submission from an archive.
- `DIR/gradebook.csv`: `id,source,score,max_score,gradable,grader_error,error,note`,
  then the points of each check in the lab's order. A row that could not be graded has
  empty score and points (never mistaken for a zero) and `gradable` false; a disabled
  check is an empty cell; `note` says what an archive held beside the row's files.
- `DIR/summary.json`: counts, score quantiles (linear interpolation) and mean over the
  graded submissions, and per check its pass rate (passed / graded submissions where it
  ran), its counts by status and the ids that failed it (status `failed`) or errored;
  then the archives with what was not extracted from them. Fixed key order, no
  timestamps: the same input gives the same bytes, whatever `--jobs`.
The gradebook and the summary are removed when a batch starts and written when it ends,
so they always describe a finished batch.

`--resume` keeps a `results/<id>.json` only when it is this submission's result for
these inputs: its `submission` is this row's source path and its `input_digest` matches
the files, rubric, language, lab and grader version now (`grader.batch.rows`). Anything
else (another student's result under a reused id, a changed file, rubric or grader) is
graded again.

Faults. Two batches into one `--out`: the second refuses (exit 2). A full disk, a
read-only `--out`: one sentence and exit 2; the results written so far are complete,
and `--resume` goes on from them. A killed batch leaves no workers (they die with it)
and its temporary files are removed by the next batch into that `--out`.

The command line is `grader.cli.batch`; its exit status is `BatchReport.exit_code`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from grader.batch.archives import ArchiveRun, with_notes
from grader.batch.discovery import Discovery, Found
from grader.batch.gradebook import gradebook_csv, summary_dict
from grader.batch.grading import (
    Task,
    crashed_row,
    failed_row,
    grade_task,
    grading_of_this_process,
    init_worker,
)
from grader.batch.ids import assign_ids
from grader.batch.outdir import claim
from grader.batch.pool import Workers
from grader.batch.progress import Progress
from grader.batch.rows import Row, read_back
from grader.class_report.integrity import integrity_cells
from grader.reading.archives import ArchiveCaps, Budget
from grader.reading.jsontext import dumps_indented
from grader.system.exits import EXIT_FAILED, EXIT_GRADER_ERROR, EXIT_PASSED
from grader.system.faults import OutputError, write_output
from grader.words.visible import visible_data
from grader.words.worded import Worded

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from grader.batch.grading import Grading
    from grader.class_report.spec import ClassReportSpec
    from grader.words.i18n import Catalog
    from grader.words.problems import Param

DERIVED = ("gradebook.csv", "summary.json")


@dataclass
class BatchReport:
    rows: list[Row]
    resumed: int
    graded_now: int
    seconds: float
    leftovers: int = 0  # temporary files of a killed batch, removed at the start

    @property
    def exit_code(self) -> int:
        if any(r.grader_error for r in self.rows):
            return EXIT_GRADER_ERROR
        ok = all(r.gradable for r in self.rows)
        return EXIT_PASSED if ok else EXIT_FAILED


class BatchStopped(Exception):
    """A fault of the set-up stopped the batch (`error`); `written` results are complete."""

    def __init__(self, error: OutputError, written: int) -> None:
        super().__init__(str(error))
        self.error, self.written = error, written


def make_tasks(found: Sequence[Found]) -> list[Task]:
    """Each row with its id (`grader.batch.ids`), sorted by id."""
    ids = assign_ids([(f.parts, f.source) for f in found])
    tasks = [
        Task(i, f.folder, f.source, f.error, f.archive, f.row, root=f.root)
        for i, f in zip(ids, found, strict=True)
    ]
    return sorted(tasks, key=lambda t: t.id)


def _say(catalog: Catalog) -> Callable[..., str]:
    """`say(message_id, **params)`: the sentence in the batch's language; a parameter
    that is `Worded` (an archive's refusal, say) is worded in it too."""

    def say(message_id: str, **params: Param) -> str:
        return Worded(message_id, **params).text(catalog)

    return say


@dataclass(frozen=True)
class _Options:
    jobs: int
    resume: bool
    rubric_path: str | None
    lang: str
    progress: bool
    progress_stream: TextIO | None
    mp_context: BaseContext | None
    lab_ref: str
    html: str | None


def run(
    paths: Sequence[str],
    out: str,
    *,
    jobs: int = 1,
    resume: bool = False,
    rubric_path: str | None = None,
    lang: str = "en",
    progress: bool = False,
    progress_stream: TextIO | None = None,
    mp_context: BaseContext | None = None,
    lab_ref: str | None = None,
    html: str | None = None,
) -> BatchReport:
    """Grade every submission under `paths` into `out`; the PATHs must exist and the
    rubric must load (`grader.cli.batch.run` checks both and turns them into exit status 2).

    Raises `OutLocked` when another batch holds `out`, `BatchStopped` when a fault of the
    set-up (a full disk, a read-only `out`) stopped it. `lab_ref` names the lab as
    `grader.engine.labs.load` takes it (an installed name or "package.module:ATTRIBUTE"; None:
    the only installed lab); each worker loads it by that name. `jobs` is capped at the
    cores the process may use (`cores`).
    """
    started = time.monotonic()
    jobs = max(1, min(jobs, cores()))
    if lab_ref is None:
        from grader.engine.labs import choose

        lab_ref = choose().name
    options = _Options(
        jobs, resume, rubric_path, lang, progress, progress_stream, mp_context, lab_ref, html
    )
    try:
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as exc:
            raise OutputError.of(out, exc) from None
        with claim(out) as leftovers:
            report = _run_claimed(paths, out, options)
    except OutputError as exc:
        raise BatchStopped(exc, _results_written(out)) from None
    report.seconds = time.monotonic() - started
    report.leftovers = len(leftovers)
    return report


def cores() -> int:
    """The cores this process may run on: more workers than that only share them, each
    with its own interpreter and lab in memory (`--jobs 160` on 2 cores: 1.1 GB)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if count is not None:
        return int(count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _results_written(out: str) -> int:
    try:
        return sum(n.endswith(".json") for n in os.listdir(os.path.join(out, "results")))
    except OSError:
        return 0


def _start(out: str) -> str:
    """results/, made; the gradebook and the summary of an earlier batch, removed (they
    will describe this batch, or nothing)."""
    results = os.path.join(out, "results")
    try:
        os.makedirs(results, exist_ok=True)
        for name in DERIVED:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(out, name))
    except OSError as exc:
        raise OutputError.of(results, exc) from None
    return results


STALE = "stale-results"
"""Where a batch moves the results of submissions it does not have (`set_aside`)."""


def set_aside(out: str, results: str, ids: set[str]) -> list[str]:
    """Move every `results/<id>.json` whose id is not one of this batch's to
    `out/stale-results/` (replacing an older one there); returns their names. A result
    outlives its student nowhere a reader looks: not in results/, not in the summary,
    so neither the class page nor an export ever meets it (`grader.class_report.results`).
    Nothing is deleted: the instructor may still want to see what a student had."""
    try:
        names = sorted(
            n for n in os.listdir(results) if n.endswith(".json") and not n.startswith(".")
        )
    except OSError as exc:
        raise OutputError.of(results, exc) from None
    stale = [n for n in names if n[: -len(".json")] not in ids]
    if stale:
        aside = os.path.join(out, STALE)
        try:
            os.makedirs(aside, exist_ok=True)
            for name in stale:
                target = os.path.join(aside, name)
                if os.path.isdir(target) and not os.path.islink(target):
                    shutil.rmtree(target, ignore_errors=True)
                os.replace(os.path.join(results, name), target)
        except OSError as exc:
            raise OutputError.of(aside, exc) from None
    return stale


def _run_claimed(paths: Sequence[str], out: str, options: _Options) -> BatchReport:
    results = _start(out)
    init_worker(options.lab_ref, options.rubric_path, options.lang, results, in_pool=False)
    grading = grading_of_this_process()
    lab, say = grading.lab, _say(grading.catalog)
    limits = grading.rubric.make_limits(lab.limits)
    caps = ArchiveCaps(limits.archive_members, limits.archive_bytes, limits.archive_submissions)
    finder = Discovery((a.filename for a in lab.artifacts), [out], caps, say)
    for path in paths:
        finder.path(path)
    tasks = with_notes(make_tasks(finder.found), finder.archives, say)
    set_aside(out, results, {t.id for t in tasks})
    budget = Budget(limits.batch_archive_bytes)
    archives = ArchiveRun(finder.archives, tasks, out, caps, lab, limits, budget, say, options.jobs)
    rows: dict[str, Row] = {}
    counts = {"resumed": 0, "graded": 0}
    stream = options.progress_stream or sys.stderr
    bar = Progress(len(tasks), stream, options.progress and bool(tasks), words=say)

    def on_row(row: Row) -> None:
        rows[row.id] = row
        bar.advance()

    def grade(batch: Sequence[Task]) -> None:
        todo = []
        for task in batch:
            resumable = options.resume and task.folder is not None
            digest = _digest(grading, task) if resumable else None
            row = read_back(results, task.id, task.source, digest, grading.spec) if digest else None
            if row is not None:
                on_row(row if row.note == task.note else _noted(row, task.note))
                counts["resumed"] += 1
            elif task.folder is None:
                on_row(grade_task(task))
            else:
                todo.append(task)
        counts["graded"] += len(todo)
        workers.run(todo, on_row)

    initargs = (options.lab_ref, options.rubric_path, options.lang, results)
    try:
        pool = Workers(
            options.jobs,
            init_worker,
            initargs,
            options.mp_context,
            work=grade_task,
            crashed=crashed_row,
            failed=failed_row,
            fatal=(OutputError,),
        )
        with pool as workers:
            grade([t for t in tasks if t.archive is None])
            with contextlib.closing(archives.groups()) as groups:
                for group in groups:
                    grade(group)
    finally:
        bar.close()
    ordered = [rows[t.id] for t in tasks]
    _write_outputs(out, ordered, lab.all_check_ids(), archives.summary(), options, grading.spec)
    return BatchReport(ordered, counts["resumed"], counts["graded"], 0.0)


def _write_outputs(
    out: str,
    rows: Sequence[Row],
    check_ids: Sequence[str],
    archives: Sequence[dict[str, Any]],
    options: _Options,
    spec: ClassReportSpec | None,
) -> None:
    integrity = _integrity(out, rows, spec)
    cells = integrity_cells(integrity)
    write_output(os.path.join(out, "gradebook.csv"), gradebook_csv(rows, check_ids, cells))
    summary = visible_data(summary_dict(rows, check_ids, archives, integrity))
    text = dumps_indented(summary) + "\n"
    write_output(os.path.join(out, "summary.json"), text.encode("utf-8"))
    if options.html is not None:
        from pathlib import Path

        from grader.class_report import write_class_report

        try:
            html, lang = Path(options.html), options.lang
            write_class_report(Path(out), html, lang, lab=options.lab_ref)
        except OSError as exc:
            raise OutputError.of(options.html, exc) from None


def _integrity(out: str, rows: Sequence[Row], spec: ClassReportSpec | None) -> dict[str, Any]:
    """The class's integrity flags and pairs (by the lab's `ClassReportSpec` `spec`),
    over every result in `out`: this batch's (their rows carry the evidence) and any
    other result file there, read."""
    from grader.class_report.integrity import evidence_of, integrity_of
    from grader.class_report.results import read_results

    known = {row.id + ".json": row.evidence for row in rows if row.evidence is not None}
    names = os.listdir(os.path.join(out, "results"))
    if all(n in known for n in names if n.endswith(".json") and not n.startswith(".")):
        evidence = [one for _, one in sorted(known.items())]
    else:  # results of submissions this batch did not see: read them all, as before
        students, _ = read_results(out)
        evidence = [evidence_of(student, spec) for student in students]
    return integrity_of(evidence, spec)


def _noted(row: Row, note: str) -> Row:
    from dataclasses import replace

    return replace(row, note=note)


def _digest(grading: Grading, task: Task) -> str | None:
    """The input digest grading `task` would give (for --resume), from its files."""
    from grader.batch.grading import refusals
    from grader.engine.grade import submission_digest

    assert task.folder is not None
    return submission_digest(
        grading.lab,
        task.folder,
        grading.rubric,
        grading.lang,
        refused=refusals(grading, task),
        root=task.root,
    )
