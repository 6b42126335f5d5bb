"""The command line's argparse parsers, built in the user's language.

Each command declares its arguments as a table (`grader.cli.commands`: a `Command` of
`Arg`s); `build` makes the argparse parser of a `Command` in a catalog's language. Its
texts are wrapped to the terminal with East Asian widths (`grader.words.wrap`) before
argparse shows them (`RawTextHelpFormatter`), when help is asked for.

argparse's own words ("usage:", "options", "show this help message and exit", "the
following arguments are required", "invalid choice", ...) are English in every locale:
argparse looks them up with `gettext`, and the grader ships no `.mo` files. They are said
in the catalog's words (`[argparse]` in grader/messages, keyed by argparse's own msgids in
`ARGPARSE_WORDS`) through argparse's public hooks, argparse itself left as it is: `Parser`
adds its `-h` with the catalog's help text and says its errors (`error`) in the catalog's
words, read back from argparse's English; its `format_usage` and `format_help` give
the usage its prefix and the sections their headings. The catalog is that of
the `speaking(catalog)` block running; outside one, or for a msgid the catalog does not
know, argparse's English stays, as gettext would leave it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from grader.cli.commands import Command, language
from grader.words.problems import Param

if TYPE_CHECKING:
    from typing import Any, NoReturn

    from grader.cli.commands import Arg
    from grader.words.i18n import Catalog

ARGPARSE_WORDS: dict[str, tuple[str, Mapping[str, str]]] = {
    # msgid -> (key in `[argparse]`, catalog placeholder -> argparse's own % specifier)
    "usage: ": ("usage", {}),
    "positional arguments": ("positionals", {}),
    "options": ("options", {}),
    "optional arguments": ("options", {}),  # Python 3.9 and earlier say it so
    "show this help message and exit": ("help", {}),
    "show program's version number and exit": ("version", {}),
    "%(prog)s: error: %(message)s\n": ("error", {"prog": "%(prog)s", "message": "%(message)s"}),
    "argument %(argument_name)s: %(message)s": (
        "argument",
        {"argument": "%(argument_name)s", "message": "%(message)s"},
    ),
    "the following arguments are required: %s": ("required", {"arguments": "%s"}),
    "one of the arguments %s is required": ("one_required", {"arguments": "%s"}),
    "unrecognized arguments: %s": ("unrecognized", {"arguments": "%s"}),
    "invalid choice: %(value)r (choose from %(choices)s)": (
        "invalid_choice",
        {"value": "%(value)r", "choices": "%(choices)s"},
    ),
    "invalid %(type)s value: %(value)r": (
        "invalid_value",
        {"type": "%(type)s", "value": "%(value)r"},
    ),
    "unknown parser %(parser_name)r (choices: %(choices)s)": (
        "invalid_choice",
        {"value": "%(parser_name)r", "choices": "%(choices)s"},
    ),
    "expected one argument": ("expected_value", {}),
    "expected at most one argument": ("expected_at_most_a_value", {}),
    "expected at least one argument": ("expected_some_value", {}),
    "expected %s argument": ("expected_count", {"count": "%s"}),
    "expected %s arguments": ("expected_count", {"count": "%s"}),
    "not allowed with argument %s": ("not_allowed_with", {"argument": "%s"}),
    "ignored explicit argument %r": ("ignored_value", {"value": "%r"}),
    "ambiguous option: %(option)s could match %(matches)s": (
        "ambiguous",
        {"option": "%(option)s", "matches": "%(matches)s"},
    ),
}
"""argparse's msgids that reach a user (Python 3.10 to 3.13), with their catalog keys."""


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, which argparse asks for, read the same way
    (`$COLUMNS`, else the terminal's, else 80) without importing shutil: argparse makes a
    formatter for every argument it adds, and shutil (with bz2 and lzma) was ≈2 % of a
    cold `grader check`."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            out = sys.__stdout__
            columns = os.get_terminal_size(out.fileno()).columns if out else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def word(msgid: str) -> str:
    """argparse's `msgid` (one without placeholders: a heading, a help text, the usage's
    prefix) in the words of the `speaking` block running, as gettext would give it."""
    known = _SPOKEN and msgid in ARGPARSE_WORDS
    return (_translated(_SPOKEN[-1], msgid) if known else None) or msgid


def HelpFormatter(prog: str) -> argparse.HelpFormatter:
    """argparse's `RawTextHelpFormatter` at the terminal's width (`terminal_columns`): the
    texts it shows come wrapped already (`Parser.format_help`), by terminal columns (a
    Japanese character takes two) and between CJK characters, which have no spaces to
    break at."""
    return argparse.RawTextHelpFormatter(prog, width=terminal_columns() - 2)


def _widths() -> tuple[int, int]:
    """The columns of a description and of an argument's help, as argparse lays them out
    at the terminal's width with its default `max_help_position` (24): the help of an
    argument whose name is shorter starts further left, so it is never wider than this."""
    width = terminal_columns() - 2
    help_position = min(24, max(width - 20, 4))
    return max(width, 11), max(width - help_position, 11)


def _wrapped(text: str, width: int) -> str:
    """`text` (a catalog's, any run of spaces and line ends one space) as lines of at most
    `width` terminal columns (`grader.words.wrap`)."""
    text = " ".join(text.split())
    if text.isascii() and len(text) <= width:
        return text
    from grader.words.wrap import wrap

    return "\n".join(wrap(text, width))


def _spoken_usage(text: str) -> str:
    """argparse's usage (at the start of `text`) with "usage: " in the catalog's words,
    its continuation lines moved by the columns the words take beyond argparse's
    (`使い方: ` is 8 columns, `usage: ` 7)."""
    english = "usage: "
    spoken = word(english)
    if spoken == english or not text.startswith(english):
        return text
    usage, gap, rest = text.partition("\n\n")
    first, *more = usage.split("\n")
    from grader.words.wrap import cells

    shift = cells(spoken) - len(english)
    moved = [
        (" " * shift + line if shift >= 0 else line[-shift:]) if line.strip() else line
        for line in more
    ]
    return "\n".join([spoken + first[len(english) :], *moved]) + gap + rest


def _help(catalog: Catalog, key: str | None, params: Mapping[str, Param]) -> str | None:
    """The catalog's text of `key`, its `%` doubled: argparse %-formats help texts."""
    if key is None:
        return None
    text = catalog.text(key, params)
    return (key if text is None else text).replace("%", "%%")


class Parser(argparse.ArgumentParser):
    """argparse's parser, saying its own words in the catalog's (see the module's text):
    its `-h` and its errors; its subparsers are of this class too (argparse's default).
    It keeps the option strings it was given and its subparsers, for `misspelt_option`."""

    def __init__(self, *args: Any, add_help: bool = True, **options: Any) -> None:
        self.known_options: set[str] = set()
        """The option strings of its arguments, those of its groups too (`add_args`)."""
        self.subparsers: Any = None
        """What `add_subparsers` returned: its `choices` map a command to its parser."""
        self.helps: list[tuple[argparse.Action, str]] = []
        """Its arguments (its groups' too) and their help texts as given, which
        `format_help` wraps to the terminal."""
        super().__init__(*args, **{**options, "add_help": False})  # (mypy: not twice)
        self.texts = (self.description, self.epilog)
        """Its description and epilog as given, which `format_help` wraps."""
        if add_help:  # as argparse adds it, its help text in the catalog's words
            text = word("show this help message and exit").replace("%", "%%")
            self.add_argument("-h", "--help", action="help", help=text)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """argparse's, its option strings noted in `known_options`."""
        action = super().add_argument(*args, **kwargs)
        self.noted(action)
        return action

    def noted(self, action: argparse.Action) -> None:
        """Note `action`, an argument of the parser or one of its groups: its option
        strings (`known_options`) and its help text (`helps`)."""
        self.known_options.update(action.option_strings)
        if action.help:
            self.helps.append((action, action.help))

    def format_help(self) -> str:
        """argparse's help, its texts wrapped to the terminal (`_wrapped`) and its own
        words in the catalog's (see the module's text): the usage's prefix, the section
        headings, followed by the language's colon (`选项：`)."""
        text_width, help_width = _widths()
        self.description, self.epilog = (
            _wrapped(text, text_width) if text else text for text in self.texts
        )
        for action, given in self.helps:  # argparse %-formats help: wrap what it shows
            action.help = _wrapped(given.replace("%%", "%"), help_width).replace("%", "%%")
        text = _spoken_usage(super().format_help())
        catalog = _SPOKEN[-1] if _SPOKEN else None
        for heading in ("positional arguments", "options", "optional arguments"):
            if catalog is not None and f"\n{heading}:\n" in text:
                label = {"label": word(heading), "value": ""}
                spoken = str(catalog.text("render.labelled", label)).rstrip()
                text = text.replace(f"\n{heading}:\n", f"\n{spoken}\n")
        return text

    def format_usage(self) -> str:
        """argparse's usage, "usage: " in the catalog's words."""
        return _spoken_usage(super().format_usage())

    def add_subparsers(self, **kwargs: Any) -> Any:
        """argparse's, noted in `subparsers`."""
        self.subparsers = super().add_subparsers(**kwargs)
        return self.subparsers

    def error(self, message: str) -> NoReturn:
        """argparse's: the usage, then the error, exit 2; in the catalog's words."""
        self.print_usage(sys.stderr)
        catalog = _SPOKEN[-1] if _SPOKEN else None
        template = catalog and _translated(catalog, "%(prog)s: error: %(message)s\n")
        if catalog is None or not template:  # argparse's own English
            self.exit(2, f"{self.prog}: error: {message}\n")
        self.exit(2, _filled(template, {"prog": self.prog, "message": reworded(catalog, message)}))


def _template(msgid: str) -> re.Pattern[str]:
    """What argparse's English `msgid` reads as once formatted, each value a group named
    by its catalog placeholder: the user's own text (a value, an option) as much as it
    may take, the grader's (an argument's name, a type) as little."""
    specifiers = ARGPARSE_WORDS[msgid][1]
    names = {specifier: name for name, specifier in specifiers.items()}
    parts: list[str] = []
    for piece in re.split(r"(%\(\w+\)[sr]|%[sr])", msgid):
        if piece in names:
            lazy = "?" if names[piece] in ("argument", "type") else ""
            parts.append(f"(?P<{names[piece]}>.*{lazy})")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.DOTALL)


