"""Strict JSON: what the lab's files must be, with a line number for every complaint.

Python's `json` accepts things a grader must not: NaN and Infinity, duplicate keys (the
last one silently wins), numbers too long to convert (a ValueError after 4,300 digits) or
too large to be finite (`1e400` becomes inf), and nesting deep enough to raise
RecursionError. The one reader of the lab's JSON parses with the C decoder and hooks
that refuse each of those (a document, a stream's events, a JSON Lines file's records);
only when something is refused does a slower position-tracking walk find the line and
column to report. The same walk maps JSON pointers to lines for the checks' messages.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field
from itertools import chain, compress
from typing import TYPE_CHECKING

from grader.words.problems import Location, Problem, json_pointer

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

_WS = r"[ \t\n\r]*"
_NUMBER = r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?"
"""The patterns only `Walker` reads with (compiled by it: a passing file is never walked,
and compiling patterns at import is a good part of a cold `grader check`)."""
_LITERALS = (("true", True), ("false", False), ("null", None))
_CONSTANTS = ("NaN", "-Infinity", "Infinity")
_DECODER = json.JSONDecoder()  # raw_decode reads one string at its quote, in json's words


class _Refusal(Exception):
    """Raised by a decoder hook; the walk then finds where."""


class JsonError(Exception):
    """The text is not acceptable JSON; `problem` has the message id and position."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message_id)
        self.problem = problem


@dataclass
class LineIndex:
    """Offsets of line starts, to turn a character offset into (line, column)."""

    starts: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str) -> LineIndex:
        starts = [0]
        starts.extend(m.end() for m in re.finditer(r"\r\n|\r|\n", text))
        return cls(starts)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _reject_constant(name: str) -> NoReturn:
    raise _Refusal(name)


class StrictDecoder:
    """A `json.JSONDecoder` with hooks that refuse what the lab's files may not contain."""

    def __init__(self, max_digits: int, max_depth: int, *, share_keys: bool = False) -> None:
        self.max_digits = max_digits
        self.max_depth = max_depth
        self._keys: dict[str, str] | None = {} if share_keys else None
        self._decoder = json.JSONDecoder(
            object_pairs_hook=self._pairs,
            parse_constant=_reject_constant,
            parse_int=self._int,
            parse_float=self._float,
        )

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        """The object; with `share_keys`, its keys shared with every object this decoder
        made before.

        A stream's events and a JSON Lines file's records are decoded one by one, each
        with the same few dozen key names: shared, each name is held once (2.2 of a
        near-cap event stream's 7.5 MiB of events were key names). Within one document
        the json module shares them already."""
        keys = self._keys
        if keys is None:
            obj = dict(pairs)
        else:
            obj = {keys.setdefault(key, key): value for key, value in pairs}
        if len(obj) != len(pairs):
            raise _Refusal("duplicate")
        return obj

    def _int(self, text: str) -> int:
        if len(text.lstrip("-")) > self.max_digits:
            raise _Refusal("long")
        return int(text)

    def _float(self, text: str) -> float:
        if len(text) > self.max_digits + 20:
            raise _Refusal("long")
        value = float(text)
        if math.isinf(value):
            raise _Refusal("huge")
        return value

    def decode_all(
        self, texts: list[str], accept: Callable[[list[Any]], bool] | None = None
    ) -> list[Any] | None:
        """Each text's value as `decode` gives it, when every text decodes and `accept`
        (a schema's test; None: any) takes each batch of `DECODE_BATCH` values as soon as
        it is decoded; else None, and the caller reads the texts one by one."""
        values: list[Any] = []
        try:
            for start in range(0, len(texts), DECODE_BATCH):
                batch = [self.decode(text, "") for text in texts[start : start + DECODE_BATCH]]
                if accept is not None and not accept(batch):
                    return None
                values += batch
        except JsonError:
            return None
        return values

    def decode(self, text: str, file: str) -> Any:
        """Parse one JSON document through the hooks that refuse, or raise `JsonError`
        with the walk's location of the first thing refused."""
        if not text.strip():
            raise JsonError(Problem("json.empty", {}, Location(file, 1, 1)))
        try:
            value = self._decoder.decode(text)
        except json.JSONDecodeError as exc:
            raise JsonError(_syntax_problem(exc, text, file)) from None
        except (_Refusal, RecursionError, ValueError):
            raise JsonError(
                Walker(text, self.max_depth, self.max_digits).first_problem(file)
            ) from None
        # nesting can't exceed the number of brackets: most documents skip the walk
        many = text.count("[") + text.count("{") > self.max_depth
        if many and _depth(value) > self.max_depth:
            raise JsonError(Walker(text, self.max_depth, self.max_digits).first_problem(file))
        if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
            raise JsonError(_surrogate_problem(text, file))
        return value


