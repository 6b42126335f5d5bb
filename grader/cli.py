"""Command line: `grader check [DIR]` and friends.

Exit status is part of the contract (`grader.exits`, the README's table): 0 every check
passed, 1 some check did not pass, 2 the grader could not grade (bad usage, no such
folder, unusable rubric, output that can't be written), 3 the grader itself failed (a
check crashed, an internal error). Results go to stdout (always as UTF-8) or,
atomically, to `--output`; diagnostics about the run itself go to stderr, one sentence
each, in the user's language, with every control character of a path made visible.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from grader import __version__
from grader.exits import (
    EXIT_FAILED as EXIT_FAILED,  # re-exported: `grader.cli` named the statuses first
)
from grader.exits import (
    EXIT_GRADER_ERROR,
    EXIT_INTERRUPTED,
    EXIT_NOT_GRADED,
    EXIT_PASSED,
)
from grader.syspath import drop_working_directory

# Commands whose modules are imported only when they run (or for --help): `grader check`
# must not pay for the batch runner or the class report. name -> help
_HEAVY = {
    "batch": "grade many submissions (folders, archives) into a gradebook",
    "report": "write the class report (one HTML page) of a finished batch",
    "export": "turn a finished batch into a Canvas or Moodle gradebook and feedback files",
}


def _lab_named(argv: Sequence[str]) -> str | None:
    """The `--lab NAME` of the command line, read before the parser is built (the lab's
    defaults and options shape it)."""
    for index, arg in enumerate(argv):
        if arg == "--lab" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lab="):
            return arg.partition("=")[2]
    return None


def _chosen_lab(argv: Sequence[str]) -> Any:
    """The lab the command line names (or the only installed one); None when none can be
    chosen: the parser is then built without the lab's options, and the command says why."""
    from grader.labs import LabError, choose

    try:
        return choose(_lab_named(argv))
    except LabError:
        return None