_NOT_ERRORS = ("usage", "positionals", "options", "help", "version", "error")  # their keys


def reworded(catalog: Catalog, message: str) -> str:
    """argparse's English error `message` in the catalog's words: read back by the msgid
    it was made from (an argument's message within, in turn); a message argparse did not
    make (a `type=` function's, already in the catalog's words) stays as it is."""
    for msgid in ARGPARSE_WORDS:
        if ARGPARSE_WORDS[msgid][0] in _NOT_ERRORS:
            continue
        found = _template(msgid).fullmatch(message)
        if found is None:
            continue
        values = found.groupdict()
        count = int(values["count"]) if "count" in values and values["count"].isdigit() else None
        template = _translated(catalog, msgid, count)
        if template is None:
            return message
        if "message" in values:
            values["message"] = reworded(catalog, values["message"])
        return _filled(template, values)
    return message


def _filled(template: str, values: Mapping[str, str]) -> str:
    """`template` with each {placeholder} of `values` replaced by its value, in one pass
    (a value is never read again, whatever braces it has)."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


def root(catalog: Catalog, description: str, params: Mapping[str, Param]) -> Parser:
    """The `grader` parser itself (build it inside `speaking(catalog)`)."""
    return Parser(
        prog="grader",
        description=_help(catalog, description, params),
        formatter_class=HelpFormatter,
    )


def add_args(parser: argparse.ArgumentParser, args: tuple[Arg, ...], catalog: Catalog) -> None:
    """Add each declared argument to `parser`, its help in the catalog's language."""
    groups: dict[str, Any] = {}
    for declared in args:
        target: Any = parser
        if declared.group is not None:
            if declared.group not in groups:
                groups[declared.group] = parser.add_mutually_exclusive_group()
            target = groups[declared.group]
        text = _help(catalog, declared.help, declared.params)
        action = target.add_argument(*declared.flags, help=text, **declared.options)
        if isinstance(parser, Parser) and target is not parser:  # a group's is the parser's
            parser.noted(action)