DECODE_BATCH = 64
"""Texts decoded and tested at a time by `StrictDecoder.decode_all`: a hostile file (4,096
deep arrays) costs at most a batch more than the one-by-one reading."""
_IS_DICT = frozenset((dict,)).__contains__
_IS_LIST = frozenset((list,)).__contains__
_IS_CONTAINER = frozenset((dict, list)).__contains__


def _depth(value: Any) -> int:
    """The nesting depth of a decoded value, one level at a time (no recursion: it may be
    deeper than the stack), each step a C loop over the level with no Python frame."""
    depth = 0
    level = [value] if _IS_CONTAINER(type(value)) else []
    while level:
        depth += 1
        kinds = list(map(type, level))
        items = map(dict.values, compress(level, map(_IS_DICT, kinds)))
        lists = compress(level, map(_IS_LIST, kinds))
        children = list(chain(chain.from_iterable(items), chain.from_iterable(lists)))
        level = list(compress(children, map(_IS_CONTAINER, map(type, children))))
    return depth


_DECODER_WORDS = {
    "Expecting ',' delimiter": "json.expected_comma",
    "Expecting ':' delimiter": "json.expected_colon",
    "Invalid control character at": "json.control_character",
    "Invalid \\escape": "json.bad_escape",
    "Invalid \\uXXXX escape": "json.bad_escape",
    "Unterminated string starting at": "json.unterminated_string",
}
"""The json module's English messages, by the catalog message that says the same."""


def syntax_message(msg: str, text: str, pos: int) -> str:
    """The catalog id for a json.JSONDecodeError at `pos` of `text`: the decoder's English
    words never reach a student, and the commonest mistakes get named (a trailing comma,
    a key in single quotes, a Python `True`)."""
    before = text[:pos].rstrip()
    here = text[pos : pos + 1]
    if msg.startswith("Expecting property name") or msg == "Expecting value":
        if before.endswith(",") and here in "}]":
            return "json.trailing_comma"
        if here == "'":
            return "json.single_quotes"
        if text.startswith(("True", "False", "None"), pos):
            return "json.python_literal"
        key = msg.startswith("Expecting property name")
        return "json.expected_key" if key else "json.expected_value"
    if re.search(r"(?<![0-9.eE+-])-?0$", before) and here.isdigit():
        return "json.leading_zero"
    return next((m for words, m in _DECODER_WORDS.items() if msg.startswith(words)), "json.syntax")


def _syntax_problem(exc: json.JSONDecodeError, text: str, file: str) -> Problem:
    where = Location(file, exc.lineno, exc.colno)
    if exc.msg == "Extra data":
        return Problem("json.trailing_data", {}, where)
    if exc.pos >= len(text.rstrip()):
        return Problem("json.truncated", {}, where)
    snippet = _printable(text[exc.pos : exc.pos + 12].split("\n")[0])
    message = syntax_message(exc.msg, text, exc.pos)
    return Problem(message, {"near": snippet, "bracket": text[exc.pos : exc.pos + 1]}, where)


def _printable(text: str) -> str:
    """A snippet safe to print: control characters shown as escapes (\\x00), not raw."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(value: object) -> bool:
    """True when a string holds half a surrogate pair: valid JSON, but not text (it can't
    be written as UTF-8, so it could not be in any message or result)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _surrogate_problem(text: str, file: str) -> Problem:
    match = _SURROGATE_ESCAPE.search(text)
    line, column = LineIndex.of(text).position(match.start() if match else 0)
    near = match.group() if match else ""
    return Problem("json.lone_surrogate", {"near": near}, Location(file, line, column))