def _parser(argv: Sequence[str], lab: Any) -> argparse.ArgumentParser:
    from grader.i18n import LANGUAGES
    from grader.labs import add_lab_option
    from grader.render import FORMATS

    what = f"a submission of {lab.title or lab.name}" if lab is not None else "a lab submission"
    parser = argparse.ArgumentParser(
        prog="grader", description=f"Grade {what} offline, from its saved files."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="grade one submission folder")
    folder = lab.default_folder if lab is not None else None
    check.add_argument(
        "dir",
        nargs="?",
        default=folder,
        help=f"the submission folder (default: {folder or 'none, the lab has no default'})",
    )
    files = {a.name: a.filename for a in lab.artifacts} if lab is not None else {}
    for artifact, option in lab.path_options.items() if lab is not None else ():
        check.add_argument(
            option,
            metavar="PATH",
            dest=f"path_{artifact}",
            help=f"{files[artifact]} from PATH (default: {files[artifact]} in DIR)",
        )
    check.add_argument(
        "--sample",
        metavar="NAME",
        help="grade the lab's bundled sample NAME instead of a folder (e.g. correct)",
    )
    check.add_argument(
        "--format", choices=sorted(FORMATS), default="text", help="output format (default: text)"
    )
    check.add_argument(
        "--output", metavar="FILE", help="write the result to FILE instead of stdout"
    )
    check.add_argument(
        "--rubric", metavar="FILE", help="a rubric TOML file (default: the lab's own)"
    )
    check.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        help="language of the feedback (default: from LC_ALL / LC_MESSAGES / LANG, else en)",
    )
    check.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the text report (auto: on a terminal, unless NO_COLOR is set)",
    )
    amount = check.add_mutually_exclusive_group()
    amount.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="every check on its own line, and every problem of each file",
    )
    amount.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="only what did not pass, what to do first, and the score",
    )
    add_lab_option(check)
    checks = sub.add_parser("checks", help="list the lab's check ids with their points and titles")
    add_lab_option(checks)
    sub.add_parser("labs", help="list the installed labs")
    first = next((a for a in argv if not a.startswith("-")), None)
    for name, help_text in _HEAVY.items():
        if first == name:
            _heavy(name).add_parser(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _heavy(name: str) -> Any:
    """The module of a heavy command, imported now."""
    if name == "batch":
        from grader import batch_cli as module
    elif name == "export":
        from grader.export import cli as module
    else:
        from grader.class_report import cli as module
    return module


def say(text: str, prefix: str = "grader") -> None:
    """One diagnostic line on stderr, its control characters and odd bytes visible."""
    from grader.visible import visible

    print(f"{prefix}: {visible(text, keep_newlines=True)}", file=sys.stderr)


def _write(text: str, output: str | None) -> None:
    """Print as UTF-8 (whatever the locale), or replace `output` atomically (temporary
    file in its folder, then rename); raises `OutputError` when it can't be written."""
    from grader.faults import STDOUT, OutputError, write_output

    data = text.encode("utf-8")
    if output is not None:
        write_output(output, data)
        return
    try:
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:  # a text stream without bytes (tests capture this way)
            sys.stdout.write(text)
        else:
            sys.stdout.flush()
            stream.write(data)
            stream.flush()
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout on a full disk (or /dev/full)
        _silence_stdout()
        raise OutputError.of(STDOUT, exc) from None


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush can't fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real stdout
        pass


def _sample_hint(lab: Any, catalog: Any) -> str | None:
    """How to try the grader on the lab's bundled sample, if it ships one."""
    from grader.samples import sample_folder

    if not lab.sample or sample_folder(lab, lab.sample) is None:
        return None
    return catalog.text("cli.try_sample", {"sample": lab.sample})


def _sample(lab: Any, name: str, catalog: Any) -> str | None:
    """The folder of the bundled sample `name`; None (having said why) when there is none."""
    import difflib

    from grader.samples import sample_folder, sample_names

    folder = sample_folder(lab, name)
    if folder is not None:
        return folder
    names = sample_names(lab)
    close = difflib.get_close_matches(name, names, n=1)
    key = "cli.no_such_sample_similar" if close else "cli.no_such_sample"
    params = {"sample": name, "similar": close[0] if close else "", "names": ", ".join(names)}
    say(catalog.text(key if names else "cli.no_samples", params) or name)
    return None


def _color(choice: str, output: str | None) -> bool:
    if choice != "auto":
        return choice == "always"
    return output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _catalog(lang: str | None, lab: Any = None) -> Any:
    """The catalog of `lab` (the engine's alone without one) in `lang` or the user's."""
    from grader.i18n import Catalog, language_from_environment

    lang = lang or language_from_environment()
    if lab is None:
        return Catalog(lang, ("grader",))
    from grader.grade import catalog_for

    return catalog_for(lab, lang)


def _lab(args: argparse.Namespace) -> Any:
    """The lab the command runs; raises `LabError` when none can be chosen."""
    from grader.labs import choose

    return choose(getattr(args, "lab", None))


def _check(args: argparse.Namespace) -> int:
    from grader.exits import check_status
    from grader.grade import NotGradable, catalog_for, grade, not_gradable
    from grader.i18n import language_from_environment
    from grader.rubric import RubricError, load_lab_rubric

    lab = _lab(args)
    lang = args.lang or language_from_environment()
    catalog = catalog_for(lab, lang)
    if args.sample is not None:
        if args.dir is not None and args.dir != lab.default_folder:
            say(catalog.text("cli.sample_and_folder") or "give a folder or --sample, not both")
            return EXIT_NOT_GRADED
        args.dir = _sample(lab, args.sample, catalog)
        if args.dir is None:
            return EXIT_NOT_GRADED
    if args.dir is None:
        say(catalog.text("cli.no_folder", {"lab": lab.name}) or "give the submission folder")
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
    try:
        result = grade(lab, args.dir, rubric, lang=lang, overrides=overrides)
    except NotGradable as exc:
        result = not_gradable(lab, args.dir, rubric.version, exc.problem, lang)
        say(result.format_errors[0])
        hint = _sample_hint(lab, catalog) if args.dir == lab.default_folder else None
        if hint:
            say(hint)
        if args.format == "text":
            return EXIT_NOT_GRADED
    except Exception as exc:  # a grader bug: still a valid result saying so, and exit 3
        return _internal_error(args, catalog, exc, rubric.version, lab.name)
    _render(args, result, catalog, lab=lab, rubric=rubric)
    return check_status(result)


def _width(output: str | None) -> int:
    """The terminal's columns when the report goes to one (40 to 200), else 80: a file or
    a pipe gets the same bytes wherever it is made."""
    if output is None and sys.stdout.isatty():
        import shutil

        return max(40, min(200, shutil.get_terminal_size((80, 24)).columns))
    return 80


def _render(args: argparse.Namespace, result: Any, catalog: Any, **extra: Any) -> None:
    from grader.render import RenderOptions, renderer

    options = RenderOptions(
        catalog,
        _color(args.color, args.output),
        args.verbose,
        args.quiet,
        _width(args.output),
        **extra,  # the lab and rubric, for renderers that need them (Gradescope's)
    )
    _write(renderer(args.format)(result, options), args.output)


def _internal_error(
    args: argparse.Namespace, catalog: Any, exc: Exception, rubric: str, lab: str
) -> int:
    """Say that the grader failed (not the student), and where a machine reads results,
    give it a valid result that says so: `gradable` false, `grader_error` true."""
    from grader.result import Result

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


def _list_checks(args: argparse.Namespace) -> int:
    from grader.rubric import load_lab_rubric

    lab = _lab(args)
    rubric = load_lab_rubric(lab).settings()
    catalog = _catalog(None, lab)
    for spec in lab.artifacts:
        title = catalog.text("engine.schema_check.title", {"file": spec.filename})
        print(f"{spec.name}.schema\t{rubric[spec.name + '.schema']['points']:g}\t{title}")
    for chk in lab.checks:
        print(f"{chk.id}\t{rubric[chk.id]['points']:g}\t{catalog.text(chk.id + '.title')}")
    return EXIT_PASSED


def _list_labs() -> int:
    """Each installed lab: its name, what it is, and where it comes from."""
    from grader.labs import LabError, installed, load

    found = installed()
    if not found:
        say(_catalog(None).text("lab.none", {"group": "grader.labs"}) or "no lab is installed")
        return EXIT_NOT_GRADED
    for point in found:
        try:
            title = load(point.name).title
        except LabError as error:
            title = error.text(_catalog(None))
        print(f"{point.name}\t{title}\t{point.value}")
    return EXIT_PASSED


def main(argv: Sequence[str] | None = None) -> int:
    drop_working_directory()  # the `grader` script's; `python -m grader` did it already
    argv = list(sys.argv[1:] if argv is None else argv)
    lab = _chosen_lab(argv)
    args = _parser(argv, lab).parse_args(argv)
    try:
        if args.command in _HEAVY:
            return int(_heavy(args.command).run(args))
        if args.command == "labs":
            return _list_labs()
        if args.command == "checks":
            return _list_checks(args)
        return _check(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `grader check | head`: the reader left; nothing to say
        _silence_stdout()
        return EXIT_PASSED
    except Exception as exc:
        from grader.faults import OutputError
        from grader.labs import LabError

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
