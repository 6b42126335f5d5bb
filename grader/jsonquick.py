"""The quick path of strict JSON (`grader.jsonload`): a large document decoded by the C
decoder alone, with no Python call per object or number, when tests at C speed show that
it cannot hold what the exact path refuses.

The exact path's hooks cost one Python call per object and per number; on a near-cap
document (4 MB, a hundred thousand objects) they were a third of its decoding. The quick
path never decides a refusal: any doubt (`UNSURE`) sends the text to the exact path, so
every refusal is still found there, with the same problem and location. Why each test is
enough:

- Numbers: `may_hold_refused_number`; the C decoder makes every other number as the
  hooks do (`int`, `float`).
- NaN and Infinity: the one hook kept (`_refuse`), called only when one is met.
- Duplicate keys: the walk that finds the depth (`shape`) also counts the objects'
  entries. Every ":" of a text is the one after a key or is inside a string, and a
  duplicate leaves its object one entry short; so a text with exactly as many ":" as
  entries has no duplicate. One whose strings hold a ":" (a URL, a time of day) is
  decoded again with `_unique`, which tests each object's keys as it is made.
- Nesting and trailing data: the exact path's own tests, on the same value; a
  RecursionError or any other error of the C decoder sends the text to the exact path.
  (Lone surrogates are tested by the caller, with the exact path's own test.)

Many small documents (a stream's events, a JSON Lines file's records) are tried together
(`quick_values`): each is decoded by the C decoder, one call per document with no Python
frame between them, and the tests above are made once over all of them.
"""

from __future__ import annotations

import json
import re
from itertools import chain, compress, repeat
from math import isinf
from operator import itemgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Accept = Callable[[list[Any]], bool]
    """What a caller of `quick_batches` asks of each batch's values (their schema)."""
else:
    Accept = None

UNSURE = object()
"""What `quick_value` returns for a text it cannot vouch for."""
QUICK_FROM = 65_536
"""The length from which a document is tried on the quick path. On a real capture's
documents (15 B to 4.5 KB) its tests and walk cost as much as the hooks save, or more:
92 k against 109 k instructions for 0.5 KB of numbers, 116 k against 77 k for 1.3 KB
around one long non-ASCII string, which makes the byte test dear."""
_SPACE = re.compile(r"[ \t\n\r]*")
"""JSON's own whitespace (RFC 8259: space, tab, line feed, carriage return; not
`str.isspace`'s)."""
_NUMBER_SHAPE = bytes.maketrans(b"123456789E-", b"000000000e+")
"""Every digit as 0, E as e and - as +, for `in` tests of the shape of a text's numbers."""


class _Refused(ValueError):
    """Raised by the quick scanners' hooks: the text goes to the exact path."""


def _refuse(name: str) -> Any:
    raise _Refused(name)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refused when a key repeats (the dict comes out short)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Refused("duplicate")
    return obj


def _finite(text: str) -> float:
    """A float's value, refused when infinite (`1e999`): the one Python call per float,
    of many small texts (`quick_values`), where floats are few."""
    value = float(text)
    if isinf(value):
        raise _Refused("huge")
    return value


# (`scan_once`, which every decoder has, is missing from the typing stubs)
_PLAIN = json.JSONDecoder(parse_constant=_refuse).scan_once  # type: ignore[attr-defined]
_UNIQUE = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_refuse).scan_once  # type: ignore[attr-defined]
_FINITE = json.JSONDecoder(parse_float=_finite, parse_constant=_refuse).scan_once  # type: ignore[attr-defined]
"""The C decoder's scanners, NaN and Infinity refused, the second with each object's keys
tested, the third with each float's; made once, not per decoder."""


