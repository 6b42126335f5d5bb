"""The roster: who each submission is in the LMS, as the instructor's CSV file says.

The grader knows a submission by its id (`grader batch`'s, from its folder's name), never
by an LMS account: only the instructor can map one to the other. A roster is a CSV file
with a header row (UTF-8 with or without a byte-order mark; comma, semicolon or tab
separated, as spreadsheets save it), one row per student. One column, the key, holds
the submission's id (or its folder's own name). The LMS's own export is a roster as it
is, once a key column is there or an existing one holds the folder names: Canvas's
gradebook export (Student, ID, SIS User ID, SIS Login ID, Section, ...), Moodle's grade
export ("First name", "Last name", "ID number", ..., "Email address").

Matching is exact up to case, surrounding spaces and Unicode normal form, against each
submission's id first, then its folder's own name (the last part of the path its result
records). Nothing is guessed and nothing is dropped silently: a submission without a row,
a row without a submission and a key claimed twice are all reported (`Matching`).
"""

from __future__ import annotations

import csv
import io
import os
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.words.problems import Param

ROSTER_MAX_BYTES = 16 * 1024 * 1024
"""A roster is a class list; anything larger is not one."""
KEY_COLUMNS = ("submission", "SIS Login ID", "Username", "Email address", "ID number")
"""The key column when the instructor names none: the first of these the roster has."""


class RosterError(Exception):
    """The roster can't be used; `message_id` and `params` say why (`export.*`)."""

    def __init__(self, message_id: str, **params: Param) -> None:
        super().__init__(message_id)
        self.message_id = message_id
        self.params = params


@dataclass(frozen=True)
class Roster:
    """The roster's header and its rows (column -> cell, every column present)."""

    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]

    def has(self, column: str) -> bool:
        return column in self.columns


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip().casefold()


ROSTER_CELL_CHARS = 4096
"""A roster cell holds a name, a login, an id or an e-mail address; a longer one is not
a roster's (and every cell may reach a gradebook or a message)."""
DELIMITERS = ",;\t"
"""What spreadsheets separate CSV cells with (comma; semicolon where a comma is the
decimal mark; tab)."""


