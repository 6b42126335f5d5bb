"""The command line as data: each command's arguments declared as a table.

Each command declares its arguments as a `Command` of `Arg`s (the flags, argparse's
keywords and the catalog id of the help text), so the words live in the catalogs
(`[help]` in grader/messages) and a new option is one row. `grader.cli.parser` builds the
argparse parser of a `Command` in the user's language, and argparse reads every command
line; `misspelt_option` says which option was meant before argparse refuses one.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.words.i18n import LANGUAGES
from grader.words.problems import Param

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any, NoReturn, Protocol, TextIO

    from grader.words.i18n import Catalog

    class Parser(Protocol):
        """What `misspelt_option` asks of a `grader.cli.parser.Parser`."""

        known_options: set[str]
        subparsers: Any

        def print_usage(self, file: TextIO | None = None) -> None: ...
        def exit(self, status: int = 0, message: str | None = None) -> NoReturn: ...

    Arguments = argparse.Namespace
    """A command line read by argparse."""


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    from grader.words.i18n import language_from_environment

    named = option_value(argv, "--lang")
    return named if named in LANGUAGES else language_from_environment()


def option_value(argv: Sequence[str], option: str) -> str | None:
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


def _options(parser: Parser, argv: Sequence[str]) -> tuple[set[str], Parser]:
    """Every option string `argv` may use (the parser's own and those of the command the
    command line names), and the parser whose usage to show (that command's)."""
    found, shown = set(parser.known_options), parser
    commands = parser.subparsers.choices if parser.subparsers is not None else {}
    for name, sub in commands.items():
        if name in argv:
            found |= sub.known_options
            shown = sub
            break
    return found, shown


CLOSE = 0.8
"""How alike a misspelt option and the one suggested are (difflib's ratio): a slip of one
or two letters (`--formt`, `--samlpe`: 0.88 and more), not another word (`--verbose`
for `--version`: 0.67, which argparse reports as unrecognized)."""


def misspelt_option(parser: Parser, argv: Sequence[str], catalog: Catalog) -> None:
    """When `argv` has an option no parser knows, nor abbreviates (`--form`), but one is
    close to it (`--formt`), say which, after the usage, and exit 2: argparse would print
    the whole usage and "unrecognized arguments" without a word of what was meant."""
    known, shown = _options(parser, argv)
    for token in argv:
        if token == "--":
            return
        option = token.partition("=")[0]
        if not option.startswith("--") or option in known:
            continue
        if any(k.startswith(option) for k in known):  # an abbreviation argparse takes
            continue
        import difflib  # only for an option no parser knows

        longs = sorted(k for k in known if k.startswith("--"))
        close = difflib.get_close_matches(option, longs, n=1, cutoff=CLOSE)
        if close:
            shown.print_usage(sys.stderr)
            params = {"option": option, "similar": close[0]}
            text = catalog.text("cli.unknown_option_similar", params)
            parser.exit(2, f"grader: {text or option}\n")
