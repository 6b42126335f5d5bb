"""Command line: `grader check [DIR]` and friends.

Exit status is part of the contract (`grader.system.exits`, the README's table): 0 every check
passed, 1 some check did not pass, 2 the grader could not grade (bad usage, no such
folder, unusable rubric, output that can't be written), 3 the grader itself failed (a
check crashed, an internal error). Results go to stdout (always as UTF-8) or,
atomically, to `--output`; diagnostics about the run itself go to stderr, one sentence
each, in the user's language, with every control character of a path made visible.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grader import __version__
from grader.cli import describe as cli_lab
from grader.cli.commands import (
    LAB,
    LANG,
    RUBRIC,
    Command,
    arg,
    language,
    misspelt_option,
    option_value,
)
from grader.system.exits import EXIT_GRADER_ERROR, EXIT_NOT_GRADED, EXIT_PASSED, interrupted_status
from grader.system.output import say
from grader.system.output import silence_stdout as _silence_stdout
from grader.system.output import write as _write
from grader.system.syspath import drop_working_directory

if TYPE_CHECKING:
    from types import ModuleType

    from grader.cli.commands import Arguments
    from grader.cli.parser import Parser
    from grader.engine.lab import Lab
    from grader.engine.result import Result
    from grader.engine.rubric import Rubric
    from grader.words.i18n import Catalog

# Commands whose modules are imported only when they run (or for their --help): `grader
# check` must not pay for the batch runner or the class report. name -> (its summary's
# id, its module)
_HEAVY = {
    "batch": ("help.batch.summary", "grader.cli.batch"),
    "report": ("help.report.summary", "grader.cli.report"),
    "export": ("help.export.summary", "grader.cli.export"),
    "gradescope-zip": ("help.gradescope_zip.summary", "grader.cli.gradescope"),
    "prairielearn": ("help.prairielearn.summary", "grader.cli.prairielearn"),
    "pyz": ("help.pyz.summary", "grader.cli.pyz"),
}


def _check_command(lab: Lab | None) -> Command:
    """`grader check`: its options depend on the lab (its default folder, its path options)."""
    from grader.render import FORMATS

    folder = lab.default_folder if lab is not None else None
    files = {a.name: a.filename for a in lab.artifacts} if lab is not None else {}
    paths = lab.path_options.items() if lab is not None else ()
    return Command(
        "check",
        "help.check.summary",
        (
            arg(
                "dir",
                nargs="?",
                default=folder,
                metavar="DIR",
                help="help.check.dir" if folder else "help.check.dir_no_default",
                params={"folder": folder},
            ),
            *(
                arg(
                    option,
                    metavar="PATH",
                    dest=f"path_{artifact}",
                    help="help.check.path",
                    params={"file": files[artifact]},
                )
                for artifact, option in paths
            ),
            arg("--sample", metavar="NAME", help="help.check.sample"),
            arg("--format", choices=sorted(FORMATS), default="text", help="help.check.format"),
            arg("--output", metavar="FILE", help="help.check.output"),
            arg("--also", metavar="FORMAT:FILE", action="append", help="help.check.also"),
            arg("--step", metavar="STEP", help="help.check.step"),
            arg("--check", metavar="ID", help="help.check.check"),
            RUBRIC,
            LANG,
            arg("--color", choices=COLORS, default="auto", help="help.check.color"),
            arg("-v", "--verbose", action="store_true", help="help.check.verbose", group="amount"),
            arg("-q", "--quiet", action="store_true", help="help.check.quiet", group="amount"),
            LAB,
        ),
    )


COLORS = ("auto", "always", "never")


def _chosen_lab(argv: Sequence[str]) -> Lab | None:
    """The lab the command line names (or the only installed one); None when none can be
    chosen: the parser is then built without the lab's options, and the command says why."""
    from grader.engine.labs import LabError, choose

    try:
        return choose(option_value(argv, "--lab"))
    except LabError:
        return None


_VERSION: dict[str, Any] = {"action": "version", "version": f"%(prog)s {__version__}"}
ROOT_ARGS = (
    arg("-V", "--version", help="help.grader.version", **_VERSION),
    arg("--lang", choices=LANG.options["choices"], dest="root_lang", help=LANG.help),
)
"""The options of `grader` itself, before the command."""