def delimiter_of(text: str) -> str:
    """The roster's delimiter: of `DELIMITERS`, the one its header line holds most often
    outside quotes (a comma when it holds none), read in one pass over that line alone.
    (`csv.Sniffer` took 18-27 s on 61 KB of `,"a`: its patterns backtrack.)"""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in text[: ROSTER_CELL_CHARS * 64]:
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in counts:
            counts[char] += 1
        elif char in "\r\n":
            break
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def parse_roster(data: bytes) -> Roster:
    """The roster in `data`; raises `RosterError` when it is not a CSV table with a
    header, or has a cell longer than `ROSTER_CELL_CHARS`. The dialect is Excel's (cells
    quoted with `"`), with the delimiter its header line uses (`delimiter_of`)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RosterError("export.roster_not_utf8") from None
    reader = csv.reader(io.StringIO(text), csv.excel, delimiter=delimiter_of(text))
    table = []
    try:
        for row in reader:
            if any(len(cell) > ROSTER_CELL_CHARS for cell in row):
                raise RosterError(
                    "export.roster_cell_too_long", line=reader.line_num, limit=ROSTER_CELL_CHARS
                )
            if any(c.strip() for c in row):
                table.append(row)
    except csv.Error:  # a cell past the csv module's own limit (128 KiB), before ours
        raise RosterError(
            "export.roster_cell_too_long", line=reader.line_num, limit=ROSTER_CELL_CHARS
        ) from None
    if not table:
        raise RosterError("export.roster_empty")
    header = tuple(cell.strip() for cell in table[0])
    rows = tuple(
        {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
        for row in table[1:]
    )
    return Roster(header, rows)


def read_roster(path: str) -> Roster:
    """The roster file at `path`; raises `RosterError` (or OSError when it can't be read)."""
    with open(path, "rb") as stream:
        data = stream.read(ROSTER_MAX_BYTES + 1)
    if len(data) > ROSTER_MAX_BYTES:
        raise RosterError("export.roster_too_big", limit=ROSTER_MAX_BYTES)
    return parse_roster(data)


def key_column(roster: Roster, named: str | None) -> str:
    """The roster's key column: the one named, or the first of `KEY_COLUMNS` it has."""
    if named is not None:
        if not roster.has(named):
            raise RosterError("export.no_column", column=named, columns=", ".join(roster.columns))
        return named
    for column in KEY_COLUMNS:
        if roster.has(column):
            return column
    known, columns = ", ".join(KEY_COLUMNS), ", ".join(roster.columns)
    raise RosterError("export.no_key", known=known, columns=columns)


@dataclass(frozen=True)
class Submission:
    """What matching needs of a graded submission: its id and its folder's own name."""

    id: str
    folder: str = ""

    @classmethod
    def of(cls, result_id: str, submission_path: str) -> Submission:
        name = os.path.basename(os.path.normpath(submission_path)) if submission_path else ""
        return cls(result_id, name)


@dataclass
class Matching:
    """Who is who: the matched (roster row, submission id) in roster order, the
    submissions no row names, the rows that name no submission, and the rows left out
    because their key is claimed twice (two rows with one key, or one key naming two
    submissions)."""

    key: str
    matched: list[tuple[dict[str, str], str]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    absent: list[dict[str, str]] = field(default_factory=list)
    ambiguous: list[dict[str, str]] = field(default_factory=list)


LMS_ROWS = ("Points Possible",)
"""A row whose first cell is one of these describes the LMS's columns, not a student
(Canvas's export has one)."""


def _metadata(row: dict[str, str], roster: Roster) -> bool:
    first = row.get(roster.columns[0], "").strip() if roster.columns else ""
    return first in LMS_ROWS


def match(roster: Roster, key: str, submissions: Sequence[Submission]) -> Matching:
    """Each roster row with its submission, by `key` (see the module's docstring)."""
    by_id = {_normal(s.id): s.id for s in submissions}
    by_folder: dict[str, list[str]] = defaultdict(list)
    for s in submissions:
        if s.folder:
            by_folder[_normal(s.folder)].append(s.id)
    rows = [r for r in roster.rows if not _metadata(r, roster)]
    keys: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row[key].strip():
            keys[_normal(row[key])].append(row)
    claims: dict[str, list[dict[str, str]]] = defaultdict(list)
    result = Matching(key)
    chosen: dict[int, str] = {}
    contested: set[str] = set()  # named by a row left out: said once, as ambiguous

    def named(value: str) -> list[str]:
        return [by_id[value]] if value in by_id else sorted(set(by_folder.get(value, ())))

    for row in rows:
        value = _normal(row[key])
        if not value:
            result.absent.append(row)
            continue
        found = named(value)
        if len(keys[value]) > 1 or len(found) > 1:
            result.ambiguous.append(row)
            contested.update(found)
        elif found:
            claims[found[0]].append(row)
            chosen[id(row)] = found[0]
        else:
            result.absent.append(row)
    taken = set()
    for row in rows:
        sid = chosen.get(id(row))
        if sid is None:
            continue
        if len(claims[sid]) > 1:
            result.ambiguous.append(row)
            contested.add(sid)
            continue
        result.matched.append((row, sid))
        taken.add(sid)
    result.unmatched = [s.id for s in submissions if s.id not in taken | contested]
    return result


NAME_COLUMNS = ("Student", "First name", "Last name", "Email address", "Username", "ID number")


def who(row: dict[str, str], key: str) -> str:
    """How to name a roster row to the instructor: its key, else its name columns."""
    if row.get(key, "").strip():
        return row[key].strip()
    named = [row[c].strip() for c in NAME_COLUMNS if row.get(c, "").strip()]
    cells = named or [v.strip() for v in row.values() if v.strip()]
    return " ".join(cells[:2]) or "?"


def first_of(names: Iterable[str], roster: Roster) -> str | None:
    """The first column of `names` the roster has."""
    return next((n for n in names if roster.has(n)), None)
