"""`grader batch PATH... --out DIR`: grade a whole class, in parallel, into a gradebook.

The jobs are split over small modules: `grader.discovery` finds the submissions under
the PATHs (folders, folders of folders, archives, two levels deep) and plans each
archive from its member names; `grader.batch_ids` gives each row its id;
`grader.batch_grading` grades on worker processes; `grader.batch_archives` extracts the
archives' artifact files a few archives at a time and deletes them after grading;
`grader.batch_rows` reads rows back and writes the gradebook and the summary;
`grader.outdir` locks `--out` and removes what a killed batch left there. This module
runs them in order and is the command line.

Ids. Derived from each submission's source path alone, never from the order folders are
met in (`grader.batch_ids`): `alice`, `section_a__bob`, and for a name that had to be
changed to be safe, a short hash of its source path (`Zoë_Smith-3f1c0e9a2b`). Rows are
sorted by id.

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
the files, rubric, language, lab and grader version now (`grader.batch_rows`). Anything
else (another student's result under a reused id, a changed file, rubric or grader) is
graded again.

Faults. Two batches into one `--out`: the second refuses (exit 2). A full disk, a
read-only `--out`: one sentence and exit 2; the results written so far are complete,
and `--resume` goes on from them. A killed batch leaves no workers (they die with it)
and its temporary files are removed by the next batch into that `--out`.

Exit status (`grader.exits`): 0 every submission was graded (whatever the scores), 1 some
submission could not be graded, 2 bad usage or a fault of the set-up (a PATH that does
not exist, an unusable rubric, `--out` not writable or locked, a full disk), 3 the
grader failed on some submission (a check crashed, a worker died, an exception): those
results say `grader_error`.

The progress bar (count, rate, ETA) goes to stderr only when stderr is a terminal, and
not with `--no-progress`; a one-line summary goes to stderr at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from grader.archives import ArchiveCaps, Budget
from grader.batch_archives import ArchiveRun, with_notes
from grader.batch_grading import (
    DEFAULT_LAB,
    STATE,
    Task,
    Workers,
    grade_task,
    init_worker,
    load_lab,
    load_lab_rubric,
)
from grader.batch_ids import assign_ids, safe_id
from grader.batch_rows import Row, gradebook_csv, read_back, summary_dict
from grader.class_report.integrity import integrity_cells
from grader.discovery import Discovery, Found
from grader.exits import (
    EXIT_FAILED,
    EXIT_GRADER_ERROR,
    EXIT_INTERRUPTED,
    EXIT_NOT_GRADED,
    EXIT_PASSED,
)
from grader.faults import OutputError, write_output
from grader.i18n import LANGUAGES
from grader.outdir import OutLocked, claim
from grader.visible import visible_data, visible_path

DERIVED = ("gradebook.csv", "summary.json")

__all__ = [
    "DEFAULT_LAB",
    "BatchReport",
    "Progress",
    "Task",
    "add_batch_parser",
    "grade_task",
    "load_lab",
    "main",
    "run",
    "run_batch",
    "safe_id",
]


# --------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on a terminal: count/total, rate and time left."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        enabled: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.stream, self.enabled, self.clock = total, stream, enabled, clock
        self.done = 0
        self.start = clock()
        self._last = -1.0
        self._width = 0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self.draw(now)

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        fraction = self.done / self.total if self.total else 1.0
        size = 24
        filled = int(fraction * size)
        bar = "#" * filled + "-" * (size - filled)
        eta = _clock_time(left) if left is not None else "--:--"
        return f"[{bar}] {self.done}/{self.total}  {rate:.1f}/s  ETA {eta}"

    def draw(self, now: float) -> None:
        text = self.line(now)
        columns = shutil.get_terminal_size((80, 20)).columns
        text = text[: max(columns - 1, 10)]
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\n")
            self.stream.flush()


def _clock_time(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


# --------------------------------------------------------------------------- the batch


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
    """Each row with its id (`grader.batch_ids`), sorted by id."""
    ids = assign_ids([(f.parts, f.source) for f in found])
    tasks = [
        Task(i, f.folder, f.source, f.error, f.archive, f.row)
        for i, f in zip(ids, found, strict=True)
    ]
    return sorted(tasks, key=lambda t: t.id)


def _say(catalog: Any) -> Callable[..., str]:
    def say(message_id: str, **params: Any) -> str:
        return str(catalog.text(message_id, params) or message_id)

    return say


@dataclass(frozen=True)
class _Options:
    jobs: int
    resume: bool
    rubric_path: str | None
    lang: str
    progress: bool
    progress_stream: TextIO | None
    mp_context: Any
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
    mp_context: Any = None,
    lab_ref: str = DEFAULT_LAB,
    html: str | None = None,
) -> BatchReport:
    """Grade every submission under `paths` into `out`; the PATHs must exist and the
    rubric must load (`run_batch` checks both and turns them into exit status 2).

    Raises `OutLocked` when another batch holds `out`, `BatchStopped` when a fault of the
    set-up (a full disk, a read-only `out`) stopped it. `lab_ref` names the lab as
    "package:attribute"; the engine never imports a lab itself.
    """
    started = time.monotonic()
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


def _run_claimed(paths: Sequence[str], out: str, options: _Options) -> BatchReport:
    results = _start(out)
    init_worker(options.lab_ref, options.rubric_path, options.lang, results, in_pool=False)
    grading = STATE["grading"]
    lab, say = grading.lab, _say(grading.catalog)
    limits = grading.rubric.make_limits(lab.limits)
    caps = ArchiveCaps(limits.archive_members, limits.archive_bytes, limits.archive_submissions)
    finder = Discovery((a.filename for a in lab.artifacts), [out], caps, say)
    for path in paths:
        finder.path(path)
    tasks = with_notes(make_tasks(finder.found), finder.archives, say)
    budget = Budget(limits.batch_archive_bytes)
    archives = ArchiveRun(finder.archives, tasks, out, caps, lab, limits, budget, say, options.jobs)
    rows: dict[str, Row] = {}
    counts = {"resumed": 0, "graded": 0}
    stream = options.progress_stream or sys.stderr
    bar = Progress(len(tasks), stream, options.progress and bool(tasks))

    def on_row(row: Row) -> None:
        rows[row.id] = row
        bar.advance()

    def grade(batch: Sequence[Task]) -> None:
        todo = []
        for task in batch:
            resumable = options.resume and task.folder is not None
            digest = _digest(grading, task) if resumable else None
            row = read_back(results, task.id, task.source, digest) if digest else None
            if row is not None:
                on_row(row if row.note == task.note else _noted(row, task.note))
                counts["resumed"] += 1
            elif task.folder is None:
                on_row(grade_task(task))
            else:
                todo.append(task)
        counts["graded"] += len(todo)
        workers.grade(todo, on_row)

    initargs = (options.lab_ref, options.rubric_path, options.lang, results)
    try:
        with Workers(options.jobs, initargs, options.mp_context) as workers:
            grade([t for t in tasks if t.archive is None])
            with contextlib.closing(archives.groups()) as groups:
                for group in groups:
                    grade(group)
                    if options.html is not None:  # the physics, while the files exist
                        _write_physics(out, group, options.lab_ref)
            if options.html is not None:
                _write_physics(out, [t for t in tasks if t.archive is None], options.lab_ref)
    finally:
        bar.close()
    ordered = [rows[t.id] for t in tasks]
    _write_outputs(out, ordered, lab.all_check_ids(), archives.summary(), options)
    return BatchReport(ordered, counts["resumed"], counts["graded"], 0.0)


def _write_outputs(
    out: str,
    rows: Sequence[Row],
    check_ids: Sequence[str],
    archives: Sequence[dict[str, Any]],
    options: _Options,
) -> None:
    integrity = _integrity(out, options.lab_ref)
    cells = integrity_cells(integrity)
    write_output(os.path.join(out, "gradebook.csv"), gradebook_csv(rows, check_ids, cells))
    summary = visible_data(summary_dict(rows, check_ids, archives, integrity))
    text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    write_output(os.path.join(out, "summary.json"), text.encode("utf-8"))
    if options.html is not None:
        from pathlib import Path

        from grader.class_report import write_class_report

        try:
            html, lang = Path(options.html), options.lang
            write_class_report(Path(out), html, lang, folders={}, lab=options.lab_ref)
        except OSError as exc:
            raise OutputError.of(options.html, exc) from None


def _integrity(out: str, lab_ref: str) -> dict[str, Any]:
    """The class's integrity flags and pairs, from the results the batch wrote."""
    from grader.class_report.integrity import class_integrity
    from grader.class_report.results import read_results
    from grader.class_report.spec import spec_of

    students, _ = read_results(out)
    return class_integrity(students, spec_of(lab_ref))