def _parser(argv: Sequence[str], lab: Lab | None, catalog: Catalog) -> Parser:
    """The `grader` parser, every word from `catalog` (build it inside `speaking`)."""
    from grader.cli.parser import add_args, build, listed, root

    if lab is not None:
        from grader.engine.labs import lab_title

        parser = root(catalog, "help.grader.description", {"lab": lab_title(lab, catalog)})
    else:
        parser = root(catalog, "help.grader.description_no_lab", {})
    add_args(parser, ROOT_ARGS, catalog)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # the command is the first word that names one: in `grader --lang ja batch`, `ja`
    # is an option's value, and a folder named `batch` comes after its command
    names = ("check", *cli_lab.COMMANDS, *_HEAVY)
    running = next((a for a in argv if a in names), None)
    for name in names:
        if name == running:
            build(sub, _command(name, lab), catalog)
        else:
            listed(sub, _summary(name, lab), catalog)
    return parser


def _command(name: str, lab: Lab | None) -> Command:
    """The declaration of the command `name` (a heavy one's module imported now)."""
    if name == "check":
        return _check_command(lab)
    if name in cli_lab.COMMANDS:
        return cli_lab.COMMANDS[name]
    command: Command = _heavy(name).COMMAND
    return command


def _summary(name: str, lab: Lab | None) -> Command:
    """What `grader --help` lists of the command `name`, without importing its module."""
    if name in _HEAVY:
        return Command(name, _HEAVY[name][0])
    return _command(name, lab)


def _heavy(name: str) -> ModuleType:
    """The module of a heavy command, imported now."""
    import importlib

    return importlib.import_module(_HEAVY[name][1])


def _color(choice: str, output: str | None) -> bool:
    if choice != "auto":
        return choice == "always"
    return output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _catalog(lang: str | None, lab: Lab | None = None) -> Catalog:
    """The catalog of `lab` (the engine's alone without one) in `lang` or the user's."""
    from grader.words.i18n import Catalog, language_from_environment

    lang = lang or language_from_environment()
    if lab is None:
        return Catalog(lang, ("grader",))
    from grader.engine.grade import catalog_for

    return catalog_for(lab, lang)


def _lab(args: Arguments) -> Lab:
    """The lab the command runs; raises `LabError` when none can be chosen."""
    from grader.engine.labs import choose

    return choose(getattr(args, "lab", None))


def _check(args: Arguments) -> int:
    from grader.engine.grade import NotGradable, catalog_for, grade, not_gradable
    from grader.engine.rubric import RubricError, load_lab_rubric
    from grader.system.exits import check_status
    from grader.words.i18n import language_from_environment

    lab = _lab(args)
    lang = args.lang or language_from_environment()
    catalog = catalog_for(lab, lang)
    if args.sample is not None:
        if args.dir is not None and args.dir != lab.default_folder:
            say(catalog.text("cli.sample_and_folder") or "give a folder or --sample, not both")
            return EXIT_NOT_GRADED
        from grader.cli.extras import sample_folder_named

        args.dir = sample_folder_named(lab, args.sample, catalog, args.format)
        if args.dir is None:
            return EXIT_NOT_GRADED
    if args.dir is None:
        say(catalog.text("cli.no_folder", {"lab": lab.name}) or "give the submission folder")
        return EXIT_NOT_GRADED
    also: list[tuple[str, str]] | None = []
    wanted: set[str] | None = set()
    if getattr(args, "also", None) or getattr(args, "step", None) or getattr(args, "check", None):
        from grader.cli.extras import also_outputs, wanted_checks

        also, wanted = also_outputs(args.also, catalog), wanted_checks(lab, args, catalog)
    if also is None or wanted is None:
        return EXIT_NOT_GRADED
    try:
        rubric = load_lab_rubric(lab, args.rubric)
    except RubricError as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    overrides = {
        artifact: path
        for artifact in lab.path_options
        if (path := getattr(args, f"path_{artifact}", None))
    }
    if args.output is not None:
        from grader.batch.outdir import output_refused  # only with --output: a check imports none

        if output_refused(args.output, args.dir, overrides.values(), catalog):
            return EXIT_NOT_GRADED
    try:
        result = grade(lab, args.dir, rubric, lang=lang, overrides=overrides)
    except NotGradable as exc:
        result = not_gradable(lab, args.dir, rubric.version, exc.problem, lang)
        say(result.format_errors[0])
        if args.dir == lab.default_folder:
            from grader.cli.extras import say_sample_hint

            say_sample_hint(lab, catalog)
        if args.format == "text":
            return EXIT_NOT_GRADED
    except Exception as exc:  # a grader bug: still a valid result saying so, and exit 3
        return _internal_error(args, catalog, exc, rubric.version, lab.name)
    if wanted:
        from grader.cli.extras import subset

        result = subset(result, wanted, args, catalog)
    _render(args, result, catalog, lab=lab, rubric=rubric, sample=args.sample)
    for fmt, path in also or ():  # the same result, in more formats, into files
        from grader.cli.extras import render_as

        render_as(fmt, path, result, catalog, lab=lab, rubric=rubric, sample=args.sample)
    return check_status(result)