def build(subparsers: Any, command: Command, catalog: Catalog, **keywords: Any) -> Parser:
    """Add `command` to the subparsers of `grader` (build it inside `speaking(catalog)`)."""
    parser = subparsers.add_parser(
        command.name,
        help=_summary(catalog, command),
        description=_help(catalog, command.description, command.params),
        epilog=_help(catalog, command.epilog, command.params),
        formatter_class=HelpFormatter,
        **keywords,
    )
    assert isinstance(parser, Parser)  # argparse makes subparsers of the parser's class
    add_args(parser, command.args, catalog)
    return parser


def listed(subparsers: Any, command: Command, catalog: Catalog) -> Any:
    """Add `command` to the subparsers of `grader` as `grader --help` lists it, its name
    and summary, without its arguments: only the command being run needs those, and
    building every command's parser was ≈12 % of a cold `grader check`."""
    return subparsers.add_parser(command.name, help=_summary(catalog, command), add_help=False)


def _summary(catalog: Catalog, command: Command) -> str | None:
    """The command's one-line summary as `grader --help` lists it, wrapped to the help's
    width (`_widths`) when it is longer."""
    text = catalog.text(command.summary, command.params)
    if text is None:
        return command.summary.replace("%", "%%")
    return _wrapped(str(text), _widths()[1]).replace("%", "%%")