def _noted(row: Row, note: str) -> Row:
    from dataclasses import replace

    return replace(row, note=note)


def _digest(grading: Any, task: Task) -> str | None:
    """The input digest grading `task` would give (for --resume), from its files."""
    from grader.batch_grading import refusals
    from grader.grade import submission_digest

    assert task.folder is not None
    return submission_digest(
        grading.lab, task.folder, grading.rubric, grading.lang, refused=refusals(grading, task)
    )


def _write_physics(out: str, tasks: Sequence[Task], lab_ref: str) -> None:
    from grader.class_report.physics import write_physics

    folders = {t.id: t.folder for t in tasks}
    if folders:
        try:
            write_physics(out, folders, lab_ref)
        except OSError as exc:
            raise OutputError.of(os.path.join(out, "physics.json"), exc) from None


# --------------------------------------------------------------------------- CLI


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_batch_parser(subparsers: Any, lab: str = DEFAULT_LAB) -> argparse.ArgumentParser:
    """Add `batch` to the `grader` command's subparsers; `run_batch(args)` runs it.

    `lab` ("package:attribute") is the lab the command line picked; it reaches
    `run_batch` as `args.lab`, and each worker imports it by that name.
    """
    parser = subparsers.add_parser(
        "batch",
        help="grade many submissions (folders, folders of folders, archives) into a gradebook",
        description=(
            "Grade every submission under the PATHs in parallel and write "
            "DIR/results/<id>.json, DIR/gradebook.csv and DIR/summary.json. "
            "Exit status: 0 all graded, 1 some could not be graded, 2 bad usage or a "
            "fault of the set-up (--out locked or not writable, a full disk), 3 the "
            "grader failed on some submission."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a submission folder, a folder of submission folders (two levels deep) or a "
        ".zip / .tar.gz / .tgz / .tar archive of one or many submissions",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the results")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="worker processes (default: the number of CPUs; 1 grades in this process)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the results in DIR/results that are still this submission's result for "
        "these inputs (same source, files, rubric, language and grader); grade the others",
    )
    parser.add_argument(
        "--rubric", metavar="FILE", help="a rubric TOML file (default: the lab's own)"
    )
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        help="language of the feedback (default: from LC_ALL / LC_MESSAGES / LANG, else en)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="progress bar on stderr when it is a terminal (default: on)",
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write the class report (one HTML page) to FILE; see `grader report`",
    )
    parser.set_defaults(lab=lab)
    return parser


