"""TOML reading: tomllib (tomli on Python 3.10), with one error for anything unreadable.

The rubric and the message catalogs are read with tomllib at every start. JSON copies of
them, read instead, once saved ≈ 12 ms of CPU of a cold `grader check` (tomllib parses
≈ 110 KB in pure Python, an eighth of the check); the check stays within its budget without
them (docs/benchmarks.md, "One path per job"), so the copies, their writer and their
staleness test went.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


class TOMLDecodeError(ValueError):
    """The text is not TOML (tomllib's error, without importing tomllib to catch it)."""


def loads(text: str) -> dict[str, Any]:
    """The data of a TOML text; raises `TOMLDecodeError` for anything that is not
    readable TOML, whatever tomllib trips on: its own errors, tables or arrays nested
    too deeply for its recursion (RecursionError, at any stack depth), an integer of
    more digits than Python converts (4,300: ValueError). A byte-order mark at the start
    (Notepad saves one) is not part of the text."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TOMLDecodeError(str(exc)) from None
    except (RecursionError, MemoryError):
        raise TOMLDecodeError("tables or arrays nested too deeply to read") from None
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits) for integer ..."
        raise TOMLDecodeError(str(exc).split(";")[0]) from None
