"""Text from a submission, made safe to show: control characters become visible escapes.

A submission controls many strings the grader prints: values quoted in messages
(`first_sentence`, a JSON key in a pointer), expected / found values, file and folder
names. Printed raw, `ESC[2J` clears a student's terminal, `ESC[8m` hides what follows,
OSC 52 writes the clipboard, a newline starts a fake "Score: 71/71" line, a right-to-left
override makes a name read as another, and a folder name holding byte 0xFF (kept by
Python as the lone surrogate U+DCFF) makes the output invalid UTF-8. So every such
character is replaced by an escape a person can read, and the student sees exactly what
was there:

- C0 controls, DEL and C1 controls: `\\n`, `\\r`, `\\t`, else `\\x1b`, `\\x7f`, `\\x9b`;
- a byte that was not UTF-8 (surrogate-escaped, U+DC80..U+DCFF): `\\xff`, the byte;
- other lone surrogates, the bidirectional overrides and isolates, and the line and
  paragraph separators U+2028 / U+2029: `\\u202e`.

Two places apply it, two halves of one rule. `Catalog.text` escapes every value it
fills into a message (values are one line; a newline in one is the student's), and the
renderer boundary (`visible_result`, called by `grader.render.renderer` and by the batch
before it writes a result) escapes every string of the `Result`, keeping the line breaks
of the catalogs' own prose (messages, hints, explanations). Neither knows any check.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dataclasses import Field
    from typing import Any, ClassVar, Protocol, TypeGuard, TypeVar

    class _Dataclass(Protocol):  # what `dataclasses.replace` takes
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    T = TypeVar("T", bound=_Dataclass)

_UNSAFE = "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
_UNSAFE_KEEP_LINES = (
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What is escaped: every character here is one `str.isprintable` refuses (a control, a
line or paragraph separator, a format character, a surrogate), so a printable string
has none and is returned as it is, without a pattern."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

PROSE_FIELDS = frozenset({"message", "hint", "explanation", "title", "format_errors"})
"""`Result` fields (at any depth) that hold a catalog's prose, whose line breaks are kept."""


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape keeps it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control, stray surrogate and direction override escaped.

    `keep_newlines` keeps line feeds and tabs, for prose whose lines are the catalog's.
    """
    if text.isprintable():  # most strings: nothing to escape, found in C
        return text
    pattern = _pattern(_UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE)
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


@cache
def _pattern(characters: str) -> re.Pattern[str]:
    """`characters` compiled the first time a string is not printable: compiling these
    classes at import cost a cold check about 3 % of its instructions."""
    return re.compile(characters)


def visible_path(path: str | bytes) -> str:
    """A path (str from the command line or os.scandir, or bytes) as safe text."""
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    return visible(path)


def visible_data(value: object) -> object:
    """JSON-like data (str, numbers, lists, dicts) with every string made visible."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [visible_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(visible_data(v) for v in value)
    if isinstance(value, dict):
        return {visible_data(k): visible_data(v) for k, v in value.items()}
    return value


def _item(value: object) -> object:
    return visible_result(value) if _is_record(value) else visible_data(value)


def _field(name: str, value: object) -> object:
    if isinstance(value, str):
        return visible(value, keep_newlines=name in PROSE_FIELDS)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if name in PROSE_FIELDS and isinstance(value, list):
        return [visible(v, keep_newlines=True) if isinstance(v, str) else v for v in value]
    if _is_record(value):
        return visible_result(value)
    if isinstance(value, list):
        return [_item(v) for v in value]
    return visible_data(value)


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _is_record(value: object) -> TypeGuard[_Dataclass]:
    """Whether `value` is a dataclass instance (a `Result` or one of its parts)."""
    return is_dataclass(value) and not isinstance(value, type)


def visible_result(result: T) -> T:
    """A copy of a `Result` (or any record of it) where every string is visible text.

    Prose fields (`PROSE_FIELDS`) keep their line breaks; every other string is one line.
    The same object comes back when nothing needed escaping (the usual case, kept cheap:
    a result renders in well under a millisecond more).
    """
    changes = {}
    for name in _names(type(result)):
        value = getattr(result, name)
        new = _field(name, value)
        if new is not value and new != value:
            changes[name] = new
    return replace(result, **changes) if changes else result


def visible_plain(result: _Dataclass) -> tuple[dict[str, Any], bool]:
    """The plain JSON data of `visible_result(result)`, as `Result.to_dict` would give it
    (fields in declaration order), made in one walk instead of two: the batch writes
    each result from it and builds what the class report reads of it from it, so the
    result's objects are walked once, not three times (escape, copy, read back).

    The second value says whether the data is exactly what reading the written JSON
    back gives: true unless an object key is not a string (JSON would make it one). Tuples
    come back as lists, as JSON reads them; the JSON text of either is the same.
    """
    walk = _PlainWalk()
    return walk.record(result), walk.string_keys


class _PlainWalk:
    """`visible_result` and `Result.to_dict` at once, field by field, by the same
    rules as `_field`: prose keeps its line breaks, every other string is one line."""

    def __init__(self) -> None:
        self.string_keys = True

    def record(self, value: _Dataclass) -> dict[str, Any]:
        plain = {}
        for name in _names(type(value)):
            item = getattr(value, name)
            kind = type(item)  # the common leaves here: a call per field was most of the walk
            if kind is str and item.isprintable():
                plain[name] = item  # what `visible` returns for a printable string
            elif item is None or kind is int or kind is float or kind is bool:
                plain[name] = item
            else:
                plain[name] = self.field(name, item)
        return plain

    def field(self, name: str, value: object) -> object:
        if isinstance(value, str):
            return visible(value, keep_newlines=name in PROSE_FIELDS)
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if name in PROSE_FIELDS and isinstance(value, list):
            return [visible(v, keep_newlines=True) if isinstance(v, str) else v for v in value]
        if _is_record(value):
            return self.record(value)
        if isinstance(value, list):
            return [self.record(v) if _is_record(v) else self.data(v) for v in value]
        return self.data(value)

    def data(self, value: object) -> object:
        """JSON values (a check's `data`), as `visible_data` escapes them."""
        if isinstance(value, str):
            return visible(value)
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                self.string_keys = False
            return {self.data(key): self.data(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item) for item in value]
        return value
