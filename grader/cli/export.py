"""`grader export OUT_DIR`: a finished batch's results as an LMS gradebook and feedback files.

    grader export OUT_DIR --to canvas|moodle --roster ROSTER.csv [--key COLUMN]
                  [--columns total|step|check] [--assignment NAME] [--assignment-id ID]
                  [--user-field COLUMN] [--output FILE]
                  [--feedback DIR] [--feedback-format md|html] [--lang L]

Grade once with `grader batch`, export as often as needed (to Canvas now, to Moodle
next term, per step after a re-grade): the export reads `OUT_DIR/results/*.json` and
nothing else. The roster (`grader.export.roster`) says who each submission is in the LMS;
a submission it does not name, a student it names without a graded submission and a key
claimed twice are each reported on stderr and listed in `FILE.unmatched.csv` beside the
export, never dropped silently. `--feedback DIR` writes one file per student
(`grader.export.feedback`), with or without `--to`.

Exit status: 0 written, every submission matched; 1 written, but some submission has no
grade in it (no roster row, an ambiguous key, or not gradable) or a roster student has
no graded submission; 2 bad usage, no results, an unusable roster, can't write.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.cli.commands import Command, arg
from grader.system.exits import EXIT_FAILED, EXIT_NOT_GRADED, EXIT_PASSED
from grader.words.i18n import LANGUAGES

if TYPE_CHECKING:
    from collections.abc import Callable

    from grader.engine.result import Result
    from grader.export.columns import Column
    from grader.export.lms import ExportRow
    from grader.export.roster import Matching, Roster
    from grader.words.i18n import Catalog
    from grader.words.problems import Param

    Tell = Callable[..., None]
    """Says one catalog message (its id, its parameters) on stderr."""

TARGETS = {"canvas": "Canvas", "moodle": "Moodle"}
"""The LMSs an export is written for: the `--to` value, and the name a person reads."""
PREVIEW = 5  # ids named on stderr; the file lists them all


def _command() -> Command:
    from grader.export.columns import MODES
    from grader.export.feedback import FORMATS

    return Command(
        "export",
        "help.export.summary",
        (
            arg("out_dir", metavar="OUT_DIR", help="help.export.out_dir"),
            arg("--to", choices=TARGETS, help="help.export.to"),
            arg("--roster", metavar="CSV", help="help.export.roster"),
            arg("--key", metavar="COLUMN", help="help.export.key"),
            arg("--columns", choices=MODES, default="total", help="help.export.columns"),
            arg("--assignment", metavar="NAME", help="help.export.assignment"),
            arg("--assignment-id", metavar="ID", help="help.export.assignment_id"),
            arg("--user-field", metavar="COLUMN", help="help.export.user_field"),
            arg("--output", metavar="FILE", help="help.export.output"),
            arg("--feedback", metavar="DIR", help="help.export.feedback"),
            arg("--feedback-format", choices=FORMATS, default="md", help="help.export.format"),
            arg("--lang", choices=list(LANGUAGES), help="help.export.lang"),
        ),
        description="help.export.description",
    )


COMMAND = _command()
"""`grader export`'s arguments (`grader.cli.commands`); `run(args)` runs it."""


def add_parser(subparsers: Any, catalog: Catalog | None = None) -> argparse.ArgumentParser:
    """Add `export` to the `grader` command's subparsers, in `catalog`'s language
    (English by default); `run(args)` runs it."""
    from grader.cli.parser import build, english

    return build(subparsers, COMMAND, catalog or english())


class _Stop(Exception):
    """Stop with exit 2 after saying why (a catalog message)."""

    def __init__(self, message_id: str, **params: Param) -> None:
        super().__init__(message_id)
        self.message_id, self.params = message_id, params


def _listed(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:PREVIEW])
    return shown + (", …" if len(ids) > PREVIEW else "")


def _problems_csv(rows: Sequence[Sequence[str]]) -> bytes:
    from grader.export.lms import BOM
    from grader.export.spreadsheet import text_cell

    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(["id", "source", "score", "problem"])
    writer.writerows([[text_cell(cell) for cell in row] for row in rows])
    return (BOM + buffer.getvalue()).encode("utf-8")


def _feedback(args: argparse.Namespace, results: list[tuple[str, Result]], tell: Tell) -> None:
    from grader.engine.grade import catalog_for
    from grader.engine.labs import LabError, lab_of
    from grader.export.feedback import WRITERS
    from grader.system.faults import write_output

    folder = Path(args.feedback)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        detail = exc.strerror or str(exc)
        raise _Stop("export.cant_write", path=str(folder), detail=detail) from None
    write = WRITERS[args.feedback_format]
    catalogs: dict[tuple[str, str], Catalog] = {}
    for result_id, result in results:
        lang = result.language  # one language per file: its messages can't be reworded
        if (result.lab, lang) not in catalogs:
            from grader.words.i18n import Catalog

            try:
                catalogs[(result.lab, lang)] = catalog_for(lab_of(result.lab), lang)
            except (LabError, ImportError, AttributeError):
                catalogs[(result.lab, lang)] = Catalog(lang, ("grader",))
        text = write(result, catalogs[(result.lab, lang)])
        write_output(str(folder / f"{result_id}.{args.feedback_format}"), text.encode("utf-8"))
    tell("export.feedback_written", count=len(results), path=str(folder))


