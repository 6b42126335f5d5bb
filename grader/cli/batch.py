"""`grader batch PATH... --out DIR`: the command line of the batch (`grader.batch.run` runs it).

Exit status (`grader.system.exits`): 0 every submission was graded (whatever the scores), 1 some
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
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from grader.cli.commands import LAB, LANG, RUBRIC, Command, arg
from grader.cli.parser import build, english, parse_alone, said
from grader.system.exits import EXIT_NOT_GRADED, interrupted_status

if TYPE_CHECKING:
    from grader.words.i18n import Catalog
    from grader.words.problems import Param


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(said("help.batch.not_a_number", value=text)) from None
    if value < 1:
        raise argparse.ArgumentTypeError(said("help.batch.too_few", value=value))
    return value


COMMAND = Command(
    "batch",
    "help.batch.summary",
    (
        arg("paths", nargs="+", metavar="PATH", help="help.batch.paths"),
        arg("--out", required=True, metavar="DIR", help="help.batch.out"),
        arg("--jobs", type=_jobs, metavar="N", help="help.batch.jobs"),
        arg("--resume", action="store_true", help="help.batch.resume"),
        RUBRIC,
        arg("--lang", choices=LANG.options["choices"], help="help.batch.lang"),
        arg(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="help.batch.progress",
        ),
        arg("--html", metavar="FILE", help="help.batch.html"),
        LAB,
    ),
    description="help.batch.description",
)
"""`grader batch`'s arguments (`grader.cli.commands`); `run(args)` runs it."""


def add_parser(subparsers: Any, catalog: Catalog | None = None) -> argparse.ArgumentParser:
    """Add `batch` to the `grader` command's subparsers, in `catalog`'s language
    (English by default)."""
    return build(subparsers, COMMAND, catalog or english())


def out_overlaps(out: str, paths: Sequence[str], artifacts: Collection[str]) -> str | None:
    """The graded folder `--out` would mix with, or None. The batch writes results/,
    the gradebook and the summary into `out`, and never searches `out` for submissions;
    so `out` may not be a PATH or above one (its own outputs would become rows), nor
    inside a folder that is graded (a submission would receive the outputs, or vanish
    from the gradebook): only a folder of its own, beside the submissions or inside a
    PATH as one more first-level folder that holds no lab files (`class/out`)."""
    from grader.batch.outdir import inside as _inside
    from grader.batch.run import STALE
    from grader.reading.locate import listing, locate

    real_out = os.path.realpath(out)
    for path in paths:
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            if real_out == real:
                return path
            continue
        if _inside(real, real_out):
            return path  # out is the PATH, or above it
        if not _inside(real_out, real):
            continue
        if listing(real, artifacts).has_artifacts:
            return path  # the PATH is a submission itself
        first = os.path.join(real, os.path.relpath(real_out, real).split(os.sep)[0])
        ours = [os.path.join(first, name) for name in ("results", STALE)]  # earlier outputs
        if first != real_out or locate(first, artifacts, ours).found:
            return os.path.join(path, os.path.basename(first))
    return None


def run(args: argparse.Namespace) -> int:
    """Run `grader batch` from parsed arguments; returns the exit status."""
    from grader.batch import run as batch
    from grader.batch.outdir import OutLocked
    from grader.engine.grade import catalog_for
    from grader.engine.labs import LabError, choose, reference
    from grader.engine.rubric import RubricError, load_lab_rubric
    from grader.system.faults import OutputError
    from grader.words.i18n import Catalog, language_from_environment
    from grader.words.visible import visible, visible_path

    lang = args.lang or language_from_environment()
    catalog = Catalog(lang, ("grader",))

    def tell(message_id: str, **params: Param) -> None:
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
    overlap = out_overlaps(args.out, args.paths, {a.filename for a in lab.artifacts})
    if overlap is not None:
        tell("batch.out_overlaps", out=visible_path(args.out), path=visible_path(overlap))
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
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (grader.system.lifeline)
        print(file=sys.stderr)
        tell("batch.interrupted")
        return interrupted_status(exc)
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
    """`python -m grader.cli.batch PATH... --out DIR`, as `grader batch PATH... --out DIR`
    (which is the safer way: see `grader.system.syspath`)."""
    from grader.system.syspath import drop_working_directory

    drop_working_directory()
    given = ["batch", *(sys.argv[1:] if argv is None else argv)]
    return run(parse_alone(COMMAND, given))


if __name__ == "__main__":
    sys.exit(main())