def _translated(catalog: Catalog, msgid: str, count: int | None = None) -> str | None:
    """The catalog's template of argparse's `msgid`, with its {placeholders} (those of
    `ARGPARSE_WORDS`), the plural form of `count`; None when the catalog has none."""
    key = ARGPARSE_WORDS[msgid][0]
    if count is not None:
        key = catalog.form(f"argparse.{key}", count).removeprefix("argparse.")
    template = catalog.raw(f"argparse.{key}")
    if template is None:
        return None
    template = str(template)
    return template + "\n" if msgid.endswith("\n") and not template.endswith("\n") else template


_SPOKEN: list[Catalog] = []
"""The catalogs of the `speaking` blocks running, innermost last."""


def english() -> Catalog:
    """The engine's catalog in English: a parser built outside the command line."""
    from grader.words.i18n import Catalog

    return Catalog("en", ("grader",))


def said(key: str, **params: Param) -> str:
    """Message `key` in the language of the `speaking` block running (English outside
    one): for what a `type=` function tells argparse, which argparse prints as it is."""
    catalog = _SPOKEN[-1] if _SPOKEN else english()
    return str(catalog.text(key, params) or key)


@contextmanager
def speaking(catalog: Catalog) -> Iterator[None]:
    """argparse's own words from `catalog` while the block runs (see the module's text):
    the parsers built and used in it speak them."""
    _SPOKEN.append(catalog)
    try:
        yield
    finally:
        _SPOKEN.pop()


def user_catalog(argv: list[str] | tuple[str, ...]) -> Catalog:
    """The engine's catalog in the language of `argv` (see `language`)."""
    from grader.words.i18n import Catalog

    return Catalog(language(argv), ("grader",))


def parse_alone(command: Command, argv: list[str]) -> argparse.Namespace:
    """`argv` (the command's name first) parsed by a `grader` parser that has only
    `command`, in the user's language: `python -m grader.cli.batch ...` and the like."""
    catalog = user_catalog(argv)
    with speaking(catalog):
        parser = Parser(prog="grader", formatter_class=HelpFormatter)
        build(parser.add_subparsers(dest="command", required=True), command, catalog)
        return parser.parse_args(argv)
