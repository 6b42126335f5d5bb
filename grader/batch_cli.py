"""`grader batch PATH... --out DIR`: the command line of the batch (`grader.batch` runs it).

Exit status (`grader.exits`): 0 every submission was graded (whatever the scores), 1 some
submission could not be graded, 2 bad usage or a fault of the set-up (a PATH that does
not exist, no lab, an unusable rubric, `--out` not writable or locked, a full disk), 3
the grader failed on some submission (a check crashed, a worker died, an exception):
those results say `grader_error`.

The progress bar (count, rate, ETA) goes to stderr only when stderr is a terminal, and
not with `--no-progress`; a one-line summary goes to stderr at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from grader.exits import EXIT_INTERRUPTED, EXIT_NOT_GRADED


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `batch` to the `grader` command's subparsers; `run(args)` runs it."""
    from grader.i18n import LANGUAGES
    from grader.labs import add_lab_option

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
    add_lab_option(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run `grader batch` from parsed arguments; returns the exit status."""
    from grader import batch
    from grader.faults import OutputError
    from grader.grade import catalog_for
    from grader.i18n import Catalog, language_from_environment
    from grader.labs import LabError, choose, reference
    from grader.outdir import OutLocked
    from grader.rubric import RubricError, load_lab_rubric
    from grader.visible import visible, visible_path

    lang = args.lang or language_from_environment()
    catalog: Any = Catalog(lang, ("grader",))

    def tell(message_id: str, **params: Any) -> None:
        text = str(catalog.text(message_id, params) or message_id)
        print(f"grader batch: {visible(text)}", file=sys.stderr)

    try:
        lab = choose(getattr(args, "lab", None))
    except LabError as exc:
        tell("batch.say", text=exc.text(catalog))
        return EXIT_NOT_GRADED
    catalog = catalog_for(lab, lang)
    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        tell("batch.no_such_path", path=visible_path(path))
    if missing:
        return EXIT_NOT_GRADED
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        tell("batch.out_not_a_folder", out=visible_path(args.out))
        return EXIT_NOT_GRADED
    try:
        load_lab_rubric(lab, args.rubric)
    except RubricError as exc:
        tell("batch.say", text=exc.text(catalog))
        return EXIT_NOT_GRADED
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        tell("batch.say", text=OutputError.of(args.out, exc).text(catalog))
        return EXIT_NOT_GRADED
    try:
        report = batch.run(
            args.paths,
            args.out,
            jobs=args.jobs or os.cpu_count() or 1,
            resume=args.resume,
            rubric_path=args.rubric,
            lang=lang,
            progress=args.progress and sys.stderr.isatty(),
            lab_ref=reference(lab, getattr(args, "lab", None)),
            html=getattr(args, "html", None),
        )
    except OutLocked as exc:
        tell("batch.locked", out=visible_path(exc.out), pid=exc.pid)
        return EXIT_NOT_GRADED
    except batch.BatchStopped as exc:
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
    """`python -m grader.batch_cli PATH... --out DIR`, as `grader batch PATH... --out DIR`
    (which is the safer way: see `grader.syspath`)."""
    from grader.syspath import drop_working_directory

    drop_working_directory()
    parser = argparse.ArgumentParser(prog="grader")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(["batch", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
