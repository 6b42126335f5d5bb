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
import importlib
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

DEFAULT_DIR = "/root/voice/llm"

# Commands whose modules are imported only when they run (or for --help): `grader check`
# must not pay for the batch runner or the class report. name -> (module, help)
_HEAVY = {
    "batch": ("grader.batch", "grade many submissions (folders, archives) into a gradebook"),
    "report": ("grader.class_report", "write the class report (one HTML page) of a finished batch"),
}


def _parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    from grader.i18n import LANGUAGES
    from grader.render import FORMATS

    parser = argparse.ArgumentParser(
        prog="grader",
        description="Grade a 'first token' lab submission offline, from its saved files.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="grade one submission folder")
    check.add_argument(
        "dir",
        nargs="?",
        default=DEFAULT_DIR,
        help=f"the submission folder (default: {DEFAULT_DIR})",
    )
    check.add_argument(
        "--server-log", metavar="PATH", help="the server log (default: server.log in DIR)"
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
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show notes on passed checks and every problem of each file",
    )
    sub.add_parser("checks", help="list the lab's check ids with their points and titles")
    first = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_text) in _HEAVY.items():
        if first == name:
            getattr(importlib.import_module(module), f"add_{name}_parser")(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


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


def _sample_hint() -> str:
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    samples = os.path.join(here, "sample_submissions", "correct")
    shown = samples if os.path.isdir(samples) else os.path.join("sample_submissions", "correct")
    return f"To try the grader on a bundled sample: grader check {shown}"


def _color(choice: str, output: str | None) -> bool:
    if choice != "auto":
        return choice == "always"
    return output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _catalog(lang: str | None) -> Any:
    from checks import LAB
    from grader.grade import catalog_for
    from grader.i18n import language_from_environment

    return catalog_for(LAB, lang or language_from_environment())


def _check(args: argparse.Namespace) -> int:
    from checks import LAB
    from grader.exits import check_status
    from grader.grade import NotGradable, catalog_for, grade, not_gradable
    from grader.i18n import language_from_environment
    from grader.rubric import RubricError, load_lab_rubric

    lang = args.lang or language_from_environment()
    catalog = catalog_for(LAB, lang)
    try:
        rubric = load_lab_rubric(LAB, args.rubric, "checks")
    except RubricError as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    overrides = {"log": args.server_log} if args.server_log else {}
    try:
        result = grade(LAB, args.dir, rubric, lang=lang, overrides=overrides)
    except NotGradable as exc:
        result = not_gradable(LAB, args.dir, rubric.version, exc.problem, lang)
        say(result.format_errors[0])
        if args.dir == DEFAULT_DIR:
            say(_sample_hint())
        if args.format == "text":
            return EXIT_NOT_GRADED
    except Exception as exc:  # a grader bug: still a valid result saying so, and exit 3
        return _internal_error(args, catalog, exc, rubric.version)
    _render(args, result, catalog)
    return check_status(result)


def _render(args: argparse.Namespace, result: Any, catalog: Any) -> None:
    from grader.render import RenderOptions, renderer

    options = RenderOptions(catalog, _color(args.color, args.output), args.verbose)
    _write(renderer(args.format)(result, options), args.output)


def _internal_error(args: argparse.Namespace, catalog: Any, exc: Exception, rubric: str) -> int:
    """Say that the grader failed (not the student), and where a machine reads results,
    give it a valid result that says so: `gradable` false, `grader_error` true."""
    from checks import LAB
    from grader.result import Result

    detail = f"{type(exc).__name__}: {exc}"
    message = catalog.text("cli.internal_error", {"detail": detail}) or detail
    say(message)
    if args.format != "text":
        result = Result.ungradable(
            grader_version=__version__,
            lab=LAB.name,
            rubric_version=rubric,
            language=catalog.lang,
            submission=args.dir,
            errors=[message],
            grader_error=True,
        )
        _render(args, result, catalog)
    return EXIT_GRADER_ERROR


def _list_checks() -> int:
    from checks import LAB
    from grader.rubric import load_lab_rubric

    rubric = load_lab_rubric(LAB, None, "checks").settings()
    catalog = _catalog(None)
    for spec in LAB.artifacts:
        title = catalog.text("engine.schema_check.title", {"file": spec.filename})
        print(f"{spec.name}.schema\t{rubric[spec.name + '.schema']['points']:g}\t{title}")
    for chk in LAB.checks:
        print(f"{chk.id}\t{rubric[chk.id]['points']:g}\t{catalog.text(chk.id + '.title')}")
    return EXIT_PASSED


def main(argv: Sequence[str] | None = None) -> int:
    drop_working_directory()  # the `grader` script's; `python -m grader` did it already
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser(argv).parse_args(argv)
    try:
        if args.command in _HEAVY:
            module = importlib.import_module(_HEAVY[args.command][0])
            return int(getattr(module, f"run_{args.command}")(args))
        if args.command == "checks":
            return _list_checks()
        return _check(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `grader check | head`: the reader left; nothing to say
        _silence_stdout()
        return EXIT_PASSED
    except Exception as exc:
        from grader.faults import OutputError

        catalog = _catalog(getattr(args, "lang", None))
        if isinstance(exc, OutputError):  # a full disk, a missing folder: not a bug
            say(exc.text(catalog))
            return EXIT_NOT_GRADED
        # a grader bug: say so, and don't pass for "some check failed"
        detail = f"{type(exc).__name__}: {exc}"
        say(catalog.text("cli.internal_error", {"detail": detail}) or detail)
        return EXIT_GRADER_ERROR


if __name__ == "__main__":
    sys.exit(main())
