"""A problem found in a file: a message id, its parameters and where it is.

Problems carry catalog ids, never finished sentences, so every renderer can show them in
the student's language; the location is kept as data (file, line, column, JSON pointer)
so machine consumers get it without parsing prose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import TypeAlias

    JSONValue: TypeAlias = (
        "Mapping[str, JSONValue] | Sequence[JSONValue] | str | int | float | bool | None"
    )
    """A value the grader writes as JSON (a check's measurements, a rubric setting): read
    only, so a `list[str]` or a `dict[str, float]` is one. What is *read* from a student's
    JSON stays `Any`: its shape is the schema's to check, not the type checker's."""

Param = str | int | float | None


class Term(str):
    """A word the catalogs translate (`term.<value>`): a file state, a JSON type, ..."""

    __slots__ = ()


class TitleOf(str):
    """A check id shown as that check's title in the reader's language (`<id>.title`)."""

    __slots__ = ()


@dataclass(frozen=True)
class Location:
    """Where in the submission something is; every part is optional."""

    file: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an artifact, as a catalog message id plus parameters."""

    message_id: str
    params: dict[str, Param] = field(default_factory=dict)
    location: Location | None = None


def json_pointer(path: tuple[str | int, ...] | list[str | int]) -> str:
    """RFC 6901 pointer for a path of keys and indexes ("" is the whole document)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def readable_path(path: tuple[str | int, ...] | list[str | int]) -> str:
    """The path the way a Python programmer writes it: `runs[2].total_ms`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or Term("document")