def run_batch(args: argparse.Namespace) -> int:
    """Run `grader batch` from parsed arguments; returns the exit status."""
    from grader.grade import catalog_for
    from grader.i18n import language_from_environment
    from grader.rubric import RubricError

    lab_ref = getattr(args, "lab", None) or DEFAULT_LAB
    lang = args.lang or language_from_environment()
    lab, _ = load_lab(lab_ref)
    catalog = catalog_for(lab, lang)
    say = _say(catalog)

    def tell(message_id: str, **params: Any) -> None:
        from grader.visible import visible

        print(f"grader batch: {visible(say(message_id, **params))}", file=sys.stderr)

    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        tell("batch.no_such_path", path=visible_path(path))
    if missing:
        return EXIT_NOT_GRADED
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        tell("batch.out_not_a_folder", out=visible_path(args.out))
        return EXIT_NOT_GRADED
    try:
        load_lab_rubric(lab_ref, args.rubric)
    except RubricError as exc:
        tell("batch.say", text=exc.text(catalog))
        return EXIT_NOT_GRADED
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        tell("batch.say", text=OutputError.of(args.out, exc).text(catalog))
        return EXIT_NOT_GRADED
    try:
        report = run(
            args.paths,
            args.out,
            jobs=args.jobs or os.cpu_count() or 1,
            resume=args.resume,
            rubric_path=args.rubric,
            lang=lang,
            progress=args.progress and sys.stderr.isatty(),
            lab_ref=lab_ref,
            html=getattr(args, "html", None),
        )
    except OutLocked as exc:
        tell("batch.locked", out=visible_path(exc.out), pid=exc.pid)
        return EXIT_NOT_GRADED
    except BatchStopped as exc:
        tell("batch.stopped", reason=exc.error.text(catalog), count=exc.written)
        return EXIT_NOT_GRADED
    except KeyboardInterrupt:
        print(file=sys.stderr)
        tell("batch.interrupted")
        return EXIT_INTERRUPTED
    if report.leftovers:
        tell("batch.leftovers", count=report.leftovers)
    graded = sum(r.gradable for r in report.rows)
    rate = report.graded_now / report.seconds if report.seconds > 0 else 0.0
    tell(
        "batch.done",
        count=len(report.rows),
        graded=graded,
        ungraded=len(report.rows) - graded,
        resumed=report.resumed,
        now=report.graded_now,
        seconds=f"{report.seconds:.1f}",
        rate=f"{rate:.1f}",
        out=visible_path(args.out),
    )
    return report.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.batch PATH... --out DIR`, as `grader batch PATH... --out DIR`
    (which is the safer way: see `grader.syspath`)."""
    from grader.syspath import drop_working_directory

    drop_working_directory()
    parser = argparse.ArgumentParser(prog="grader")
    add_batch_parser(parser.add_subparsers(dest="command", required=True))
    return run_batch(parser.parse_args(["batch", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
