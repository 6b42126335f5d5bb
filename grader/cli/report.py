"""`grader report OUT_DIR [--html FILE] [--lang L]`, and `write_class_report`, which
`grader batch … --html FILE` calls at the end of the batch."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.class_report.page import write_class_report
from grader.class_report.results import read_results
from grader.class_report.spec import spec_of
from grader.cli.commands import LAB, Command, arg
from grader.system.exits import EXIT_NOT_GRADED, EXIT_PASSED
from grader.words.i18n import LANGUAGES

if TYPE_CHECKING:
    from grader.words.i18n import Catalog
    from grader.words.problems import Param

EXIT_WRITTEN, EXIT_USAGE = EXIT_PASSED, EXIT_NOT_GRADED  # `grader report`'s names for them


COMMAND = Command(
    "report",
    "help.report.summary",
    (
        arg("out_dir", metavar="OUT_DIR", help="help.report.out_dir"),
        arg("--html", metavar="FILE", help="help.report.html"),
        arg("--lang", choices=LANGUAGES, help="help.report.lang"),
        LAB,
    ),
    description="help.report.description",
    epilog="help.report.epilog",
)
"""`grader report`'s arguments (`grader.cli.commands`); `run(args)` runs it."""


def add_parser(subparsers: Any, catalog: Catalog | None = None) -> argparse.ArgumentParser:
    """Add `report` to the `grader` command's subparsers, in `catalog`'s language
    (English by default); `run(args)` runs it."""
    from grader.cli.parser import build, english

    return build(subparsers, COMMAND, catalog or english())


add_report_parser = add_parser


def run(args: argparse.Namespace) -> int:
    """Run `grader report` from parsed arguments; returns the exit status."""
    from grader.engine.labs import LabError, choose
    from grader.system.faults import OutputError
    from grader.system.output import say
    from grader.words.i18n import Catalog, language_from_environment

    lang = args.lang or language_from_environment()
    catalog = Catalog(lang, ("grader",))

    def tell(key: str, **params: Param) -> None:
        say(str(catalog.text(key, params) or key), prefix="grader report")

    out = Path(args.out_dir)
    if not out.is_dir():
        tell("cli.report.no_folder", folder=str(out))
        return EXIT_USAGE
    if not (out / "results").is_dir():
        tell("cli.report.no_results", results=str(out / "results"), out=str(out))
        return EXIT_USAGE
    students, bad = read_results(out)  # once: the page and the summary below use them
    named = sorted({s.lab for s in students if s.lab})
    lab_name = getattr(args, "lab", None)
    try:
        lab = choose(lab_name, hint=named[0] if len(named) == 1 else None)
        spec_of(lab)  # a broken reference says so here, not halfway through the page
    except (LabError, ImportError, AttributeError, TypeError) as exc:
        detail = exc.text(catalog) if isinstance(exc, LabError) else f"{type(exc).__name__}: {exc}"
        tell("cli.report.no_lab", name=lab_name or "", detail=detail)
        return EXIT_USAGE
    html_path = Path(args.html) if args.html else out / "report.html"
    try:
        data = write_class_report(out, html_path, lang, lab=lab, read=(students, bad))
    except OSError as exc:
        say(OutputError.of(str(html_path), exc).text(catalog), prefix="grader report")
        return EXIT_USAGE
    shown, unreadable = data.students, data.unreadable
    graded = sum(s.gradable for s in shown)
    tell("cli.report.done", count=len(shown), graded=graded, path=str(html_path))
    if unreadable:
        names = [u.name for u in unreadable]
        some = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        tell("cli.report.unreadable", count=len(unreadable), names=some)
    return EXIT_WRITTEN


run_report = run


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.class_report OUT_DIR`, as `grader report OUT_DIR`."""
    from grader.cli.parser import parse_alone

    return run(parse_alone(COMMAND, ["report", *(sys.argv[1:] if argv is None else argv)]))
