"""The command line as data: each command's arguments declared as a table.

Each command declares its arguments as a `Command` of `Arg`s (the flags, argparse's
keywords and the catalog id of the help text), so the words live in the catalogs
(`[help]` in grader/messages) and a new option is one row. `grader.cli_parser` builds the
argparse parser of a `Command` in the user's language, and argparse reads every command
line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from grader.i18n import LANGUAGES
from grader.problems import Param
from grader.records import field, record

if TYPE_CHECKING:
    import argparse
    from typing import Any

    Arguments = argparse.Namespace
    """A command line read by argparse."""


@record(frozen=True)
class Arg:
    """One argument of a command: its flags (or its positional name), the catalog id of
    its help text (with the text's parameters) and argparse's other keywords."""

    flags: tuple[str, ...]
    help: str
    options: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Param] = field(default_factory=dict)
    group: str | None = None
    """Arguments with the same group name are mutually exclusive."""


def arg(
    *flags: str,
    help: str,
    params: Mapping[str, Param] | None = None,
    group: str | None = None,
    **options: Any,
) -> Arg:
    """`Arg(flags, help, options)` written the way `add_argument` is called."""
    return Arg(tuple(flags), help, options, dict(params or {}), group)


@record(frozen=True)
class Command:
    """One subcommand: its name, the catalog ids of its one-line summary (the list in
    `grader --help`), its description and epilog, and its arguments."""

    name: str
    summary: str
    args: tuple[Arg, ...] = ()
    description: str | None = None
    epilog: str | None = None
    params: Mapping[str, Param] = field(default_factory=dict)
    """Parameters of the summary, description and epilog texts."""


LANG = arg("--lang", choices=LANGUAGES, help="help.common.lang")
RUBRIC = arg("--rubric", metavar="FILE", help="help.common.rubric")
LAB = arg("--lab", metavar="NAME", help="help.common.lab")
"""The options every command that grades or reads results takes, worded once."""


def language(argv: list[str] | tuple[str, ...]) -> str:
    """The language a command line speaks before it is parsed: its `--lang` (anywhere in
    it, so `--lang ja --help` works), else the environment's."""
    from grader.i18n import language_from_environment

    named = option_value(argv, "--lang")
    return named if named in LANGUAGES else language_from_environment()


def option_value(argv: list[str] | tuple[str, ...], option: str) -> str | None:
    """The value of `option` on the command line (`--lang ja`, `--lang=ja`), read before
    the parser is built: the lab and the language shape it."""
    for index, given in enumerate(argv):
        if given == "--":
            return None
        if given == option and index + 1 < len(argv):
            return argv[index + 1]
        if given.startswith(option + "="):
            return given.partition("=")[2]
    return None
