"""The command line as data: each command's arguments declared as a table, and plain
command lines read from those tables without argparse.

Each command declares its arguments as a `Command` of `Arg`s (the flags, argparse's
keywords and the catalog id of the help text), so the words live in the catalogs
(`[help]` in grader/messages) and a new option is one row. `grader.cli_parser` builds the
argparse parser of a `Command` in the user's language; `read` reads a plain command line
from the same table without it.

Why a second reader. The lab platform runs `grader check DIR --format json` once per
submission, so its start is most of what it costs (issue 13: within 4x the interpreter's
own start). Importing argparse, building the `grader` parser in the user's language and
parsing with it was ≈16 M of a cold check's ≈210 M instructions (≈8 %).

`read` takes a command line only when it is plain: every token is a declared flag spelt
out exactly (`--format json`, `--format=json`, `-v`), a value that cannot be mistaken for
an option and is one of the flag's choices, or one of the command's positionals; no flag
twice, no two flags of one exclusive group, no required positional missing. It returns
what `parse_args` would, or None, and the caller then builds the argparse parser, which
answers everything else: `--help`, `--version`, abbreviations (`--form json`), unknown
flags, `--`, a value that starts with `-`, and every error, in the user's language. So
the grammar has one definition, these tables, and `tests/test_cli_commands.py` holds
`read` to argparse's answer on generated command lines: the same namespace whenever
`read` answers, and no answer where argparse refuses.

An argument declared with an argparse keyword `read` does not interpret (`type=`,
`action="append"`, `nargs="+"`, ...) makes its command never read here: a new kind of
argument costs time until it is taught here, never a different reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING

from grader.i18n import LANGUAGES
from grader.problems import Param

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    Arguments = argparse.Namespace | SimpleNamespace
    """A command line read: by argparse, or by `read`."""


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
    from grader.i18n import language_from_environment

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


# -- plain command lines, read without argparse ----------------------------------------


_UNDERSTOOD = frozenset(("choices", "default", "metavar", "dest", "action", "nargs", "version"))
"""The argparse keywords whose meaning `_Grammar` reproduces (each only in the forms
below: `action` "store_true", "version" or "append", `nargs` "?" on a positional; `metavar` and
`version` change only what help shows)."""


class _Option:
    __slots__ = ("append", "choices", "dest", "group", "takes_value")

    def __init__(
        self, dest: str, takes_value: bool, choices: Any, group: str | None, append: bool = False
    ) -> None:
        self.dest = dest
        self.takes_value = takes_value
        self.choices = choices
        self.group = group
        self.append = append
        """`action="append"`: given any number of times, each value added to a list."""


class _Grammar:
    """What `read` needs of a list of `Arg`s: each flag's option, the positionals in
    order (dest, required, choices) and the defaults argparse puts in the namespace.
    `usable` is False when an argument is declared in a way this module does not read."""

    def __init__(self, args: Sequence[Arg]) -> None:
        self.options: dict[str, _Option] = {}
        self.positionals: list[tuple[str, bool, Any]] = []
        self.defaults: dict[str, Any] = {}
        self.usable = True
        for declared in args:
            self._add(declared)

    def _add(self, declared: Arg) -> None:
        options = declared.options
        action = options.get("action")
        if not _UNDERSTOOD.issuperset(options) or action not in (
            None,
            "store_true",
            "version",
            "append",
        ):
            self.usable = False
            return
        flags = declared.flags
        if not flags[0].startswith("-"):  # a positional: its name is its dest
            nargs = options.get("nargs")
            if action is not None or nargs not in (None, "?"):
                self.usable = False
                return
            self.positionals.append((flags[0], nargs is None, options.get("choices")))
            self.defaults[flags[0]] = options.get("default")
            return
        if "nargs" in options:
            self.usable = False
            return
        if action == "version":  # argparse keeps no value of it: the flag is never read here
            return
        long = [flag for flag in flags if flag.startswith("--")]
        dest = options.get("dest") or (long or flags)[0].lstrip("-").replace("-", "_")
        store_true = action == "store_true"
        self.defaults[dest] = options.get("default", False if store_true else None)
        append = action == "append"
        option = _Option(dest, not store_true, options.get("choices"), declared.group, append)
        for flag in flags:
            self.options[flag] = option

    def consume(
        self, argv: Sequence[str], at: int, values: dict[str, Any], stop_at_word: bool
    ) -> int | None:
        """Read `argv[at:]` into `values`; the index of the first word (a token that is
        no option) when `stop_at_word` (the root's tokens stop at the command), else
        `len(argv)`; None when the tokens are not plain (see the module's text)."""
        seen: set[str] = set()
        groups: set[str] = set()
        positional = 0
        while at < len(argv):
            token = argv[at]
            if not token.startswith("-"):  # a word ('' too, as argparse reads it)
                if stop_at_word:
                    return at
                if positional == len(self.positionals):
                    return None
                dest, _, choices = self.positionals[positional]
                if choices is not None and token not in choices:
                    return None
                values[dest] = token
                positional += 1
                at += 1
                continue
            flag, equals, explicit = (
                token.partition("=") if token.startswith("--") else (token, "", "")
            )
            option = self.options.get(flag)
            if option is None or option.group in groups:
                return None
            if option.dest in seen and not option.append:
                return None
            seen.add(option.dest)
            if option.group is not None:
                groups.add(option.group)
            if not option.takes_value:
                if equals:
                    return None
                values[option.dest] = True
                at += 1
                continue
            if equals:
                value = explicit
            elif at + 1 < len(argv) and not argv[at + 1].startswith("-"):
                value = argv[at + 1]
                at += 1
            else:
                return None
            if option.choices is not None and value not in option.choices:
                return None
            if option.append:
                values[option.dest] = [*(values.get(option.dest) or ()), value]
            else:
                values[option.dest] = value
            at += 1
        if any(required for _, required, _ in self.positionals[positional:]):
            return None
        return at


def read(
    argv: Sequence[str], root: Sequence[Arg], commands: dict[str, Command], dest: str
) -> SimpleNamespace | None:
    """`argv` read as the parser of `root`'s arguments with a required subcommand (its
    name stored as `dest`) among `commands` would read it, when it is plain; else None.

    The namespace is a `SimpleNamespace`: it is read by attribute, as argparse's is, and
    making an `argparse.Namespace` would import argparse."""
    top = _Grammar(root)
    values = dict(top.defaults)
    at = top.consume(argv, 0, values, stop_at_word=True) if top.usable else None
    if at is None or at == len(argv) or argv[at] not in commands:
        return None
    command = _Grammar(commands[argv[at]].args)
    if not command.usable:
        return None
    values[dest] = argv[at]
    values.update(command.defaults)
    if command.consume(argv, at + 1, values, stop_at_word=False) is None:
        return None
    return SimpleNamespace(**values)