def _width(output: str | None) -> int:
    """The terminal's columns when the report goes to one (40 to 200), else 80: a file or
    a pipe gets the same bytes wherever it is made."""
    if output is None and sys.stdout.isatty():
        import shutil

        return max(40, min(200, shutil.get_terminal_size((80, 24)).columns))
    return 80


def _render(
    args: Arguments,
    result: Result,
    catalog: Catalog,
    lab: Lab | None = None,
    rubric: Rubric | None = None,
    sample: str | None = None,
) -> None:
    from grader.render import RenderOptions, renderer

    options = RenderOptions(
        catalog,
        _color(args.color, args.output),
        args.verbose,
        args.quiet,
        _width(args.output),
        rubric=rubric,  # the rubric and lab, for renderers that need them (Gradescope's)
        lab=lab,
        sample=sample,
    )
    _write(renderer(args.format)(result, options), args.output)


def _internal_error(
    args: Arguments, catalog: Catalog, exc: Exception, rubric: str, lab: str
) -> int:
    """Say that the grader failed (not the student), and where a machine reads results,
    give it a valid result that says so: `gradable` false, `grader_error` true."""
    from grader.engine.result import Result

    detail = f"{type(exc).__name__}: {exc}"
    message = catalog.text("cli.internal_error", {"detail": detail}) or detail
    say(message)
    if args.format != "text":
        result = Result.ungradable(
            grader_version=__version__,
            lab=lab,
            rubric_version=rubric,
            language=catalog.lang,
            submission=args.dir,
            errors=[message],
            grader_error=True,
        )
        _render(args, result, catalog)
    return EXIT_GRADER_ERROR


def console() -> int:
    """The `grader` command (pyproject's script, `python -m grader`): `main` in a process
    that runs this one command and ends. What it imports lives until then: the collector
    is paused while the command line is read and the lab imported (collections there
    found nothing to free: ≈1 % of a cold check), and what exists then is frozen
    (`gc.freeze`), so no later collection, the one at exit included, goes over it (that
    was ≈6 %). Garbage the work makes is collected as usual."""
    import gc

    from grader.system.lifeline import handle_signals

    handle_signals()  # SIGTERM as Ctrl-C; a second one never hangs
    gc.disable()
    try:
        args, lab = _read(None)
    finally:
        gc.freeze()
        gc.enable()
    return _run(args, lab)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line `argv` (`sys.argv`'s by default), run in this process."""
    return _run(*_read(argv))


def _read(argv: Sequence[str] | None) -> tuple[Arguments, Lab | None]:
    """The command line parsed, and the lab it runs (the lab's modules imported on the
    way), by argparse, which speaks the catalog's words (its errors too: exit 2)."""
    drop_working_directory()  # the `grader` script's; `python -m grader` did it already
    argv = list(sys.argv[1:] if argv is None else argv)
    lab = _chosen_lab(argv)
    from grader.cli.parser import speaking

    catalog = _catalog(language(list(argv)), lab)
    with speaking(catalog):
        parser = _parser(argv, lab, catalog)
        misspelt_option(parser, argv, catalog)  # exits 2 with "did you mean"
        args = parser.parse_args(argv)
    if getattr(args, "lang", None) is None:  # `grader --lang ja check DIR`
        args.lang = args.root_lang
    return args, lab


def _run(args: Arguments, lab: Lab | None) -> int:
    """The command `args` names, its exit status (the README's table)."""
    try:
        if args.command == "prairielearn":  # it runs `grader check`: given, not imported
            return int(_heavy(args.command).run(args, main))
        if args.command in _HEAVY:
            return int(_heavy(args.command).run(args))
        if args.command in cli_lab.COMMANDS:
            return cli_lab.run(args)
        return _check(args)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (grader.system.lifeline)
        return interrupted_status(exc)
    except BrokenPipeError:  # `grader check | head`: the reader left; nothing to say
        _silence_stdout()
        return EXIT_PASSED
    except Exception as exc:
        from grader.engine.labs import LabError
        from grader.system.faults import OutputError

        catalog = _catalog(getattr(args, "lang", None), lab)
        if isinstance(exc, (OutputError, LabError)):  # a full disk, no lab: not a bug
            say(exc.text(catalog))
            return EXIT_NOT_GRADED
        # a grader bug: say so, and don't pass for "some check failed"
        detail = f"{type(exc).__name__}: {exc}"
        say(catalog.text("cli.internal_error", {"detail": detail}) or detail)
        return EXIT_GRADER_ERROR


if __name__ == "__main__":
    sys.exit(main())
