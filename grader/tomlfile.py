"""TOML reading: tomllib (tomli on Python 3.10), and the JSON caches of the TOML files a
package ships.

Parsing the message catalogs with tomllib was ≈10% of a cold `grader check` (tomllib is
pure Python, and importing it pulls in `datetime`); so each TOML file a package ships has
a JSON copy beside it (`en.toml` → `en.toml.json`), written by
`scripts/write_toml_caches.py`, never by hand, holding the TOML text's checksum and its
data, in the shape its reader makes of it (a catalog's tables as one dict of dotted ids,
so that flattening them costs nothing at start either). `load_cached` uses the copy only
when it was made from this very text into that very shape, so a stale or missing copy
costs time, never a wrong value; `tests/test_toml_caches.py` fails when a copy is out of
date.

The checksum is CRC-32, not a cryptographic hash, on purpose: it is computed at every
start, over ≈90 KB of catalogs and rubric, and sha256 of that text was ≈4 M instructions
of a cold `grader check`, for a question a CRC answers. The copy only has to notice that
its TOML file was edited since the script ran: both are the package's own files, written
by its authors and never by a student, so nobody is trying to forge a collision. A change
of up to four bytes in place (a typo, a changed digit) is always noticed, any other edit
(an inserted or deleted character too) goes unnoticed once in 2**32, and even that one
cannot ship: the tests compare every copy with the copy its TOML file makes, byte for
byte.
"""

from __future__ import annotations

import json
import sys
from binascii import crc32
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

CACHE_SUFFIX = ".json"
"""A TOML file's JSON copy is the file's name with this appended."""


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


def text_checksum(text: str) -> int:
    """What a JSON copy records of the TOML text it was made from (its CRC-32: enough to
    notice an edit, see above)."""
    return crc32(text.encode("utf-8", "surrogateescape"))


def shape_name(shape: Callable[[dict[str, Any]], dict[str, Any]] | None) -> str | None:
    """How a JSON copy names the shape its data was given (None: the TOML's own tables)."""
    return None if shape is None else f"{shape.__module__}.{shape.__qualname__}"


def load_cached(
    text: str, toml_path: str, shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`loads(text)`, or `shape(loads(text))` (what the caller makes of the tables, e.g.
    a catalog's dotted ids), read from the JSON copy of the file at `toml_path` when that
    copy was made from `text` and holds its data in that shape."""
    try:
        with open(toml_path + CACHE_SUFFIX, "rb") as handle:
            stored = json.loads(handle.read())
    except (OSError, ValueError):
        stored = None
    if (
        isinstance(stored, dict)
        and stored.get("crc32") == text_checksum(text)
        and stored.get("shape") == shape_name(shape)
    ):
        data = stored.get("data")
        if isinstance(data, dict):
            return data
    return loads(text) if shape is None else shape(loads(text))


def cache_text(text: str, shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> str:
    """The JSON copy of a TOML text, its data in `shape`, as `scripts/write_toml_caches.py`
    writes it."""
    data = loads(text) if shape is None else shape(loads(text))
    copy = {"crc32": text_checksum(text), "shape": shape_name(shape), "data": data}
    return json.dumps(copy, ensure_ascii=False, allow_nan=False, indent=1) + "\n"
