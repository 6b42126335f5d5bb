"""Parsers for the file formats labs use: a JSON document, JSON Lines, Python source.

Each returns a `Parsed` and never raises: every way a file can be wrong becomes a located
`Problem`. A lab's own formats live in the lab (this project's: `checks/formats/`).
"""

from __future__ import annotations

import re
import symtable
import warnings
from typing import TYPE_CHECKING

from grader.reading.jsonload import JsonError, PositionMap, StrictDecoder
from grader.reading.limits import Limits
from grader.reading.loading import Parsed, Parser, with_format
from grader.reading.pysource import (
    CHECK_HEADROOM,
    deepest_line,
    headroom,
    long_line,
    source_problem,
)
from grader.reading.pysource import python_tree as python_tree  # re-exported: labs read trees here
from grader.reading.schema import SchemaRef
from grader.words.problems import Location, Problem

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

PRUNED_FROM = 64 * 1024
"""The length of a file's text (characters) from which a parser keeps of its valid
values only what the schema declares (`grader.reading.schema_declared`). Cutting down costs some
thousands of instructions a value, and a smaller file's undeclared members weigh at
most a few hundred KiB as Python values: below it, a value is kept as it was decoded,
and a cold check imports nothing for it. (`tests/test_declared_only.py` cuts down every
file, so a check that read an undeclared member would be found on the samples.)"""


def declared_only(schema: SchemaRef, text: str) -> Callable[[Any], Any] | None:
    """What keeps of a valid value read from `text` only the members `schema` declares
    (`grader.reading.schema_declared`), for a text of `PRUNED_FROM` characters or more; None for
    a shorter one, whose values are kept as they were decoded. Every parser of a format
    with a schema asks this, once per file, and cuts down each value once it validated."""
    if len(text) < PRUNED_FROM:
        return None
    from grader.reading.schema_declared import pruned

    shape = schema.declared()
    return lambda value: pruned(value, shape)


def declared_only_all(schema: SchemaRef, text: str) -> Callable[[list[Any]], list[Any]] | None:
    """`declared_only` for many values read from `text` at once (a stream's chunks, a
    file's records): the list back as it is when none holds an undeclared member, found
    by one walk of them all (`grader.reading.schema_declared.pruned_all`)."""
    if len(text) < PRUNED_FROM:
        return None
    from grader.reading.schema_declared import pruned_all

    shape = schema.declared()
    return lambda values: pruned_all(values, shape)


def json_document(schema: SchemaRef) -> Parser:
    """A parser for one strict JSON document valid against `schema` (one of the lab's).

    The value of a valid document of `PRUNED_FROM` characters or more keeps only the
    members the schema declares (`grader.reading.schema_declared`): the full value of a padded
    document is let go as soon as it is validated, so only one is ever alive.
    """

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        decoder = StrictDecoder(limits.number_digits, limits.json_depth)
        try:
            value = decoder.decode(text, file)
        except JsonError as error:
            return Parsed(None, [error.problem])
        positions = PositionMap(text)
        problems = schema.validate(value)
        cut_down = declared_only(schema, text)
        if cut_down is not None and not problems:
            value = cut_down(value)  # what the format does not declare, no check reads
        return Parsed(value, problems, positions.line_of)

    return with_format(parse, schema, "document")


_LINE_END = re.compile(r"\r\n|\r|\n")


def _line_by_line(
    lines: list[str],
    file: str,
    limits: Limits,
    decoder: StrictDecoder,
    schema: SchemaRef,
    cut_down: Callable[[Any], Any] | None,
) -> Parsed:
    """What `json_lines` reads from any file: each line decoded and validated by itself,
    each problem found with its line."""
    records: list[object] = []
    record_lines: list[int] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=1):
        if len(problems) >= limits.problems_per_file:
            break  # the file is invalid either way; its first problems say why
        if not line.strip():
            continue
        if len(records) >= limits.jsonl_records:
            problems.append(
                Problem("jsonl.too_many", {"limit": limits.jsonl_records}, Location(file, number))
            )
            break
        try:
            value = decoder.decode(line, file)
        except JsonError as error:
            loc = error.problem.location or Location(file)
            problems.append(
                Problem(
                    error.problem.message_id,
                    error.problem.params,
                    Location(file, number, loc.column, f"/{len(records)}"),
                )
            )
            records.append(None)
        else:
            found = schema.validate(value, (len(records),))
            for problem in found:
                problems.append(
                    Problem(
                        problem.message_id,
                        problem.params,
                        Location(
                            file,
                            number,
                            None,
                            problem.location.pointer if problem.location else None,
                        ),
                    )
                )
            if cut_down is not None and not found:
                value = cut_down(value)
            records.append(value)
        record_lines.append(number)
    return Parsed(records, problems, _record_line_of(record_lines))


def _record_line_of(record_lines: list[int]) -> Callable[[str], int | None]:
    """The physical line of the record a pointer is in: a record is one line, so every
    pointer into it is on that line (no line text is kept to walk)."""

    def line_of(pointer: str) -> int | None:
        head = pointer.split("/")[1] if pointer.startswith("/") else ""
        if not head.isdigit() or int(head) >= len(record_lines):
            return None
        return record_lines[int(head)]

    return line_of


