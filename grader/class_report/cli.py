"""`grader report OUT_DIR [--html FILE] [--lang L]`, and `write_class_report`, which
`grader batch … --html FILE` calls at the end of the batch."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.class_report.page import load_class, render_report
from grader.class_report.results import read_results
from grader.class_report.spec import INSTALLED, lab_of, spec_of
from grader.exits import EXIT_NOT_GRADED, EXIT_PASSED
from grader.i18n import LANGUAGES

EXIT_WRITTEN, EXIT_USAGE = EXIT_PASSED, EXIT_NOT_GRADED  # `grader report`'s names for them


def write_class_report(out_dir: Path, html_path: Path, lang: str, lab: Any = INSTALLED) -> None:
    """Write the class report of the batch folder `out_dir` to `html_path` (atomically),
    from its result files alone.

    `lab` is the graded lab (a `Lab`, its name or "package.module:ATTRIBUTE", as
    `grader batch` takes it; `INSTALLED`: the only installed lab): its `ClassReportSpec`
    gives the page its own sections and its integrity flags, and only its results are
    shown (a result of another lab is listed as unreadable)."""
    from grader.atomic import write_atomic

    the_lab = lab_of(lab)
    page = render_report(load_class(out_dir, the_lab.name), lang, the_lab)
    write_atomic(str(html_path), page.encode("utf-8", "replace"))


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `report` to the `grader` command's subparsers; `run(args)` runs it."""
    from grader.labs import add_lab_option

    parser = subparsers.add_parser(
        "report",
        help="write the class report (one HTML page) of a finished grader batch",
        description=(
            "Read OUT_DIR/results/*.json, the results alone, and write one "
            "self-contained HTML page: score "
            "distribution, pass rate of every check, the lab's own sections, "
            "integrity flags and every student's feedback. "
            "Exit status: 0 written, 2 bad usage (no such folder, no results/, no lab, "
            "can't write)."
        ),
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of grader batch")
    parser.add_argument(
        "--html", metavar="FILE", help="where to write the page (default: OUT_DIR/report.html)"
    )
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        help="language of the page (default: from LC_ALL / LC_MESSAGES / LANG, else en); "
        "each student's feedback stays in the language it was graded in",
    )
    add_lab_option(parser)
    parser.epilog = (
        "Without --lab, the lab the results name is used when it is installed, else the "
        "only installed lab."
    )
    return parser


add_report_parser = add_parser


def run(args: argparse.Namespace) -> int:
    """Run `grader report` from parsed arguments; returns the exit status."""
    from grader.i18n import language_from_environment
    from grader.labs import LabError, choose

    out = Path(args.out_dir)
    if not out.is_dir():
        print(f"grader report: no such folder: {out}", file=sys.stderr)
        return EXIT_USAGE
    if not (out / "results").is_dir():
        print(
            f"grader report: {out / 'results'} not found: run `grader batch … --out {out}` first",
            file=sys.stderr,
        )
        return EXIT_USAGE
    students, _ = read_results(out)
    named = sorted({s.lab for s in students if s.lab})
    lab_name = getattr(args, "lab", None)
    try:
        lab = choose(lab_name, hint=named[0] if len(named) == 1 else None)
        spec_of(lab)  # a broken reference says so here, not halfway through the page
    except (LabError, ImportError, AttributeError, TypeError) as exc:
        print(f"grader report: can't load the lab {lab_name or ''}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    html_path = Path(args.html) if args.html else out / "report.html"
    lang = args.lang or language_from_environment()
    try:
        write_class_report(out, html_path, lang, lab=lab)
    except OSError as exc:
        print(f"grader report: can't write {html_path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    shown, unreadable = read_results(out, lab.name)
    graded = sum(s.gradable for s in shown)
    extra = f", {len(unreadable)} unreadable result files" if unreadable else ""
    print(
        f"grader report: {len(shown)} submissions, {graded} graded{extra}; report in {html_path}",
        file=sys.stderr,
    )
    return EXIT_WRITTEN


run_report = run


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.class_report OUT_DIR`, as `grader report OUT_DIR`."""
    parser = argparse.ArgumentParser(prog="grader")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(["report", *(sys.argv[1:] if argv is None else argv)]))