def _gradebook(args: argparse.Namespace, results: list[tuple[str, Result]], tell: Tell) -> bool:
    """Write the LMS file; True when every submission and roster student is in it."""
    from grader.export import lms
    from grader.export.columns import columns
    from grader.export.roster import (
        RosterError,
        Submission,
        first_of,
        key_column,
        match,
        read_roster,
    )
    from grader.system.faults import write_output

    try:
        roster = read_roster(args.roster)
        key = key_column(roster, args.key)
    except OSError as exc:
        raise _Stop("export.cant_read", path=args.roster, detail=exc.strerror or str(exc)) from None
    except RosterError as exc:
        raise _Stop(exc.message_id, path=args.roster, **exc.params) from None
    by_id = dict(results)
    matching = match(roster, key, [Submission.of(i, r.submission) for i, r in results])
    labs = sorted({r.lab for _, r in results if r.lab})
    assignment = args.assignment or (labs[0] if len(labs) == 1 else "grade")
    cols = columns([r for _, r in results], args.columns)
    rows = [lms.ExportRow(row, by_id[sid]) for row, sid in matching.matched]
    output = args.output or str(Path(args.out_dir) / f"{args.to}.csv")
    if args.to == "canvas":
        if first_of(lms.CANVAS_IDENTITY, roster) is None:
            raise _Stop("export.no_canvas_identity", path=args.roster)
        assignment, assignment_id = _canvas_assignment(args, roster, labs, assignment, tell)
        data = lms.canvas_csv(rows, cols, assignment, assignment_id)
    else:
        user_field = args.user_field or (
            key if key in lms.MOODLE_USER_FIELDS else first_of(lms.MOODLE_USER_FIELDS, roster)
        )
        if user_field is None or not roster.has(user_field):
            raise _Stop(
                "export.no_user_field",
                path=args.roster,
                column=user_field or "",
                fields=", ".join(lms.MOODLE_USER_FIELDS),
            )
        item = _moodle_item(args, roster, labs, assignment, tell)
        data = _moodle(rows, cols, assignment, user_field, args, item)
    write_output(output, data)
    tell("export.written", lms=TARGETS[args.to], count=len(rows), columns=len(cols), path=output)
    return _report(matching, by_id, output + ".unmatched.csv", tell, args)


def _canvas_assignment(
    args: argparse.Namespace, roster: Roster, labs: list[str], assignment: str, tell: Tell
) -> tuple[str, str | None]:
    """The Canvas assignment the total goes into: by default the roster's (Canvas's own
    gradebook export) assignment that names the lab, so the grades fill the instructor's
    column instead of making a new assignment. An id names one; a name the roster has is
    that assignment; a name it has not is a new assignment, as asked."""
    from grader.export import lms

    known = lms.canvas_assignments(roster.columns)
    if args.assignment_id is not None:
        titles = [t for t, i in known if i == args.assignment_id]
        return (args.assignment or (titles[0] if titles else assignment)), args.assignment_id
    if args.assignment is not None:
        same = [i for t, i in known if lms.plain(t) == lms.plain(args.assignment)]
        return args.assignment, (same[0] if len(same) == 1 else None)
    if args.columns != "total":
        return assignment, None
    named = [(t, i) for t, i in known if lms.of_lab([t], *labs[:1])]
    if len(named) == 1:
        tell("export.canvas_into", title=named[0][0], id=named[0][1])
        return named[0]
    if known:
        listed = _listed([f"{t} ({i})" for t, i in (named or known)])
        raise _Stop("export.canvas_which", path=args.roster, lab=assignment, assignments=listed)
    tell("export.canvas_new", path=args.roster, title=assignment)
    return assignment, None


def _moodle_item(
    args: argparse.Namespace, roster: Roster, labs: list[str], assignment: str, tell: Tell
) -> str | None:
    """The roster's (Moodle's own grade export) grade item the total goes into: the one
    `--assignment` names, else the one that names the lab; None (said) when there is none:
    Moodle then makes a new item, to which it attaches no feedback in the same import."""
    from grader.export import lms

    items = lms.moodle_items(roster.columns)
    wanted = args.assignment or (labs[0] if labs else assignment)
    same = [i for i in items if lms.plain(i) == lms.plain(wanted)]
    named = same or lms.of_lab(items, wanted)
    if len(named) == 1:
        tell("export.moodle_into", item=named[0])
        return named[0]
    tell("export.moodle_new_item", path=args.roster, title=assignment)
    return None