def long_run(max_digits: int) -> bytes:
    """The run of digits (as `_NUMBER_SHAPE` writes them) that `may_hold_refused_number`
    looks for: K zeros, K at most `max_digits` + 1, (`max_digits` + 19) // 3 and 200."""
    return b"0" * min(max_digits + 1, (max_digits + 19) // 3, 200)


def may_hold_refused_number(text: str, run: bytes) -> bool:
    """False only for a text with no number the hooks refuse (`StrictDecoder._int` and
    `_float`), tested at C speed on its bytes with every digit made "0".

    With every run of digits shorter than `run` (K = `long_run(max_digits)`), an integer
    has at most `max_digits` digits, and a float at most 3K + 1 characters (a sign, three
    runs, a point, an e and its sign), within the `max_digits` + 20 its hook allows; with
    an exponent of two digits or fewer it is below 10^(K - 1 + 99), finite. A run of
    digits in a string is a false alarm, as is an "e570" in a hex build id. (A function of
    its own, so that the bytes are let go before the text is decoded.)
    """
    shape_of = text.encode("utf-8", "surrogatepass").translate(_NUMBER_SHAPE)
    return run in shape_of or b"e000" in shape_of or b"e+000" in shape_of


def has_long_digit_run(text: str, run: bytes) -> bool:
    """Whether `text` holds a run of digits as long as `run`: the half of
    `may_hold_refused_number` that a number's text is needed for. (Of a float's, the
    other half asks only whether its value is infinite, which the value tells.)"""
    return run in text.encode("utf-8", "surrogatepass").translate(_NUMBER_SHAPE)


_IS_DICT = frozenset((dict,)).__contains__
_IS_LIST = frozenset((list,)).__contains__
_IS_CONTAINER = frozenset((dict, list)).__contains__
"""Tests of a value's type, called from C (`map`) with no Python frame."""


def shape(value: Any) -> tuple[int, int]:
    """The nesting depth of a decoded value and the entries of all its objects, without
    recursion (the value may be deep).

    One level at a time: each pass keeps only the containers of the next level, so a
    number or a string costs one test, never a stack entry (a near-cap document holds a
    million of them). Every step is a C loop (`map`, `compress`, `chain`), no Python
    code per item: a decoded value's containers are plain dicts and lists, told apart by
    their type.
    """
    deepest = entries = 0
    level = [value] if _IS_CONTAINER(type(value)) else []
    while level:
        deepest += 1
        kinds = list(map(type, level))
        dicts = list(compress(level, map(_IS_DICT, kinds)))
        entries += sum(map(len, dicts))
        children = list(
            chain(
                chain.from_iterable(map(dict.values, dicts)),
                chain.from_iterable(compress(level, map(_IS_LIST, kinds))),
            )
        )
        level = list(compress(children, map(_IS_CONTAINER, map(type, children))))
    return deepest, entries


def _after_space(text: str, at: int) -> int:
    """Where the JSON whitespace from `at` ends (`_SPACE` matches anywhere, if only nothing)."""
    space = _SPACE.match(text, at)
    return space.end() if space is not None else at


def quick_value(text: str, run: bytes, max_depth: int) -> Any:
    """The value of a document as the exact path would give it, or `UNSURE` when it might
    hold what the exact path refuses (see the module docstring)."""
    if may_hold_refused_number(text, run):
        return UNSURE
    start = _after_space(text, 0)
    try:
        value, end = _PLAIN(text, start)
        depth, entries = shape(value)
        if entries != text.count(":"):
            value, end = _UNIQUE(text, start)
    except (StopIteration, ValueError, RecursionError):
        return UNSURE
    if _after_space(text, end) != len(text) or depth > max_depth:
        return UNSURE
    return value


def quick_values(texts: list[str], run: bytes, max_depth: int) -> list[Any] | object:
    """The value of each text, as the exact path would give it, or `UNSURE` when any of
    them might hold what the exact path refuses, or is not one value from its first
    character to its last (space around it is left to the exact path).

    The module docstring's tests, once for all the texts: the digit runs in their texts
    joined by LFs (a LF ends every run, so none spans two texts); each float's value
    (`_finite`: the exact path refuses a float whose text is that short only when it is
    infinite, so no "e570" of a build id sends a stream to the exact path); the entries
    of all the values against all their ":"; the deepest of them. A text with no
    value at its start makes the C decoder raise StopIteration, which ends `map` early
    and silently: so the values are counted."""
    joined = "\n".join(texts)
    if has_long_digit_run(joined, run):
        return UNSURE
    try:
        decoded = list(map(_FINITE, texts, repeat(0)))
        if not _whole(decoded, texts):
            return UNSURE
        values = list(map(itemgetter(0), decoded))
        depth, entries = shape(values)  # one level more: the list of them
        if entries != joined.count(":"):
            values = list(map(itemgetter(0), map(_UNIQUE, texts, repeat(0))))
    except (ValueError, RecursionError):
        return UNSURE
    return UNSURE if depth - 1 > max_depth else values


QUICK_BATCH = 64
"""Texts decoded and tested at a time by `quick_batches`: what a file that goes the
exact way after all costs at most beyond that way. Measured, best of 3, against all at
once: a near-cap stream 41.9 -> 34.8 ms and near-cap JSON Lines 61.7 -> 41.8 ms (a
batch's values are still in the cache when they are tested), 4,096 events of 900-deep
arrays 2,793 -> 85 ms; 64 and 256 cost the same on the near-cap files."""


def quick_batches(
    texts: list[str], run: bytes, max_depth: int, accept: Accept | None = None
) -> list[Any] | object:
    """`quick_values` of `texts`, `QUICK_BATCH` at a time, each batch's values also
    given to `accept` (None: any): `UNSURE` at the first batch that either refuses.

    Every text is decoded before `quick_values` tests any, and the caller's own tests
    (a chunk's schema) come after: on all of a file at once, a hostile stream of 4,096
    deep or long arrays took 11 times as long as the exact way, which stops at its first
    problems, and seven times its memory. A batch at a time, it costs at most a batch
    more than the exact way."""
    values: list[Any] = []
    for start in range(0, len(texts), QUICK_BATCH):
        found = quick_values(texts[start : start + QUICK_BATCH], run, max_depth)
        if found is UNSURE or (accept is not None and not accept(found)):  # type: ignore[arg-type]
            return UNSURE
        values += found  # type: ignore[arg-type]
    return values


def _whole(decoded: list[tuple[Any, int]], texts: list[str]) -> bool:
    """Whether there is a value for each text, ending where its text ends."""
    return list(map(itemgetter(1), decoded)) == list(map(len, texts))
