"""Cells a spreadsheet shows as the text they hold: the one rule every CSV we write follows.

A CSV file is opened in Excel, LibreOffice or Google Sheets by people who trust it, and
those evaluate a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return
before one) as a formula: a student who names a folder `=HYPERLINK(...)` would run it on
the instructor's machine. So, as OWASP recommends (ASVS 5.0 requirement 1.2.10, and the
"CSV Injection" page: quote every field as RFC 4180 says, and prefix a field that starts
with one of those characters with a single quote), such a text gets a leading `'`, and
every control character is first made visible (`grader.words.visible`: a NUL can then never
lead a cell either). Numbers we write ourselves are never prefixed.
"""

from __future__ import annotations

from grader.words.visible import visible

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def text_cell(text: str, *, keep_newlines: bool = False) -> str:
    """`text` as a cell a spreadsheet shows as text: never a formula, controls visible
    (`keep_newlines`: but its line breaks, for a cell of several lines)."""
    text = visible(text, keep_newlines=keep_newlines)
    return "'" + text if text.startswith(FORMULA_START) else text


def number_cell(value: float | None) -> str:
    """A number as a cell: `12`, `3.5`, empty for none (never mistaken for a zero)."""
    if value is None:
        return ""
    value = round(float(value), 6)
    return str(int(value)) if value.is_integer() else repr(value)