def _moodle(
    rows: list[ExportRow], cols: list[Column], assignment: str, user_field: str,
    args: argparse.Namespace,
    item: str | None = None,
) -> bytes:  # fmt: skip
    """The Moodle file; each feedback cell in the language its result was graded in."""
    from grader.export import lms
    from grader.words.i18n import Catalog, language_from_environment

    catalog = Catalog(args.lang or language_from_environment(), ("grader",))

    def title(name: str) -> str:
        return catalog.text("export.feedback_column", {"name": name}) or f"{name} (feedback)"

    def feedback(result: Result, column: Column) -> str:
        hint = Catalog(result.language, ("grader",)).raw("render.hint") or "what to do"
        return lms.feedback_lines(result, column, hint)

    return lms.moodle_csv(rows, cols, assignment, user_field, feedback, title, item)


def _report(
    matching: Matching,
    by_id: dict[str, Result],
    listing: str,
    tell: Tell,
    args: argparse.Namespace,
) -> bool:
    """Say who has no grade in the export and why, and list them all in `listing`;
    True when nobody is missing."""
    from grader.export.roster import who
    from grader.system.faults import write_output
    from grader.words.i18n import Catalog, language_from_environment

    catalog = Catalog(args.lang or language_from_environment(), ("grader",))
    key = matching.key

    def why(message_id: str) -> str:
        return catalog.raw(message_id) or message_id

    ungraded = [sid for _, sid in matching.matched if not by_id[sid].gradable]
    problems: list[list[str]] = []
    for sid in matching.unmatched:
        result = by_id[sid]
        score = f"{result.score:g}" if result.gradable else ""
        problems.append([sid, result.submission, score, why("export.problem_no_row")])
    for sid in ungraded:
        problems.append([sid, by_id[sid].submission, "", why("export.problem_not_graded")])
    for row in matching.ambiguous:
        problems.append([who(row, key), "", "", why("export.problem_ambiguous")])
    for row in matching.absent:
        problems.append([who(row, key), "", "", why("export.problem_no_submission")])
    if matching.unmatched:
        ids = _listed(matching.unmatched)
        tell("export.unmatched", count=len(matching.unmatched), key=key, ids=ids)
    if ungraded:
        tell("export.not_graded", count=len(ungraded), ids=_listed(ungraded))
    for name, rows in (("ambiguous", matching.ambiguous), ("absent", matching.absent)):
        if rows:
            keys = [who(row, key) for row in rows]
            tell(f"export.{name}", count=len(keys), key=key, keys=_listed(keys))
    if problems:
        write_output(listing, _problems_csv(problems))
        tell("export.listed", path=listing)
    elif os.path.isfile(listing):  # a stale list from an earlier export would mislead
        os.remove(listing)
    return not problems


def run(args: argparse.Namespace) -> int:
    """Run `grader export` from parsed arguments; returns the exit status."""
    from grader.class_report.results import result_files
    from grader.system.faults import OutputError
    from grader.words.i18n import Catalog, language_from_environment
    from grader.words.visible import visible

    catalog = Catalog(args.lang or language_from_environment(), ("grader",))

    def tell(message_id: str, **params: Param) -> None:
        text = catalog.text(message_id, params) or message_id
        print(f"grader export: {visible(text)}", file=sys.stderr)

    try:
        if args.to is None and args.feedback is None:
            raise _Stop("export.nothing_to_do")
        if args.to is not None and args.roster is None:
            raise _Stop("export.no_roster", to=args.to, lms=TARGETS[args.to])
        canvas_id = args.to == "canvas" and (args.assignment_id or "0").isdigit()
        if args.assignment_id is not None and not canvas_id:
            raise _Stop("export.bad_assignment_id", id=args.assignment_id)
        out = Path(args.out_dir)
        if not (out / "results").is_dir():
            raise _Stop("export.no_results", path=str(out / "results"), out=str(out))
        found = result_files(out)
        results = [(name, result) for name, result, _ in found if result is not None]
        bad = [name for name, result, _ in found if result is None]
        if bad:
            tell("export.unreadable", count=len(bad), names=_listed(bad))
        if not results:
            raise _Stop("export.no_results", path=str(out / "results"), out=str(out))
        complete = True
        if args.to is not None:
            complete = _gradebook(args, results, tell)
        if args.feedback is not None:
            _feedback(args, results, tell)
    except _Stop as stop:
        tell(stop.message_id, **stop.params)
        return EXIT_NOT_GRADED
    except OutputError as exc:
        print(f"grader export: {visible(exc.text(catalog))}", file=sys.stderr)
        return EXIT_NOT_GRADED
    return EXIT_PASSED if complete else EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.cli.export OUT_DIR ...`, as `grader export OUT_DIR ...`."""
    parser = argparse.ArgumentParser(prog="grader")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(["export", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