def json_lines(schema: SchemaRef) -> Parser:
    """A parser for JSON Lines: one strict JSON value per line, each valid against `schema`.

    Blank lines carry no record and are skipped. The value is the list of records (of a
    file of `PRUNED_FROM` characters or more, each valid one with only the members the
    schema declares: `grader.reading.schema_declared`); a record's pointer is `/<index>` and
    maps back to its physical line. A file whose every record is valid is read in bulk:
    its lines decoded (`StrictDecoder.decode_all`) and validated in one call each; any
    other, line by line, which finds each problem and its place.
    """

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        decoder = StrictDecoder(limits.number_digits, limits.json_depth, share_keys=True)
        lines = _LINE_END.split(text)
        numbers = [number for number, line in enumerate(lines, start=1) if line.strip()]
        if len(numbers) <= limits.jsonl_records:
            texts = [lines[number - 1] for number in numbers]
            records = decoder.decode_all(texts, schema.all_conform)  # a batch at a time
            if records is not None:
                cut_down = declared_only_all(schema, text)
                if cut_down is not None:
                    records = cut_down(records)
                return Parsed(records, [], _record_line_of(numbers))
        return _line_by_line(lines, file, limits, decoder, schema, declared_only(schema, text))

    return with_format(parse, schema, "line")


_PYTHON_WORDS = (
    ("expected ':'", "python.expected_colon"),
    ("unexpected indent", "python.indentation"),
    ("unindent does not match", "python.indentation"),
    ("expected an indented block", "python.indentation"),
    ("unterminated string", "python.unterminated_string"),
    ("unterminated triple-quoted", "python.unterminated_string"),
    ("EOL while scanning", "python.unterminated_string"),
    ("invalid character", "python.invalid_character"),
    ("unmatched", "python.unmatched"),
)
"""CPython's English syntax messages, by the catalog message that says the same."""
_BRACKET = re.compile(r"'([()\[\]{}])'")


def _python_problem(msg: str) -> tuple[str, dict[str, str]]:
    """The catalog id (and its parameters) for a SyntaxError's `msg`: CPython's English
    never reaches a student."""
    bracket = _BRACKET.search(msg)
    if "was never closed" in msg and bracket:
        return "python.never_closed", {"bracket": bracket.group(1)}
    for words, message in _PYTHON_WORDS:
        if msg.startswith(words):
            return message, {"bracket": bracket.group(1) if bracket else ""}
    return "python.syntax", {}


def python_source() -> Parser:
    """A parser for Python source, never imported or run: its value is the text itself,
    once CPython's parser accepts it (a lab makes it a syntax tree with `python_tree`, to
    read what it needs of it).

    The text is checked by the compiler's own parser and symbol table (`symtable`), which
    builds no syntax tree. A syntax error is the one `compile` reports, with its message,
    line and column. The symbol table also refuses what the parser passes and the
    compiler would not, which `compile(..., PyCF_ONLY_AST)`, this parser before,
    accepted: a duplicate parameter; `nonlocal` at module level or with no binding;
    `import *` in a function; `from __future__ import braces` or an unknown feature; a
    name used before its `global` declaration, or an annotated `global`; `yield` in a
    comprehension; a walrus in a comprehension's iterable. No Python can run such a
    file, so it is no valid sse.py either (`python.syntax`).

    A line longer than `Limits.python_line_chars` is refused first (`python.line_too_long`,
    with its line): past it, reading the tokens would cost the square of the line's length.
    What CPython refuses before parsing is said as it says it, with the line: a NUL byte,
    an unknown encoding declaration (`grader.reading.pysource.source_problem`). The check
    runs with a fixed recursion headroom (`CHECK_HEADROOM`), so a file nested too deeply
    for it is the student's failure (`python.too_deep`, at the longest line) at any stack
    depth, and a file it accepts always makes a tree (`python_tree`).
    """

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        before = long_line(text, file, limits.python_line_chars) or source_problem(text, file)
        if before is not None:
            return Parsed(None, [before])
        try:
            with warnings.catch_warnings(), headroom(CHECK_HEADROOM):
                warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not ours
                # the file name is not a path: never code to run
                symtable.symtable(text, f"<{file}>", "exec")
        except SyntaxError as exc:
            message, params = _python_problem(exc.msg or "")
            return Parsed(
                None,
                [
                    Problem(
                        message, {"file": file, **params}, Location(file, exc.lineno, exc.offset)
                    )
                ],
            )
        except (RecursionError, MemoryError):  # absurd nesting: the student's, located
            location = Location(file, deepest_line(text))
            return Parsed(None, [Problem("python.too_deep", {"file": file}, location)])
        except ValueError as exc:  # pragma: no cover - NUL bytes are found before
            return Parsed(
                None,
                [
                    Problem(
                        "python.unparseable",
                        {"file": file, "error": type(exc).__name__},
                        Location(file),
                    )
                ],
            )
        return Parsed(text)

    return parse