class Walker:
    """A position-keeping JSON reader, used only to explain and to locate: it builds no
    value (the C decoder did), it records the offset where each value and key starts, by
    JSON pointer, and stops at the first thing the strict decoder refuses."""

    def __init__(self, text: str, max_depth: int = 64, max_digits: int = 100) -> None:
        self.text = text
        self.max_depth = max_depth
        self.max_digits = max_digits
        self.offsets: dict[str, int] = {}
        self._space = re.compile(_WS)
        self._number = re.compile(_NUMBER)

    def first_problem(self, file: str) -> Problem:
        lines = LineIndex.of(self.text)
        try:
            self.walk()
        except _WalkStop as stop:
            line, column = lines.position(stop.offset)
            return Problem(stop.message_id, stop.params, Location(file, line, column, stop.pointer))
        return Problem("json.syntax", {"near": _printable(self.text[:12])}, Location(file, 1, 1))

    def _near(self, i: int) -> dict[str, Any]:
        return {"near": _printable(self.text[i : i + 12]), "bracket": self.text[i : i + 1]}

    def walk(self) -> dict[str, int]:
        end = self._value(self._skip(0), [], 1)
        if self._skip(end) != len(self.text):
            raise _WalkStop("json.trailing_data", {}, self._skip(end), "")
        return self.offsets

    def _skip(self, i: int) -> int:
        match = self._space.match(self.text, i)
        return match.end() if match else i

    def _value(self, i: int, path: list[str | int], depth: int) -> int:
        text = self.text
        pointer = json_pointer(path)
        self.offsets[pointer] = i
        if depth > self.max_depth:
            raise _WalkStop("json.too_deep", {"limit": self.max_depth}, i, pointer)
        char = text[i : i + 1]
        if char == "{":
            return self._object(i, path, depth)
        if char == "[":
            return self._array(i, path, depth)
        if char == '"':
            return self._string(i, pointer)
        for constant in _CONSTANTS:
            if text.startswith(constant, i):
                raise _WalkStop("json.not_a_number", {"value": constant}, i, pointer)
        for literal, _ in _LITERALS:
            if text.startswith(literal, i):
                return i + len(literal)
        match = self._number.match(text, i)
        if not match:
            raise _WalkStop(syntax_message("Expecting value", text, i), self._near(i), i, pointer)
        number = match.group()
        digits = len(re.sub(r"[^0-9]", "", number.split("e")[0].split("E")[0]))
        if digits > self.max_digits:
            raise _WalkStop(
                "json.number_too_long", {"digits": digits, "limit": self.max_digits}, i, pointer
            )
        if any(c in number for c in ".eE") and math.isinf(float(number)):
            raise _WalkStop("json.number_too_large", {"value": number[:30]}, i, pointer)
        return match.end()

    def _string(self, i: int, pointer: str) -> int:
        try:
            _, end = _DECODER.raw_decode(self.text, i)
        except json.JSONDecodeError as exc:
            raise _WalkStop(
                syntax_message(exc.msg, self.text, exc.pos),
                {"near": _printable(self.text[i : i + 12]), "bracket": ""},
                exc.pos,
                pointer,
            ) from None
        return end

    def _object(self, i: int, path: list[str | int], depth: int) -> int:
        text = self.text
        seen: set[str] = set()
        i = self._skip(i + 1)
        if text[i : i + 1] == "}":
            return i + 1
        while True:
            if text[i : i + 1] != '"':
                raise _WalkStop(
                    syntax_message("Expecting property name", text, i),
                    self._near(i),
                    i,
                    json_pointer(path),
                )
            key, after = _DECODER.raw_decode(text, i)
            if key in seen:
                raise _WalkStop("json.duplicate_key", {"key": key}, i, json_pointer([*path, key]))
            seen.add(key)
            i = self._skip(after)
            if text[i : i + 1] != ":":
                raise _WalkStop("json.expected_colon", self._near(i), i, json_pointer(path))
            i = self._skip(self._value(self._skip(i + 1), [*path, key], depth + 1))
            if text[i : i + 1] == ",":
                i = self._skip(i + 1)
                continue
            if text[i : i + 1] == "}":
                return i + 1
            raise _WalkStop("json.expected_comma", self._near(i), i, json_pointer(path))

    def _array(self, i: int, path: list[str | int], depth: int) -> int:
        text = self.text
        i = self._skip(i + 1)
        if text[i : i + 1] == "]":
            return i + 1
        index = 0
        while True:
            i = self._skip(self._value(i, [*path, index], depth + 1))
            index += 1
            if text[i : i + 1] == ",":
                i = self._skip(i + 1)
                continue
            if text[i : i + 1] == "]":
                return i + 1
            raise _WalkStop("json.expected_comma", self._near(i), i, json_pointer(path))


class _WalkStop(Exception):
    def __init__(self, message_id: str, params: dict[str, Any], offset: int, pointer: str) -> None:
        super().__init__(message_id)
        self.message_id = message_id
        self.params = params
        self.offset = offset
        self.pointer = pointer


class PositionMap:
    """Lazily built pointer → (line, column) map of one JSON text (walked at most once)."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._text = text
        self._first_line = first_line
        self._offsets: dict[str, int] | None = None
        self._lines: LineIndex | None = None

    def line_of(self, pointer: str) -> int | None:
        if self._offsets is None:
            try:
                self._offsets = Walker(self._text, max_depth=10_000, max_digits=10**9).walk()
            except (_WalkStop, RecursionError):
                self._offsets = {}
            self._lines = LineIndex.of(self._text)
        while pointer not in self._offsets and pointer:
            pointer = pointer.rsplit("/", 1)[0]  # nearest enclosing value that exists
        offset = self._offsets.get(pointer)
        if offset is None or self._lines is None:
            return None
        return self._lines.position(offset)[0] + self._first_line - 1
