"""Gradebook CSV files that Canvas and Moodle import as they are.

**Canvas** ("Import grades in the Gradebook"; what its importer,
`app/models/gradebook_importer.rb` of instructure/canvas-lms, accepts): the header row
starts with `Student`, `ID`, then `SIS User ID` and `SIS Login ID`, then `Section`, the
last student column; then one column per assignment, named `Title (id)` where `id` is
the Canvas assignment's id (`Assignment.title_and_id`), or by its title alone (a title
Canvas does not know makes a new assignment). A second row whose first cell is `Points
Possible` gives each assignment's points. A student is found by `ID` (Canvas's user id),
else `SIS User ID`, else `SIS Login ID`, else by name; the five cells are copied from the
roster, which is best Canvas's own export. Blank grade cells change nothing.

**Moodle** ("Grade import", CSV): any header; on import the instructor maps one column
to a user field ("Map from" this column, "Map to" useremail, useridnumber, username or
userid) and each grade column to a grade item or a new one, each feedback column to the
feedback of an existing item (Moodle warns that importing feedback also rewrites that
item's grades, so every feedback column comes with its grade column). Here: the roster's
user column, then each grade column followed by its feedback column (what did not pass,
with what to do); when the roster (Moodle's own grade export) has the lab's grade item,
the total's two columns are named as Moodle names that item's, so both go to the item
that exists and one import does it. Moodle strips a byte-order mark
(`csv_import_reader`).

Both files are UTF-8 with a byte-order mark (Excel then reads them as UTF-8; both LMSs
accept it), every field quoted (RFC 4180) and every text made formula-safe
(`grader.export.spreadsheet`). The same inputs give the same bytes.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grader.engine.result import Result
from grader.export.columns import Column, checks_in, points
from grader.export.roster import LMS_ROWS
from grader.export.spreadsheet import number_cell, text_cell

BOM = "\ufeff"
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_IDENTITY = ("ID", "SIS User ID", "SIS Login ID", "Student")
"""The columns Canvas finds a student by, in the order it tries them."""


POINTS_POSSIBLE = LMS_ROWS[0]
_CANVAS_ASSIGNMENT = re.compile(r"(.*\S)\s\((\d+)\)")
_MOODLE_ITEM = re.compile(r"(.*\S)\s\(Real\)")
"""Canvas's export names an assignment's column `Title (id)`; Moodle's names a grade
item's `Type: name (Real)` and its feedback's `Type: name (Feedback)` (grade/export/lib.php,
`format_column_name`: "{name} ({extra})")."""


def plain(text: str) -> str:
    """Lower-case letters and digits alone: `First-Token` and `first token` agree."""
    return "".join(c for c in text.casefold() if c.isalnum())


def canvas_assignments(header: Sequence[str]) -> list[tuple[str, str]]:
    """The assignments of a Canvas gradebook export's header: (title, id) of each
    `Title (id)` column after the student columns."""
    found = []
    for name in header:
        match = _CANVAS_ASSIGNMENT.fullmatch(name.strip())
        if match and name not in CANVAS_STUDENT_COLUMNS:
            found.append((match.group(1), match.group(2)))
    return found


def moodle_items(header: Sequence[str]) -> list[str]:
    """The grade items of a Moodle grade export's header: each `… (Real)` column's name
    without its `(Real)`."""
    return [m.group(1) for n in header if (m := _MOODLE_ITEM.fullmatch(n.strip()))]


def of_lab(names: Sequence[str], lab: str) -> list[str]:
    """Those of `names` that name the lab (its name in them, ignoring case, spaces and
    punctuation: `Lab 3: First token` names `first-token`)."""
    key = plain(lab)
    return [n for n in names if key and key in plain(n)]


MOODLE_USER_FIELDS = ("Email address", "ID number", "Username")
"""Roster columns Moodle can map a user from (Moodle's own export names them so)."""


@dataclass(frozen=True)
class ExportRow:
    """One student of the export: the roster's row and the graded result."""

    roster: dict[str, str]
    result: Result


def _csv(rows: Sequence[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerows(rows)
    return (BOM + buffer.getvalue()).encode("utf-8")


def column_title(assignment: str, column: Column, assignment_id: str | None = None) -> str:
    """`Lab 3` for the total (`Lab 3 (12345)` with Canvas's assignment id), `Lab 3: cache`
    for a step or a check."""
    title = f"{assignment}: {column.key}" if column.key else assignment
    return f"{title} ({assignment_id})" if assignment_id and not column.key else title


def canvas_csv(
    rows: Sequence[ExportRow],
    columns: Sequence[Column],
    assignment: str,
    assignment_id: str | None = None,
) -> bytes:
    """The Canvas gradebook import file (see the module's docstring)."""
    titles = [column_title(assignment, c, assignment_id) for c in columns]
    table = [
        [*CANVAS_STUDENT_COLUMNS, *(text_cell(t) for t in titles)],
        [POINTS_POSSIBLE, "", "", "", "", *(number_cell(c.points_possible) for c in columns)],
    ]
    for row in rows:
        identity = [text_cell(row.roster.get(name, "")) for name in CANVAS_STUDENT_COLUMNS]
        table.append([*identity, *(number_cell(points(row.result, c)) for c in columns)])
    return _csv(table)


def moodle_csv(
    rows: Sequence[ExportRow],
    columns: Sequence[Column],
    assignment: str,
    user_field: str,
    feedback: Callable[[Result, Column], str],
    feedback_title: Callable[[str], str],
    item: str | None = None,
) -> bytes:
    """The Moodle grade import file: the user column, then each grade column followed by
    its feedback column. With `item` (a grade item of the roster, Moodle's own export),
    the total's columns are named as Moodle's export names that item's, `item (Real)`
    and `item (Feedback)`, so both are mapped to the item that exists."""
    header = [text_cell(user_field)]
    for column in columns:
        if item is not None and not column.key:
            header += [text_cell(f"{item} (Real)"), text_cell(f"{item} (Feedback)")]
        else:
            title = column_title(assignment, column)
            header += [text_cell(title), text_cell(feedback_title(title))]
    table = [header]
    for row in rows:
        cells = [text_cell(row.roster.get(user_field, ""))]
        for column in columns:
            cells.append(number_cell(points(row.result, column)))
            cells.append(text_cell(feedback(row.result, column), keep_newlines=True))
        table.append(cells)
    return _csv(table)


def feedback_lines(result: Result, column: Column, hint_label: str) -> str:
    """What a student reads beside a grade: each check of the column that did not pass,
    `id (points/max): message` and, on its own line, what to do; for a submission that
    could not be graded, why (the total's column only)."""
    if not result.gradable:
        return "\n".join(result.format_errors) if not column.key else ""
    lines = []
    for check in checks_in(result, column):
        if check.status == "passed":
            continue
        got = f"{number_cell(check.points)}/{number_cell(check.max_points)}"
        lines.append(f"{check.id} ({got}): {check.message or check.title}")
        if check.hint:
            lines.append(f"  {hint_label}: {check.hint}")
    return "\n".join(lines)
