"""The commands that describe a lab rather than grade: `grader checks`, `grader labs` and
`grader explain CHECK_ID`, each in the user's language.

`checks` lists every check id with its points and title; `--rubric FILE` shows that
rubric's points and the checks it disables (the file is validated exactly as `grader
check` validates it, and a bad one is exit 2 with the same sentence). `explain` says
what one check proves, why it matters and how to redo the step (`grader.cli.explain`); an id
that is no check's is exit 2 with the closest ids offered.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from grader.cli.commands import LAB, LANG, RUBRIC, Command, arg
from grader.system.exits import EXIT_NOT_GRADED, EXIT_PASSED
from grader.system.output import say, write

if TYPE_CHECKING:
    from grader.cli.commands import Arguments
    from grader.engine.lab import Lab
    from grader.words.i18n import Catalog

COMMANDS = {
    "checks": Command(
        "checks",
        "help.checks.summary",
        (arg("--rubric", metavar="FILE", help="help.checks.rubric"), LANG, LAB),
    ),
    "labs": Command("labs", "help.labs.summary", (LANG,)),
    "explain": Command(
        "explain",
        "help.explain.summary",
        (arg("check_id", metavar="CHECK_ID", help="help.explain.check_id"), RUBRIC, LANG, LAB),
        description="help.explain.description",
    ),
}
"""The declarations of these commands' arguments (`grader.cli.commands`)."""


def _catalog(args: Arguments, lab: Lab | None) -> Catalog:
    from grader.engine.grade import catalog_for
    from grader.words.i18n import Catalog, language_from_environment

    lang = getattr(args, "lang", None) or language_from_environment()
    return catalog_for(lab, lang) if lab is not None else Catalog(lang, ("grader",))


def check_title(lab: Lab, check_id: str, catalog: Catalog) -> str:
    """The title of one of the lab's checks, in the catalog's language."""
    files = {f"{a.name}.schema": a.filename for a in lab.artifacts}
    if check_id in files:
        return str(catalog.text("engine.schema_check.title", {"file": files[check_id]}))
    return str(catalog.text(f"{check_id}.title") or check_id)


def list_checks(args: Arguments) -> int:
    """Each check id, its points in the rubric (`-` when it disables it) and its title."""
    from grader.engine.labs import choose
    from grader.engine.rubric import RubricError, load_lab_rubric

    lab = choose(args.lab)
    catalog = _catalog(args, lab)
    try:
        settings = load_lab_rubric(lab, args.rubric).settings()
    except RubricError as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    rows = []
    for cid in lab.all_check_ids():
        entry, title = settings[cid], check_title(lab, cid, catalog)
        if entry.get("enabled", True):
            rows.append((cid, f"{entry['points']:g}", title))
        else:
            rows.append((cid, "-", str(catalog.text("cli.checks.disabled", {"title": title}))))
    if sys.stdout.isatty():
        import shutil

        print("\n".join(table(rows, shutil.get_terminal_size((80, 24)).columns)))
    else:  # a pipe or a file: one tab-separated line per check, for cut and awk
        print("\n".join("\t".join(row) for row in rows))
    return EXIT_PASSED


def table(rows: list[tuple[str, str, str]], columns: int) -> list[str]:
    """The checks as a terminal shows them: the ids in one column, the points right-aligned
    in the next, each title wrapped within the rest of the line (a wide character takes
    two columns), its continuation lines under its start."""
    from grader.words.wrap import wrap

    id_width = max((len(r[0]) for r in rows), default=0)
    points_width = max((len(r[1]) for r in rows), default=0)
    lead = id_width + 2 + points_width + 2
    room = max(20, columns - 1 - lead)
    lines = []
    for cid, points, title in rows:
        head = f"{cid.ljust(id_width)}  {points.rjust(points_width)}  "
        wrapped = wrap(title, room) or [""]
        lines.append(head + wrapped[0])
        lines.extend(" " * lead + more for more in wrapped[1:])
    return lines


def list_labs(args: Arguments) -> int:
    """Each installed lab: its name, what it is (in its own catalog's words), and where
    it comes from."""
    from grader.engine.labs import LabError, installed, lab_title, load

    engine = _catalog(args, None)
    found = installed()
    if not found:
        say(engine.text("lab.none", {"group": "grader.labs"}) or "lab.none")
        return EXIT_NOT_GRADED
    for point in found:
        try:
            lab = load(point.name)
            title = lab_title(lab, _catalog(args, lab))
        except LabError as error:
            title = error.text(engine)
        print(f"{point.name}\t{title}\t{point.value}")
    return EXIT_PASSED


def explain_check(args: Arguments) -> int:
    """What one check proves, why it matters and how to redo it, or exit 2 for an id that
    is no check's (with the closest ids)."""
    from grader.cli.explain import UnknownCheck, explain
    from grader.engine.labs import choose
    from grader.engine.rubric import RubricError, load_lab_rubric

    lab = choose(args.lab)
    catalog = _catalog(args, lab)
    try:
        rubric = load_lab_rubric(lab, args.rubric)
    except RubricError as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    try:
        text = explain(lab, args.check_id, catalog, rubric.settings(), _width())
    except UnknownCheck as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    write(text, None)
    return EXIT_PASSED


def _width() -> int:
    """The terminal's columns (40 to 100: prose reads badly wider), else 80."""
    if sys.stdout.isatty():
        import shutil

        return max(40, min(100, shutil.get_terminal_size((80, 24)).columns))
    return 80


_RUN = {"checks": list_checks, "labs": list_labs, "explain": explain_check}


def run(args: Arguments) -> int:
    """Run one of `COMMANDS`."""
    return _RUN[args.command](args)
