#!/usr/bin/env python3
"""Mutation fuzzer for the grader: break real captures at random and grade the wreckage.

The grader promises to be a pure function from a folder to a `Result`: it never raises
(except `NotGradable` for a missing folder), always gives a result valid against
`grader/schemas/result.schema.json`, and gives the same bytes for the same input. This script
tests those promises on mutants of the real captures in `sample_submissions/`:

    python scripts/fuzz.py --cases N [--seed S] [--seconds T] [--out DIR] [--jobs J]

For each case one real capture is taken as the seed, 1-3 random mutations are applied to
its artifact files (byte flips, truncation, JSON key deletion, type swaps, extreme numbers,
SSE framing changes, log garbage, non-Python `sse.py`, a file replaced by a directory,
UTF-16, ...), and the mutant is graded twice in-process. The outcome is one of:

- crash: an exception escaped `grade` (or a worker process died);
- hang: one `grade` call took more than 1 s of wall time (measured, not interrupted), or
  the case was killed by the hard watchdog (`--watchdog`, default 30 s);
- invalid: the result's JSON is not strict JSON or not valid against the result schema;
- nondeterministic: the two grades of the same mutant gave different JSON bytes.

Checks that end with status `error` (a check's exception, caught by the engine) and files
the loader could only call "unparseable" (a parser's exception, caught by the loader) are
not failures of the promises above, but they are bugs in `checks/` or `grader/`; they are
counted and saved as well (as information; they don't change the exit status).

Mutants are a function of (--seed, case index) only, so a run is reproducible and one case
can be replayed with `--replay INDEX`. Grading twice in one process cannot see a result that
depends on the hash seed; for that, run twice with different `PYTHONHASHSEED` values and
`--digests FILE` (a hash of every result, submission path left out) and compare the files.

Failing cases are saved under --out (default `fuzz-failures/`), one folder per case: the
mutated submission and `notes.txt` (seed, mutations, traceback or difference, timings), at
most --save-cap per distinct failure (all are counted). The exit status is 1 when any of
crashes, hangs, invalid or nondeterministic results (or an error of this script) is
non-zero, else 0.

The reusable part (`make_case`, `CaseRunner`, `Campaign`, `run_in_process`, `run_parallel`)
is importable; `tests/test_fuzz_sample.py` runs a short fixed-seed sample in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from checks import LAB  # noqa: E402
from grader.grade import grade  # noqa: E402
from grader.rubric import Rubric, load_lab_rubric  # noqa: E402

SAMPLES = ROOT / "sample_submissions"
HANG_SECONDS = 1.0
"""A single `grade` call slower than this (wall time) counts as a hang."""
DEFAULT_WATCHDOG = 30.0
"""A case still running after this many seconds is killed and counted as a hang."""
DEFAULT_SAVE_CAP = 50
"""Failing cases saved per distinct failure signature (all are counted)."""
FAILURE_KINDS = ("crash", "hang", "invalid", "nondeterministic")
INFO_KINDS = ("check_error", "parser_fallback", "fuzzer_error")

# -- file states -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Special:
    """A file that is not a regular file: a directory, a symbolic link or a FIFO."""

    kind: str
    target: str = ""


State = bytes | Special | None
"""What one artifact's path holds in a mutant: bytes (a regular file), a `Special`, or
None (the file is absent)."""

FILENAMES: tuple[str, ...] = tuple(spec.filename for spec in LAB.artifacts)


def file_kind(name: str) -> str:
    """The mutation family of an artifact file."""
    if name == "sse_raw.txt":
        return "sse"
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".py"):
        return "py"
    if name.endswith(".log"):
        return "log"
    return "text"


FILE_WEIGHTS = {"sse": 3.0, "jsonl": 2.0, "log": 2.0, "py": 1.5, "json": 1.0, "text": 1.0}


def load_seeds(root: Path = SAMPLES) -> dict[str, dict[str, State]]:
    """The real captures: every top-level folder of sample_submissions/ except `derived`."""
    seeds: dict[str, dict[str, State]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "derived"):
        files: dict[str, State] = {}
        for name in FILENAMES:
            path = folder / name
            files[name] = path.read_bytes() if path.is_file() else None
        if any(v is not None for v in files.values()):
            seeds[folder.name] = files
    if not seeds:
        raise SystemExit(f"no seed submissions under {root}")
    return seeds


# -- mutations -------------------------------------------------------------------------------

MutationFunc = Callable[[random.Random, bytes], tuple[State, str]]


@dataclass(frozen=True)
class Mutation:
    name: str
    kinds: frozenset[str]  # file kinds it applies to; "any" for every file
    weight: float
    func: MutationFunc
    whole_file: bool = False  # also applies when the file is not a regular file


MUTATIONS: list[Mutation] = []


def mutation(
    name: str, *kinds: str, weight: float = 1.0, whole_file: bool = False
) -> Callable[[MutationFunc], MutationFunc]:
    def register(func: MutationFunc) -> MutationFunc:
        MUTATIONS.append(Mutation(name, frozenset(kinds), weight, func, whole_file))
        return func

    return register


def _eol(data: bytes) -> bytes:
    if b"\r\n" in data:
        return b"\r\n"
    if b"\n" not in data and b"\r" in data:
        return b"\r"
    return b"\n"


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _insert_line(rng: random.Random, data: bytes, new: bytes) -> tuple[bytes, int]:
    lines = _lines(data)
    at = rng.randrange(len(lines) + 1)
    if at == len(lines) and lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += _eol(data)
    lines.insert(at, new)
    return b"".join(lines), at + 1


def _offset(rng: random.Random, data: bytes) -> int:
    if not data:
        return 0
    if rng.random() < 0.2:
        return max(0, len(data) - rng.randint(1, 3))
    return rng.randrange(len(data) + 1)


# generic ---------------------------------------------------------------------------------


@mutation("byte_flip", "any")
def _byte_flip(rng: random.Random, data: bytes) -> tuple[State, str]:
    if not data:
        return bytes([rng.randrange(256)]), "into an empty file"
    buf = bytearray(data)
    count = rng.choice((1, 1, 1, 2, 4, 16))
    for _ in range(count):
        at = rng.randrange(len(buf))
        if rng.random() < 0.5:
            buf[at] ^= 1 << rng.randrange(8)
        else:
            buf[at] = rng.randrange(256)
    return bytes(buf), f"{count} byte(s)"


@mutation("truncate", "any")
def _truncate(rng: random.Random, data: bytes) -> tuple[State, str]:
    at = _offset(rng, data)
    return data[:at], f"at byte {at} of {len(data)}"


@mutation("delete_line", "any")
def _delete_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    del lines[at]
    return b"".join(lines), f"line {at + 1}"


@mutation("duplicate_line", "any")
def _duplicate_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    line = lines[at] if lines[at].endswith((b"\n", b"\r")) else lines[at] + _eol(data)
    lines.insert(at, line)
    return b"".join(lines), f"line {at + 1}"


@mutation("line_endings", "sse", "jsonl", "log", "py", "json", weight=0.7)
def _line_endings(rng: random.Random, data: bytes) -> tuple[State, str]:
    lf = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    choice = rng.choice(("crlf", "cr", "mixed", "lf"))
    if choice == "crlf":
        return lf.replace(b"\n", b"\r\n"), "CRLF"
    if choice == "cr":
        return lf.replace(b"\n", b"\r"), "CR"
    if choice == "lf":
        return lf, "LF"
    lines = _lines(lf)
    out = [
        line[:-1] + rng.choice((b"\r\n", b"\r", b"\n")) if line.endswith(b"\n") else line
        for line in lines
    ]
    return b"".join(out), "mixed"


_BAD_UTF8 = (b"\xff", b"\xfe", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\x80")


@mutation("insert_nul", "any", weight=0.7)
def _insert_nul(rng: random.Random, data: bytes) -> tuple[State, str]:
    at = _offset(rng, data)
    count = rng.choice((1, 1, 3))
    return data[:at] + b"\x00" * count + data[at:], f"{count} at byte {at}"


@mutation("invalid_utf8", "any", weight=0.7)
def _invalid_utf8(rng: random.Random, data: bytes) -> tuple[State, str]:
    at = _offset(rng, data)
    bad = rng.choice(_BAD_UTF8)
    return data[:at] + bad + data[at:], f"{bad!r} at byte {at}"


@mutation("bom", "any", weight=0.5)
def _bom(rng: random.Random, data: bytes) -> tuple[State, str]:
    bom = b"\xef\xbb\xbf"
    where = rng.choice(("start", "double", "line", "end"))
    if where == "start":
        return bom + data, where
    if where == "double":
        return bom + bom + data, where
    if where == "end":
        return data + bom, where
    lines = _lines(data)
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, bom)
    return b"".join(lines), f"at line {at + 1}"


# whole file ------------------------------------------------------------------------------


@mutation("empty_file", "any", weight=0.4, whole_file=True)
def _empty(rng: random.Random, data: bytes) -> tuple[State, str]:
    return rng.choice((b"", b"", b" \n\t\n", b"\n")), ""


@mutation("directory", "any", weight=0.3, whole_file=True)
def _directory(rng: random.Random, data: bytes) -> tuple[State, str]:
    return Special("dir"), ""


@mutation("delete_file", "any", weight=0.4, whole_file=True)
def _delete_file(rng: random.Random, data: bytes) -> tuple[State, str]:
    return None, ""


@mutation("reencode", "any", weight=0.4, whole_file=True)
def _reencode(rng: random.Random, data: bytes) -> tuple[State, str]:
    encoding = rng.choice(("utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1"))
    text = data.decode("utf-8", "replace")
    return text.encode(encoding, "replace"), encoding


@mutation("symlink", "any", weight=0.2, whole_file=True)
def _symlink(rng: random.Random, data: bytes) -> tuple[State, str]:
    target = rng.choice(("health.json", "server.log", "/etc/hostname", "no-such-file", "."))
    return Special("symlink", target), target


@mutation("fifo", "any", weight=0.2, whole_file=True)
def _fifo(rng: random.Random, data: bytes) -> tuple[State, str]:
    return Special("fifo"), ""


# JSON --------------------------------------------------------------------------------------


class Raw:
    """A JSON token written as is (NaN, 1e400, 5000 digits, 100000 brackets, ...)."""

    def __init__(self, text: str) -> None:
        self.text = text


_EXTREMES = (
    "NaN",
    "Infinity",
    "-Infinity",
    "-1",
    "0",
    "1e400",
    "-1e400",
    "1" + "0" * 5000,
    "-0.0",
    "-0",
    "1e-400",
    "9" * 100,
    "9" * 101,
    "1" + "0" * 99,
    str(2**63),
    str(2**64 + 1),
    "-" + "9" * 50,
    "1e308",
    "1.7976931348623157e308",
    "5e-324",
    "0.1",
    "1E2",
    "1." + "0" * 200 + "1",
    "1e999999999999",
    "123456789012345678901234567890.5",
    "0.000000001",
    "64",
    "65",
    "256",
    "4096",
)


def _deep(rng: random.Random) -> str:
    depth = rng.choice((10, 63, 64, 65, 100, 1000, 10_000, 100_000))
    shape = rng.choice(("array", "object", "mixed", "unclosed"))
    if shape == "array":
        return "[" * depth + "]" * depth
    if shape == "object":
        return '{"a":' * depth + "1" + "}" * depth
    if shape == "mixed":
        half = depth // 2
        return '[{"a":' * half + "[]" + "}]" * half
    return "[" * depth


def _nodes(value: Any) -> list[tuple[tuple[Any, ...], Any]]:
    found: list[tuple[tuple[Any, ...], Any]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        found.append((path, item))
        if isinstance(item, dict):
            stack.extend(((*path, k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(item))))
    return found


def _set(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = root
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = new
    return root


def _pointer(path: tuple[Any, ...]) -> str:
    return "".join(f"/{p}" for p in path) or "(root)"


def _dump(value: Any, pretty: bool, compact: bool = False) -> str:
    raws: list[str] = []

    def default(obj: Any) -> Any:
        if isinstance(obj, Raw):
            raws.append(obj.text)
            return f"@@fuzz-raw-{len(raws) - 1}@@"
        raise TypeError(type(obj).__name__)

    text = json.dumps(
        value,
        indent=2 if pretty else None,
        ensure_ascii=False,
        default=default,
        separators=(",", ":") if compact else None,
    )
    for index, raw in enumerate(raws):
        text = text.replace(f'"@@fuzz-raw-{index}@@"', raw, 1)
    return text


def _swap(rng: random.Random, value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        options: list[Any] = [0, 1, "true", [], {}]
    elif isinstance(value, (int, float)):
        options = [str(value), True, False, None, [value], {"value": value}]
    elif isinstance(value, str):
        options = [0, 1.5, None, True, [value], {}]
    elif isinstance(value, list):
        options = [{str(i): v for i, v in enumerate(value)}, {}, None, "array", 0]
        if value:
            options.append(value[0])
    else:
        options = [list(value.values()), [], None, "object", 0]
    return rng.choice(options)


def _tweak_number(rng: random.Random, value: int | float) -> int | float:
    if isinstance(value, int):
        return rng.choice(
            (value + 1, value - 1, 0, 1, -value, value * 2, value // 2, value * 1000, 4, 5, 12, 64)
        )
    if not math.isfinite(value):  # NaN or Infinity left by an earlier mutation
        return rng.choice((0.0, 1.0, -1.0))
    return rng.choice(
        (value * 1.5, value / 2, value + 0.5, value - 0.5, 0.0, -value, float(round(value)),
         value * 1000, value + 1e-9, value / 1000)
    )  # fmt: skip


def _tweak_string(rng: random.Random, value: str) -> str | Raw:
    return rng.choice(
        (
            "",
            " ",
            value + ". Next one.",
            value[: len(value) // 2],
            value.upper(),
            "x" * 10_000,
            value.replace(".", ""),
            value.replace(" ", ".  "),
            "é\u2028\u0085\x00",
            "3.5 a.m. is early! Yes? No.",
            value + value,
            Raw('"\\ud800"'),  # a lone surrogate, as JSON allows it to be written
            Raw('"Fine.\\udfff Next."'),
            Raw('"\\u0000\\u001f"'),
        )
    )


JSON_OPS = (
    "key_delete",
    "type_swap",
    "number_extreme",
    "deep_value",
    "number_tweak",
    "string_tweak",
    "array_edit",
)


def _json_op(rng: random.Random, root: Any, op: str) -> tuple[Any, str]:
    """Apply structural JSON mutation `op` to a parsed document; returns (root, detail)."""
    root, done, detail = _json_op_inner(rng, root, op)
    return root, detail if done == op else f"nothing to {op}, did {done}: {detail}"


def _json_op_inner(rng: random.Random, root: Any, op: str) -> tuple[Any, str, str]:
    nodes = _nodes(root)
    if op == "key_delete":
        keyed = [(p, v) for p, v in nodes if p and isinstance(p[-1], str)]
        if keyed:
            path, _ = rng.choice(keyed)
            parent = root
            for part in path[:-1]:
                parent = parent[part]
            del parent[path[-1]]
            return root, op, _pointer(path)
        op = "type_swap"
    if op == "number_tweak":
        numbers = [(p, v) for p, v in nodes if isinstance(v, (int, float))]
        if numbers:
            path, value = rng.choice(numbers)
            new = not value if isinstance(value, bool) else _tweak_number(rng, value)
            return _set(root, path, new), op, f"{_pointer(path)} {value!r} -> {new!r}"
        op = "number_extreme"
    if op == "string_tweak":
        strings = [(p, v) for p, v in nodes if isinstance(v, str)]
        if strings:
            path, value = rng.choice(strings)
            return _set(root, path, _tweak_string(rng, value)), op, _pointer(path)
        op = "type_swap"
    if op == "array_edit":
        arrays = [(p, v) for p, v in nodes if isinstance(v, list) and v]
        if arrays:
            path, value = rng.choice(arrays)
            how = rng.choice(("remove", "duplicate", "swap", "reverse", "clear"))
            i, j = rng.randrange(len(value)), rng.randrange(len(value))
            if how == "remove":
                del value[i]
            elif how == "duplicate":
                value.insert(i, copy.deepcopy(value[i]))
            elif how == "swap":
                value[i], value[j] = value[j], value[i]
            elif how == "reverse":
                value.reverse()
            else:
                value.clear()
            return root, op, f"{how} {_pointer(path)}"
        op = "type_swap"
    if op == "number_extreme":
        numbers = [(p, v) for p, v in nodes if isinstance(v, (int, float))] or nodes
        path, _ = rng.choice(numbers)
        token = rng.choice(_EXTREMES)
        return _set(root, path, Raw(token)), op, f"{_pointer(path)} -> {token[:24]}"
    if op == "deep_value":
        path, _ = rng.choice(nodes)
        token = _deep(rng)
        detail = f"{_pointer(path)} -> {token[:12]}... ({len(token)})"
        return _set(root, path, Raw(token)), op, detail
    path, value = rng.choice(nodes)  # type_swap
    new = _swap(rng, value)
    detail = f"{_pointer(path)} {type(value).__name__} -> {new!r:.30}"
    return _set(root, path, new), "type_swap", detail


def _parse_json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def _json_doc(op: str) -> MutationFunc:
    def mutate(rng: random.Random, data: bytes) -> tuple[State, str]:
        root = _parse_json(data)
        if root is _NOT_JSON:
            return _byte_flip(rng, data)[0], "not JSON any more: byte flip instead"
        root, detail = _json_op(rng, root, op)
        pretty = b"\n" in data.strip()
        text = _dump(root, pretty)
        ending = data[len(data.rstrip(b"\r\n")) :]
        return text.encode("utf-8", "backslashreplace") + ending, detail

    return mutate


_DATA_PREFIX = re.compile(rb"^(data: ?)?(?=[{\[])")


def _json_line(op: str) -> MutationFunc:
    """The same JSON mutation, on one JSON line of chunks.jsonl or one data line of SSE."""

    def mutate(rng: random.Random, data: bytes) -> tuple[State, str]:
        lines = _lines(data)
        candidates = [i for i, line in enumerate(lines) if _DATA_PREFIX.match(line)]
        if not candidates:
            return _byte_flip(rng, data)[0], "no JSON line: byte flip instead"
        at = rng.choice(candidates)
        line = lines[at]
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :]
        match = _DATA_PREFIX.match(body)
        prefix = match.group(0) if match else b""
        root = _parse_json(body[len(prefix) :])
        if root is _NOT_JSON:
            return _byte_flip(rng, data)[0], "not JSON any more: byte flip instead"
        root, detail = _json_op(rng, root, op)
        text = _dump(root, False, compact=b'":' in body)
        lines[at] = prefix + text.encode("utf-8", "backslashreplace") + ending
        return b"".join(lines), f"line {at + 1} {detail}"

    return mutate


for _op in JSON_OPS:
    _weight = 2.0 if _op in ("number_tweak", "type_swap", "number_extreme") else 1.0
    mutation(f"json_{_op}", "json", weight=_weight)(_json_doc(_op))
    mutation(f"json_line_{_op}", "sse", "jsonl", weight=_weight * 0.6)(_json_line(_op))

_KEY = re.compile(rb'"((?:[^"\\\n]|\\.){0,40})"\s*:')
_DUP_VALUES = (b"0", b"null", b'"dup"', b"{}", b"[]", b"1e400", b"-1", b"true", b"12")


@mutation("json_duplicate_key", "json", "sse", "jsonl", weight=1.5)
def _duplicate_key(rng: random.Random, data: bytes) -> tuple[State, str]:
    keys = list(_KEY.finditer(data))
    if not keys:
        return data + b'{"a":1,"a":2}', "no key: appended an object"
    key = rng.choice(keys)
    value = rng.choice(_DUP_VALUES)
    text = data[: key.start()] + b'"' + key.group(1) + b'": ' + value + b", " + data[key.start() :]
    return text, f"{key.group(1).decode('utf-8', 'replace')} = {value.decode()}"


_GARBAGE = (b"x", b"}", b"]", b"{}", b"\n{", b"\x00", b" ,", b"garbage", b"NaN", b"\n\n[1]", b"//")


@mutation("json_trailing_garbage", "json", weight=1.5)
def _trailing_garbage(rng: random.Random, data: bytes) -> tuple[State, str]:
    if rng.random() < 0.2:
        return data + b"\n" + data, "document twice"
    garbage = rng.choice(_GARBAGE)
    return data + garbage, repr(garbage)


@mutation("json_line_trailing_garbage", "sse", "jsonl")
def _line_garbage(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if _DATA_PREFIX.match(line)]
    if not candidates:
        return data + rng.choice(_GARBAGE), "at the end"
    at = rng.choice(candidates)
    body = lines[at].rstrip(b"\r\n")
    garbage = rng.choice(_GARBAGE)
    lines[at] = body + garbage + lines[at][len(body) :]
    return b"".join(lines), f"line {at + 1}: {garbage!r}"


# SSE ---------------------------------------------------------------------------------------


def _data_lines(data: bytes) -> list[int]:
    return [i for i, line in enumerate(_lines(data)) if line.startswith(b"data:")]


@mutation("sse_blank_insert", "sse", "jsonl")
def _blank_insert(rng: random.Random, data: bytes) -> tuple[State, str]:
    blank = rng.choice((b"\n", b"\n\n", b"\r\n", b"   \n", b"\t\n", b"\n" * 5))
    text, line = _insert_line(rng, data, blank)
    return text, f"{blank!r} at line {line}"


@mutation("sse_blank_remove", "sse")
def _blank_remove(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    blanks = [i for i, line in enumerate(lines) if not line.strip(b"\r\n")]
    if not blanks:
        return data, "no blank line"
    if rng.random() < 0.3:
        return b"".join(line for line in lines if line.strip(b"\r\n")), "all"
    at = rng.choice(blanks)
    del lines[at]
    return b"".join(lines), f"line {at + 1}"


@mutation("sse_done_to_middle", "sse", weight=1.5)
def _done_to_middle(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = [line for line in _lines(data) if b"[DONE]" not in line]
    eol = _eol(data)
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, b"data: [DONE]" + eol + eol)
    return b"".join(lines), f"at line {at + 1}"


@mutation("sse_chunks_after_done", "sse", weight=1.5)
def _chunks_after_done(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data + b"\ndata: {}\n\n", "no data line"
    eol = _eol(data)
    extra = [
        lines[rng.choice(data_at)].rstrip(b"\r\n") + eol + eol for _ in range(rng.randint(1, 3))
    ]
    tail = b"" if data.endswith((b"\n", b"\r")) else eol + eol
    if rng.random() < 0.3:
        extra.append(b"data: [DONE]" + eol)
    return data + tail + b"".join(extra), f"{len(extra)} event(s)"


_ERROR_BODIES = (
    b'{"error":{"code":500,"message":"boom","type":"server_error"}}',
    b'{"error":"plain"}',
    b'{"error":null}',
    b'{"error":[1,2]}',
    b'{"error":{"message":{"nested":true}}}',
    b'{"error":{"message":"' + b"x" * 5000 + b'"}}',
)


@mutation("sse_error_line", "sse", weight=1.5)
def _error_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    body = lines[at].rstrip(b"\r\n")
    ending = lines[at][len(body) :] or _eol(data)
    payload = body[5:].lstrip(b" ")
    how = rng.choice(("field", "data", "event", "field_empty"))
    if how == "field":
        new = b"error: " + payload
    elif how == "data":
        new = b"data: " + rng.choice(_ERROR_BODIES)
    elif how == "event":
        new = b"event: error" + ending + body
    else:
        new = b"error:"
    lines[at] = new + ending
    return b"".join(lines), f"{how} at line {at + 1}"


@mutation("sse_keep_alive", "sse")
def _keep_alive(rng: random.Random, data: bytes) -> tuple[State, str]:
    comment = rng.choice((b": keep-alive", b":", b": ping", b":" + b"x" * 1000))
    eol = _eol(data)
    extra = eol if rng.random() < 0.5 else eol + eol
    text, line = _insert_line(rng, data, comment + extra)
    return text, f"line {line}"


@mutation("sse_field_variant", "sse")
def _field_variant(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    body = lines[at].rstrip(b"\r\n")
    eol = lines[at][len(body) :] or _eol(data)
    payload = body[5:].lstrip(b" ")
    how = rng.choice(("no_space", "split", "id_nul", "retry", "event", "unknown", "bare", "two"))
    if how == "no_space":
        new = b"data:" + payload
    elif how == "split":
        k = rng.randrange(len(payload) + 1)
        new = b"data: " + payload[:k] + eol + b"data: " + payload[k:]
    elif how == "id_nul":
        new = b"id: 1\x002" + eol + body
    elif how == "retry":
        new = b"retry: " + b"9" * rng.choice((5, 4000, 5000)) + eol + body
    elif how == "event":
        new = b"event: " + rng.choice((b"message", b"", b"delta", b"done")) + eol + body
    elif how == "unknown":
        new = b"foo: bar" + eol + body
    elif how == "bare":
        new = b"data"
    else:
        new = body + eol + body
    lines[at] = new + eol
    return b"".join(lines), f"{how} at line {at + 1}"


@mutation("sse_duplicate_chunk", "sse")
def _duplicate_chunk(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    eol = _eol(data)
    lines.insert(at, lines[at].rstrip(b"\r\n") + eol + eol)
    return b"".join(lines), f"line {at + 1}"


@mutation("amplify", "sse", "jsonl", "log", weight=0.15)
def _amplify(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    block = b"".join(lines[at : at + rng.choice((1, 2, 3))])
    if not block.endswith((b"\n", b"\r")):
        block += _eol(data)
    times = rng.choice((10, 100, 1000, 1000, 5000))
    lines.insert(at, block * times)
    return b"".join(lines), f"lines {at + 1}.. x{times}"


@mutation("amplify_mutated_line", "sse", "jsonl", weight=0.06)
def _amplify_mutated_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    """One JSON line, mutated, then repeated up to the grader's record and event limits."""
    mutated, detail = _json_line(rng.choice(JSON_OPS))(rng, data)
    assert isinstance(mutated, bytes)
    match = re.match(r"line (\d+) ", detail)
    lines = _lines(mutated)
    if not match or not lines:
        return mutated, detail
    at = int(match.group(1)) - 1
    line = lines[at].rstrip(b"\r\n") + _eol(data)
    if line.startswith(b"data:"):
        line += _eol(data)
    times = rng.choice((1000, 3000, 9_999))
    lines[at] = line * times
    return b"".join(lines), f"{detail}, x{times}"


# chunks.jsonl ------------------------------------------------------------------------------

_NON_OBJECTS = (
    b"[1, 2]",
    b"42",
    b'"text"',
    b"null",
    b"true",
    b"{}",
    b'{"t_ms": 1}',
    b'[{"t_ms": 1, "text": "x"}]',
    b'{"t_ms": "1", "text": 1}',
    b'{"t_ms": 1, "text": "x", "extra": [[[]]]}',
)


@mutation("jsonl_non_object", "jsonl", weight=1.5)
def _non_object(rng: random.Random, data: bytes) -> tuple[State, str]:
    line = rng.choice(_NON_OBJECTS)
    lines = _lines(data)
    if lines and rng.random() < 0.5:
        at = rng.randrange(len(lines))
        lines[at] = line + _eol(data)
        return b"".join(lines), f"line {at + 1} replaced by {line!r}"
    text, at = _insert_line(rng, data, line + _eol(data))
    return text, f"{line!r} inserted at line {at}"


@mutation("no_final_newline", "jsonl", "sse", "log", "py")
def _no_final_newline(rng: random.Random, data: bytes) -> tuple[State, str]:
    return data.rstrip(b"\r\n"), ""


@mutation("jsonl_empty_text", "jsonl")
def _empty_text(rng: random.Random, data: bytes) -> tuple[State, str]:
    record = b'{"t_ms": ' + rng.choice((b"0.5", b"100", b"0", b"1e-300")) + b', "text": ""}'
    text, at = _insert_line(rng, data, record + _eol(data))
    return text, f"line {at}"


# server.log --------------------------------------------------------------------------------


def _log_garbage_line(rng: random.Random) -> bytes:
    big = b"9" * rng.choice((18, 19, 30, 31, 5000))
    options = (
        bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))),
        b"prompt eval time = " + big + b" ms / 33 tokens",
        b"prompt eval time = 1." + big + b" ms / " + big + b" tokens",
        b"slot print_timing: id  0 | task " + big + b" | prompt eval time = 1.0 ms / 5 tokens",
        b"slot print_timing: id  0 | task 1 |",
        b"slot print_timing: id  0 | task 1 | \n       eval time = 5 ms / 3 tokens",
        b"srv          stop: cancel task, id_task = " + big,
        b"cancel task",
        b"slot      release: id  0 | task 1 | stop processing: n_tokens = "
        + big
        + b", truncated = 0",
        b"slot      release: id  0 | task 0 | stop processing: n_tokens = 0, truncated = 0",
        b"\x1b[" * 1000 + b"m cancel task",
        b"|" * rng.choice((10, 1000, 100_000)),
        b"eval time = 1 ms / 0 tokens",
        b"eval time" * 10_000,
        b"slot " * 20_000 + b"| task 1 |",
        b"id_task" + b" " * 50_000 + b"x",
        b'{"msg":"prompt eval time = 1 ms / 2 tokens","id_task":3}',
        b'{"msg":"slot released","id_task":3,"n_past":' + big + b"}",
        b"INFO [   print_timings] prompt eval time = 1 ms / 2 tokens | task_id=7",
        b"llama_perf_context_print: prompt eval time = 1 ms / 2 tokens",
        b"llm-1  | " * 50 + b"cancel task, id_task = 1",
        b"\x1b]" + b"x" * 10_000 + b" cancel task",
        b"Nov 30 12:00:01 pod llama-server[123]: " * 20 + b"prompt eval time = 1 ms / 2 tokens",
        b"\xef\xbb\xbf\x00\x1b",
        b"\x0b\x0c\x1c\x85 cancel task \xe2\x80\xa8 eval time = 1 ms / 1 tokens",
    )
    return rng.choice(options)


@mutation("log_delete_cancel", "log", weight=1.5)
def _delete_cancel(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    cancels = [i for i, line in enumerate(lines) if b"cancel task" in line]
    if not cancels:
        return data, "no cancel line"
    if rng.random() < 0.5:
        return b"".join(line for line in lines if b"cancel task" not in line), "all"
    at = rng.choice(cancels)
    del lines[at]
    return b"".join(lines), f"line {at + 1}"


@mutation("log_duplicate_timing", "log", weight=1.5)
def _duplicate_timing(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    timing = [
        i for i, line in enumerate(lines) if b"eval time" in line or b"stop processing" in line
    ]
    if not timing:
        return data, "no timing line"
    at = rng.choice(timing)
    where = rng.choice((at, rng.randrange(len(lines) + 1)))
    lines.insert(where, lines[at])
    return b"".join(lines), f"line {at + 1} copied to line {where + 1}"


@mutation("log_garbage", "log", weight=2.0)
def _log_garbage(rng: random.Random, data: bytes) -> tuple[State, str]:
    garbage = _log_garbage_line(rng)
    text, at = _insert_line(rng, data, garbage + _eol(data))
    return text, f"{garbage[:30]!r} at line {at}"


_NUMBER = re.compile(rb"\d+(?:\.\d+)?")


@mutation("log_tweak_number", "log", weight=1.5)
def _log_tweak_number(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = _lines(data)
    interesting = [
        i
        for i, line in enumerate(lines)
        if any(k in line for k in (b"eval time", b"stop processing", b"task", b"cancel"))
    ]
    if not interesting:
        return data, "no line with numbers"
    at = rng.choice(interesting)
    numbers = list(_NUMBER.finditer(lines[at]))
    if not numbers:
        return data, "no number"
    number = rng.choice(numbers)
    new = rng.choice((b"0", b"1", b"-1", b"9" * 19, b"9" * 40, number.group() + b"0", b"1.5"))
    line = lines[at]
    lines[at] = line[: number.start()] + new + line[number.end() :]
    return b"".join(lines), f"line {at + 1}: {number.group().decode()} -> {new[:20].decode()}"


_WRAPPERS = (
    b"llm-1  | ",
    b"voice-llm_1  | ",
    b"Nov 30 12:00:01 pod llama-server[123]: ",
    b"2026-11-30T12:00:01.123456789Z ",
    b"[pod/llm-0/server] ",
    b"0.53.596.284 I ",
    b"\x1b[32m",
)


@mutation("log_wrap", "log")
def _log_wrap(rng: random.Random, data: bytes) -> tuple[State, str]:
    wrapper = b"".join(rng.choice(_WRAPPERS) for _ in range(rng.randint(1, 4)))
    lines = _lines(data)
    if rng.random() < 0.5:
        return b"".join(wrapper + line for line in lines), f"every line with {wrapper!r}"
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    lines[at] = wrapper + lines[at]
    return b"".join(lines), f"line {at + 1} with {wrapper!r}"


_SLOT_TIMING = re.compile(rb"^(.*slot print_timing: id +\d+ \| task \d+ \| )(.*)$", re.DOTALL)


@mutation("log_old_timing_block", "log")
def _old_timing_block(rng: random.Random, data: bytes) -> tuple[State, str]:
    """The 2024-25 shape: the slot prefix alone on a line, the timing lines unprefixed."""
    out: list[bytes] = []
    changed = 0
    pending = False
    for line in _lines(data):
        match = _SLOT_TIMING.match(line)
        if match and b"prompt eval time" in line:
            eol = line[len(line.rstrip(b"\r\n")) :]
            out.extend((match.group(1).rstrip() + eol, b"        " + match.group(2).lstrip()))
            changed += 1
            pending = True
        elif match and pending and b"eval time" in line:
            out.append(b"        " + match.group(2).lstrip())
        else:
            pending = False
            out.append(line)
    return b"".join(out), f"{changed} block(s)"


# sse.py ------------------------------------------------------------------------------------

_NOT_PYTHON = (
    b"this is not python\n",
    b"def stream(:\n",
    b"{",
    b"\x00\x01\x02",
    b"<html><body>sse</body></html>\n",
    b"if True:\n  x = 1\n y = 2\n",
    b"def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):\n",
    b"import http.client\ndef stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)\n",
    b"\t \tdef stream():\n\tpass\n",
    b"x = '''\n",
    b"\\\n",
    b"print 'python 2'\n",
)


def _deep_python(rng: random.Random) -> bytes:
    n = rng.choice((50, 99, 100, 199, 200, 201, 500, 1000, 5000, 100_000))
    shape = rng.choice(
        ("paren", "minus", "list", "plus", "not", "lambda", "indent", "attr", "call")
    )
    if shape == "paren":
        text = "x = " + "(" * n + "1" + ")" * n
    elif shape == "minus":
        text = "x = " + "-" * n + "1"
    elif shape == "list":
        text = "x = " + "[" * n + "]" * n
    elif shape == "plus":
        text = "x = " + "1+" * n + "1"
    elif shape == "not":
        text = "x = " + "not " * n + "x"
    elif shape == "lambda":
        text = "x = " + "lambda: " * n + "0"
    elif shape == "indent":
        n = min(n, 2000)
        text = "".join(" " * i + "if x:\n" for i in range(n)) + " " * n + "pass"
    elif shape == "attr":
        text = "x = " + "a." * n + "b"
    else:
        text = "x = " + "f(" * n + ")" * n
    return f"{text}\n".encode()


@mutation("py_not_python", "py", weight=1.0)
def _not_python(rng: random.Random, data: bytes) -> tuple[State, str]:
    if rng.random() < 0.3:
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))
        return junk, "random bytes"
    text = rng.choice(_NOT_PYTHON)
    return text, repr(text[:30])


@mutation("py_deep_nesting", "py", weight=1.5)
def _deep_nesting(rng: random.Random, data: bytes) -> tuple[State, str]:
    deep = _deep_python(rng)
    how = rng.choice(("replace", "append", "prepend"))
    if how == "replace":
        new = deep
    elif how == "append":
        new = data + (b"" if data.endswith(b"\n") else b"\n") + deep
    else:
        new = deep + data
    return new, f"{how} {deep[:16]!r}... ({len(deep)} bytes)"


_DEFAULTS = (
    b"{[]: 1}",
    b"{1, []}",
    b"0x" + b"f" * 5000,
    b"1e400",
    b"-(" * 150 + b"64" + b")" * 150,
    b"-" * 3000 + b"64",
    b"(64)",
    b"64.0",
    b"True",
    b"not 64",
    b"f'{64}'",
    b"...",
    b"b'64'",
    b"1j",
    b"lambda: 64",
    b"[[[[[[[[[[[[[[[[[[[[64]]]]]]]]]]]]]]]]]]]]",
    b"{'a': {'b': {'c': 64}}}",
    b"-64",
    b"+64",
    b"0",
    b"None",
    b"'64'",
    b"set()",
)
_DEF_STREAM = re.compile(rb"def stream\((?P<args>[^)]*)\)")


@mutation("py_default_value", "py", weight=1.5)
def _default_value(rng: random.Random, data: bytes) -> tuple[State, str]:
    match = _DEF_STREAM.search(data)
    if not match:
        return data, "no def stream"
    default = rng.choice(_DEFAULTS)
    name = rng.choice((b"max_tokens", b"cache_prompt", b"raw_out"))
    args = re.sub(re.escape(name) + rb"\s*=\s*[^,)]*", name + b"=" + default, match.group("args"))
    return data[: match.start("args")] + args + data[match.end("args") :], (
        f"{name.decode()}={default[:20].decode()}"
    )


_SIGNATURES = (
    b"async def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)",
    b"def stream(msgs, max_tokens=64, cache_prompt=True, raw_out=None)",
    b"def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None, *args, **kw)",
    b"def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None, extra)",
    b"def stream(messages, /, max_tokens=64, cache_prompt=True, raw_out=None)",
    b"def stream(messages, *, max_tokens=64, cache_prompt=True, raw_out=None)",
    b"def stream(messages=None, max_tokens=64, cache_prompt=True, raw_out=None)",
    b"def stream()",
    b"def stream(*args)",
    b"def stream(messages, max_tokens, cache_prompt, raw_out)",
    b"def Stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)",
)


@mutation("py_signature", "py")
def _signature(rng: random.Random, data: bytes) -> tuple[State, str]:
    match = _DEF_STREAM.search(data)
    if not match:
        return data, "no def stream"
    new = rng.choice(_SIGNATURES)
    return data[: match.start()] + new + data[match.end() :], new[:40].decode()


@mutation("py_no_http_client", "py")
def _no_http_client(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = [
        line for line in _lines(data) if b"http.client" not in line and b"import http" not in line
    ]
    if rng.random() < 0.5:
        lines.insert(0, b"import requests\n")
    return b"".join(lines), ""


# -- cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    index: int
    seed_name: str
    files: dict[str, State]
    mutations: tuple[str, ...]


def _weighted(rng: random.Random, items: list[Any], weights: list[float]) -> Any:
    return rng.choices(items, weights=weights, k=1)[0]


def make_case(seeds: dict[str, dict[str, State]], seed: int, index: int) -> Case:
    """The mutant number `index` of campaign `seed`: a function of both and nothing else."""
    rng = random.Random(f"firsttoken-fuzz:{seed}:{index}")
    seed_name = rng.choice(sorted(seeds))
    files = dict(seeds[seed_name])
    names = list(FILENAMES)
    name_weights = [FILE_WEIGHTS[file_kind(n)] for n in names]
    applied: list[str] = []
    for _ in range(rng.randint(1, 3)):
        name = _weighted(rng, names, name_weights)
        state = files[name]
        kind = file_kind(name)
        usable = [
            m
            for m in MUTATIONS
            if (kind in m.kinds or "any" in m.kinds) and (isinstance(state, bytes) or m.whole_file)
        ]
        chosen: Mutation = _weighted(rng, usable, [m.weight for m in usable])
        data = state if isinstance(state, bytes) else b""
        try:
            new, detail = chosen.func(rng, data)
        except Exception as exc:  # a fuzzer bug must not stop a campaign; still deterministic
            new, flip = _byte_flip(rng, data)
            detail = f"mutation failed ({type(exc).__name__}: {exc}); byte flip instead: {flip}"
        files[name] = new
        applied.append(f"{name}: {chosen.name}" + (f" ({detail})" if detail else ""))
    return Case(index, seed_name, files, tuple(applied))


def _remove(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def put_file(folder: Path, name: str, state: State) -> None:
    """Make `folder/name` hold `state` (whatever it held before)."""
    path = folder / name
    _remove(path)
    if state is None:
        return
    if isinstance(state, bytes):
        with open(path, "wb") as handle:
            handle.write(state)
    elif state.kind == "dir":
        path.mkdir()
        (path / "inside.txt").write_bytes(b"a file inside a directory\n")
    elif state.kind == "symlink":
        os.symlink(state.target, path)
    elif state.kind == "fifo":
        os.mkfifo(path)


def write_submission(folder: Path, files: dict[str, State]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, state in files.items():
        put_file(folder, name, state)


def result_json(result: Any) -> str:
    """The result's JSON text: `model_dump_json()` (pydantic) or `to_json()` (dataclasses)."""
    for name in ("model_dump_json", "to_json"):
        method = getattr(result, name, None)
        if callable(method):
            return str(method())
    raise TypeError(f"don't know how to serialize a {type(result).__name__}")


# -- one case --------------------------------------------------------------------------------


class WatchdogTimeout(BaseException):
    """Raised by the in-process watchdog's alarm; never confused with a grader exception."""


class ResultValidator:
    """Checks result JSON with the result model's own reader (`Result.from_json`: strict
    JSON, valid against grader/schemas/result.schema.json), after making sure the text
    can be written at all."""

    def error(self, text: str, full: bool = False) -> str | None:
        """None when `text` is a strict-JSON result valid against the schema, else why not
        (`full`: jsonschema also checks what the reader's fast path accepted).

        Strict JSON here: UTF-8 encodable (RFC 8259 section 8.1: no lone surrogates, which
        a `str` can hold but no file or pipe can), no NaN or Infinity, no duplicate key.
        """
        from grader.result import NotAResult, Result

        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = text[exc.start : exc.end]
            where = _path_of_unencodable(text)
            return f"not UTF-8 encodable: {exc.reason} ({bad!r} at {where})"
        try:
            Result.from_json(text)
        except NotAResult as exc:
            return str(exc)
        if full:  # the reader's fast path said valid: jsonschema must agree
            from grader.schema import RESULT_SCHEMAS

            error = next(RESULT_SCHEMAS.validator("result").iter_errors(json.loads(text)), None)
            if error is not None:
                return f"the fast path accepted what jsonschema refuses: {error.message[:300]}"
        return None


def _path_of_unencodable(text: str) -> str:
    """JSON pointer of the first string in the document that UTF-8 can't encode."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return "?"
    for path, value in _nodes(document):
        for item in (value, path[-1] if path else ""):
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return _pointer(path)
    return "?"


@dataclass
class Outcome:
    """What one case did; only small, picklable facts (sent from worker to parent)."""

    index: int
    seed_name: str
    mutations: tuple[str, ...]
    seconds: tuple[float, ...] = ()
    crash: str | None = None
    crash_signature: str = ""
    killed: bool = False
    invalid: str | None = None
    nondeterministic: str | None = None
    check_errors: tuple[str, ...] = ()
    parser_fallbacks: tuple[str, ...] = ()
    digest: str = ""
    results: tuple[str, ...] = ()  # result JSON, kept only for failing cases
    fuzzer_error: str | None = None  # a bug of this script, not of the grader

    @property
    def hang(self) -> bool:
        return self.killed or any(s > HANG_SECONDS for s in self.seconds)

    def kinds(self) -> list[str]:
        found = [k for k in FAILURE_KINDS if self.failed(k)]
        return found + [k for k in INFO_KINDS if self.failed(k)]

    def failed(self, kind: str) -> bool:
        return {
            "crash": self.crash is not None,
            "hang": self.hang,
            "invalid": self.invalid is not None,
            "nondeterministic": self.nondeterministic is not None,
            "check_error": bool(self.check_errors),
            "parser_fallback": bool(self.parser_fallbacks),
            "fuzzer_error": self.fuzzer_error is not None,
        }[kind]


def _crash_signature(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/grader/" in f.filename or "/checks/" in f.filename]
    where = ours[-1] if ours else (frames[-1] if frames else None)
    place = f"{Path(where.filename).name}:{where.lineno}" if where else "?"
    return f"{type(exc).__name__} at {place}"


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if type(a) is not type(b):
        return f"{path or '/'}: {a!r:.80} != {b!r:.80}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}: present in one result only"
            if a[key] != b[key]:
                return _first_difference(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        if len(a) != len(b):
            return f"{path or '/'}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}/{i}")
    elif a != b:
        return f"{path or '/'}: {a!r:.80} != {b!r:.80}"
    return f"{path or '/'}: same values, different bytes"


_DIGITS = re.compile(r"\d+")


class CaseRunner:
    """Grades mutants in one private folder, rewriting only the files that changed."""

    def __init__(
        self,
        seed: int,
        folder: Path,
        seeds: dict[str, dict[str, State]] | None = None,
        rubric: Rubric | None = None,
        validator: ResultValidator | None = None,
    ) -> None:
        self.seed = seed
        self.folder = folder
        self.seeds = seeds if seeds is not None else load_seeds()
        self.rubric = rubric or load_lab_rubric(LAB, None, "checks")
        self.validator = validator or ResultValidator()
        self.current: dict[str, State | str] = {n: "<unknown>" for n in FILENAMES}
        self.cases_run = 0

    def materialize(self, files: dict[str, State]) -> None:
        for name in FILENAMES:
            state = files[name]
            current = self.current[name]
            if type(current) is type(state) and current == state:
                continue
            self.current[name] = "<unknown>"
            put_file(self.folder, name, state)
            self.current[name] = state

    def _grade(self) -> tuple[str | None, float, BaseException | None]:
        start = time.perf_counter()
        try:
            result = grade(LAB, str(self.folder), self.rubric)
            text = result_json(result)
        except (KeyboardInterrupt, WatchdogTimeout):
            raise
        except BaseException as exc:  # everything else that escapes is the finding
            return None, time.perf_counter() - start, exc
        return text, time.perf_counter() - start, None

    def run(self, index: int) -> Outcome:
        case = make_case(self.seeds, self.seed, index)
        return self.run_case(case)

    def run_case(self, case: Case) -> Outcome:
        self.materialize(case.files)
        outcome = Outcome(case.index, case.seed_name, case.mutations)
        self.cases_run += 1
        first, t1, exc1 = self._grade()
        if exc1 is not None:
            outcome.seconds = (t1,)
            outcome.crash = "".join(traceback.format_exception(exc1))
            outcome.crash_signature = _crash_signature(exc1)
            return outcome
        second, t2, exc2 = self._grade()
        outcome.seconds = (t1, t2)
        assert first is not None
        if exc2 is not None:
            outcome.crash = "second grade only:\n" + "".join(traceback.format_exception(exc2))
            outcome.crash_signature = _crash_signature(exc2)
            outcome.nondeterministic = "the first grade succeeded, the second raised"
            outcome.results = (first,)
            return outcome
        assert second is not None
        if first != second:
            try:
                where = _first_difference(json.loads(first), json.loads(second))
            except ValueError:
                where = "results are not JSON"
            outcome.nondeterministic = where
        full = self.cases_run % 64 == 1  # now and then, jsonschema checks the fast path
        outcome.invalid = self.validator.error(first, full=full)
        normalized = first.replace(json.dumps(str(self.folder))[1:-1], "<submission>")
        outcome.digest = hashlib.sha256(normalized.encode("utf-8", "surrogatepass")).hexdigest()[
            :16
        ]
        try:
            document = json.loads(first)
            outcome.check_errors = tuple(
                f"{c['id']}: {c.get('message') or ''}"
                for c in document.get("checks", [])
                if c.get("status") == "error"
            )
            outcome.parser_fallbacks = tuple(
                f"{a['file']}: {p.get('message_id')}: {p.get('message')}"
                for a in document.get("artifacts", [])
                for p in a.get("problems", [])
                if str(p.get("message_id", "")).endswith(".unparseable")
            )
        except (ValueError, AttributeError, KeyError, TypeError):
            pass
        if outcome.invalid or outcome.nondeterministic or outcome.check_errors or outcome.hang:
            outcome.results = (first, second) if outcome.nondeterministic else (first,)
        return outcome


# -- a campaign ------------------------------------------------------------------------------


def signature(outcome: Outcome, kind: str) -> str:
    """Groups failing cases that are most likely one bug."""
    if kind == "crash":
        return outcome.crash_signature or "crash"
    if kind == "hang":
        # "file: mutation"; when some mutation made a file big, that one is the likely cause
        named = sorted({m.split(" (")[0] for m in outcome.mutations})
        big = [m for m in named if m.split(": ", 1)[-1].startswith("amplify")]
        return ("killed: " if outcome.killed else "slow: ") + " + ".join(big or named)
    if kind == "invalid":
        text = re.sub(r"'[^']*'", "'...'", outcome.invalid or "")
        return re.sub(r"/\d+(?=/|\b)", "/N", text)[:160]
    if kind == "nondeterministic":
        return _DIGITS.sub("N", (outcome.nondeterministic or "").split(":")[0])
    if kind == "fuzzer_error":
        lines = (outcome.fuzzer_error or "").strip().splitlines()
        return lines[-1][:160] if lines else "fuzzer error"
    if kind == "check_error":
        return _DIGITS.sub("N", outcome.check_errors[0])[:160]
    return _DIGITS.sub("N", outcome.parser_fallbacks[0])[:160]


@dataclass
class Summary:
    seed: int
    cases: int = 0
    crashes: int = 0
    hangs: int = 0
    invalid: int = 0
    nondeterministic: int = 0
    check_errors: int = 0
    parser_fallbacks: int = 0
    fuzzer_errors: int = 0
    seconds: float = 0.0
    jobs: int = 1
    slowest: tuple[float, int] = (0.0, -1)
    grade_seconds: float = 0.0
    grades: int = 0
    signatures: dict[str, Counter[str]] = field(default_factory=dict)
    examples: dict[tuple[str, str], int] = field(default_factory=dict)
    saved: list[Path] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)

    @property
    def failures(self) -> int:
        return self.crashes + self.hangs + self.invalid + self.nondeterministic

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds > 0 else 0.0


class Campaign:
    """Counts outcomes and saves failing cases; the same for one process or many."""

    def __init__(
        self,
        seed: int,
        seeds: dict[str, dict[str, State]],
        out: Path | None,
        save_cap: int = DEFAULT_SAVE_CAP,
        jobs: int = 1,
    ) -> None:
        self.seed = seed
        self.seeds = seeds
        self.out = out
        self.save_cap = save_cap
        self.summary = Summary(seed=seed, jobs=jobs)
        self.started = time.perf_counter()

    def record(self, outcome: Outcome) -> None:
        s = self.summary
        s.cases += 1
        s.crashes += outcome.crash is not None
        s.hangs += outcome.hang
        s.invalid += outcome.invalid is not None
        s.nondeterministic += outcome.nondeterministic is not None
        s.check_errors += bool(outcome.check_errors)
        s.parser_fallbacks += bool(outcome.parser_fallbacks)
        s.fuzzer_errors += outcome.fuzzer_error is not None
        s.grades += len(outcome.seconds)
        s.grade_seconds += sum(outcome.seconds)
        slowest = max(outcome.seconds, default=0.0)
        if slowest > s.slowest[0]:
            s.slowest = (slowest, outcome.index)
        if outcome.digest:
            s.digests[outcome.index] = outcome.digest
        for kind in outcome.kinds():
            sig = signature(outcome, kind)
            count = s.signatures.setdefault(kind, Counter())
            count[sig] += 1
            s.examples.setdefault((kind, sig), outcome.index)
            if self.out is not None and (self.save_cap <= 0 or count[sig] <= self.save_cap):
                self.save(outcome, kind, sig)
        s.seconds = time.perf_counter() - self.started

    def save(self, outcome: Outcome, kind: str, sig: str) -> None:
        assert self.out is not None
        target = self.out / kind / f"seed{self.seed}-case{outcome.index:07d}"
        if target.exists():
            shutil.rmtree(target)
        case = make_case(self.seeds, self.seed, outcome.index)
        write_submission(target / "submission", case.files)
        notes = [
            f"kind: {kind}",
            f"signature: {sig}",
            f"replay: python scripts/fuzz.py --seed {self.seed} --replay {outcome.index}",
            f"seed submission: sample_submissions/{outcome.seed_name}",
            "mutations:",
            *(f"  - {m}" for m in outcome.mutations),
            "grade seconds: " + (", ".join(f"{s:.3f}" for s in outcome.seconds) or "-"),
        ]
        if outcome.killed:
            notes.append("killed by the watchdog (the case never finished)")
        if outcome.crash:
            notes += ["", "traceback:", outcome.crash]
        if outcome.invalid:
            notes += ["", f"invalid result: {outcome.invalid}"]
        if outcome.nondeterministic:
            notes += ["", f"nondeterministic: first difference at {outcome.nondeterministic}"]
        if outcome.check_errors:
            notes += ["", "checks with status error:", *(f"  - {e}" for e in outcome.check_errors)]
        if outcome.parser_fallbacks:
            notes += ["", "parser fallbacks:", *(f"  - {e}" for e in outcome.parser_fallbacks)]
        if outcome.fuzzer_error:
            notes += ["", "error in the fuzzer itself (not the grader):", outcome.fuzzer_error]
        # a result may hold lone surrogates (that is a finding): written as \udXXX escapes
        (target / "notes.txt").write_text("\n".join(notes) + "\n", "utf-8", "backslashreplace")
        for number, text in enumerate(outcome.results, start=1):
            path = target / f"result-{number}.json"
            path.write_text(text, "utf-8", "backslashreplace")
        self.summary.saved.append(target)


def safe_run(runner: CaseRunner, index: int) -> Outcome:
    """`runner.run(index)`, with the fuzzer's own errors reported instead of raised."""
    try:
        return runner.run(index)
    except Exception:  # grade's exceptions are caught in run_case: this is a fuzzer bug
        runner.current = dict.fromkeys(FILENAMES, "<unknown>")
        return Outcome(index, "?", (), fuzzer_error=traceback.format_exc())


def _alarm(signum: int, frame: Any) -> None:
    raise WatchdogTimeout()


def run_in_process(
    cases: int | None,
    seed: int = 0,
    *,
    seconds: float | None = None,
    out: Path | None = None,
    watchdog: float = DEFAULT_WATCHDOG,
    save_cap: int = DEFAULT_SAVE_CAP,
    progress: Callable[[Summary], None] | None = None,
) -> Summary:
    """Run a campaign in this process (no workers); the watchdog is `SIGALRM` when usable."""
    seeds = load_seeds()
    campaign = Campaign(seed, seeds, out, save_cap)
    use_alarm = hasattr(signal, "setitimer") and _in_main_thread()
    previous = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
            runner = CaseRunner(seed, Path(tmp), seeds)
            for index in _indexes(cases):
                if deadline is not None and time.perf_counter() > deadline:
                    break
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, watchdog)
                try:
                    outcome = safe_run(runner, index)
                except WatchdogTimeout:
                    case = make_case(seeds, seed, index)
                    outcome = Outcome(index, case.seed_name, case.mutations, killed=True)
                    runner.current = dict.fromkeys(FILENAMES, "<unknown>")
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                campaign.record(outcome)
                if progress is not None:
                    progress(campaign.summary)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    campaign.summary.seconds = time.perf_counter() - campaign.started
    return campaign.summary


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _indexes(cases: int | None) -> Iterator[int]:
    index = 0
    while cases is None or index < cases:
        yield index
        index += 1


# -- worker processes ------------------------------------------------------------------------


def _worker_main(conn: Any, seed: int, folder: str, seeds: dict[str, dict[str, State]]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    runner = CaseRunner(seed, Path(folder), seeds)
    while True:
        index = conn.recv()
        if index is None:
            break
        conn.send(safe_run(runner, index))


@dataclass
class _Worker:
    process: Any
    conn: Any
    tmp: tempfile.TemporaryDirectory[str]
    index: int | None = None
    started: float = 0.0


def run_parallel(
    cases: int | None,
    seed: int = 0,
    *,
    jobs: int = 2,
    seconds: float | None = None,
    out: Path | None = None,
    watchdog: float = DEFAULT_WATCHDOG,
    save_cap: int = DEFAULT_SAVE_CAP,
    progress: Callable[[Summary], None] | None = None,
) -> Summary:
    """Run a campaign in `jobs` worker processes, each with its own temporary folder.

    The parent hands out one case index at a time and kills (by its own process handle) a
    worker whose case outlives `watchdog` seconds; a worker that dies is a crash. Either
    way the worker is replaced and the campaign goes on.
    """
    seeds = load_seeds()
    campaign = Campaign(seed, seeds, out, save_cap, jobs)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    deadline = None if seconds is None else time.perf_counter() + seconds
    pending = _indexes(cases)
    workers: list[_Worker] = []
    busy: list[_Worker] = []

    def start() -> _Worker:
        tmp = tempfile.TemporaryDirectory(prefix="fuzz-")
        parent, child = context.Pipe()
        process = context.Process(
            target=_worker_main, args=(child, seed, tmp.name, seeds), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent, tmp)

    def stop(worker: _Worker, kill: bool) -> None:
        if kill:
            worker.process.kill()
        else:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        worker.process.join(5)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
        worker.tmp.cleanup()

    def dispatch(worker: _Worker) -> bool:
        if deadline is not None and time.perf_counter() > deadline:
            return False
        index = next(pending, None)
        if index is None:
            return False
        worker.index, worker.started = index, time.perf_counter()
        with contextlib.suppress(OSError):  # a dead worker shows up as EOF in the wait
            worker.conn.send(index)
        return True

    def lost(worker: _Worker, killed: bool) -> Outcome:
        assert worker.index is not None
        case = make_case(seeds, seed, worker.index)
        outcome = Outcome(worker.index, case.seed_name, case.mutations, killed=killed)
        if not killed:
            code = worker.process.exitcode
            outcome.crash = f"the worker process died (exit code {code}) grading this case"
            outcome.crash_signature = f"worker died with exit code {code}"
        return outcome

    try:
        workers.extend(start() for _ in range(max(1, jobs)))
        busy.extend(w for w in workers if dispatch(w))
        while busy:
            now = time.perf_counter()
            timeout = max(0.0, min(w.started + watchdog for w in busy) - now)
            ready = multiprocessing.connection.wait([w.conn for w in busy], timeout)
            for worker in list(busy):
                outcome: Outcome | None = None
                replace = False
                if worker.conn in ready:
                    try:
                        outcome = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(5)
                        outcome, replace = lost(worker, killed=False), True
                elif time.perf_counter() - worker.started > watchdog:
                    outcome, replace = lost(worker, killed=True), True
                if outcome is None:
                    continue
                campaign.record(outcome)
                if progress is not None:
                    progress(campaign.summary)
                busy.remove(worker)
                if replace:
                    stop(worker, kill=True)
                    workers.remove(worker)
                    worker = start()
                    workers.append(worker)
                if dispatch(worker):
                    busy.append(worker)
    except KeyboardInterrupt:
        print("interrupted: the counts below are for the cases finished so far", file=sys.stderr)
    finally:
        for worker in workers:
            stop(worker, kill=worker in busy)
    campaign.summary.seconds = time.perf_counter() - campaign.started
    return campaign.summary


# -- command line ----------------------------------------------------------------------------


def table(summary: Summary) -> str:
    headers = ("cases", "crashes", "hangs", "invalid", "nondeterministic", "seconds", "cases/s")
    values = (
        str(summary.cases),
        str(summary.crashes),
        str(summary.hangs),
        str(summary.invalid),
        str(summary.nondeterministic),
        f"{summary.seconds:.1f}",
        f"{summary.rate:.1f}",
    )
    widths = [max(len(h), len(v)) for h, v in zip(headers, values, strict=True)]
    line = "  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))
    row = "  ".join(v.rjust(w) for v, w in zip(values, widths, strict=True))
    return f"{line}\n{row}"


def report(summary: Summary, out: Path | None) -> str:
    lines = [table(summary), ""]
    per_job = summary.rate / max(summary.jobs, 1)
    mean_ms = 1000 * summary.grade_seconds / summary.grades if summary.grades else 0.0
    lines.append(
        f"seed {summary.seed}, {summary.jobs} job(s): {per_job:.1f} cases/s per job, "
        f"{mean_ms:.1f} ms per grade on average, slowest grade {summary.slowest[0]:.3f} s "
        f"(case {summary.slowest[1]})"
    )
    lines.append(
        f"information (not failures): {summary.check_errors} case(s) with a check in status "
        f"error, {summary.parser_fallbacks} with a parser fallback (file.unparseable)"
    )
    if summary.fuzzer_errors:
        lines.append(f"ERRORS IN THE FUZZER ITSELF: {summary.fuzzer_errors} case(s); see below")
    for kind in (*FAILURE_KINDS, *INFO_KINDS):
        found = summary.signatures.get(kind)
        if not found:
            continue
        lines.append(f"{kind}: {len(found)} distinct")
        for sig, count in found.most_common():
            example = summary.examples[(kind, sig)]
            lines.append(f"  {count:6d} x {sig}  (e.g. --replay {example})")
    if summary.saved and out is not None:
        lines.append(f"saved {len(summary.saved)} case folder(s) under {out}/")
    return "\n".join(lines)


def replay(seed: int, index: int, out: Path | None) -> int:
    """Grade one case in-process and show what happened; the mutant is written to --out."""
    seeds = load_seeds()
    case = make_case(seeds, seed, index)
    print(f"case {index} of seed {seed}, from sample_submissions/{case.seed_name}:")
    for line in case.mutations:
        print(f"  - {line}")
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        outcome = CaseRunner(seed, Path(tmp), seeds).run_case(case)
    if out is not None:
        target = out / "replay" / f"seed{seed}-case{index:07d}"
        if target.exists():
            shutil.rmtree(target)
        write_submission(target, case.files)
        print(f"mutant written to {target}")
    print("grade seconds: " + ", ".join(f"{s:.3f}" for s in outcome.seconds))
    for kind in outcome.kinds() or ["ok"]:
        print(f"outcome: {kind}")
    if outcome.crash:
        print(outcome.crash)
    for text in (outcome.invalid, outcome.nondeterministic):
        if text:
            print(text)
    for text in (*outcome.check_errors, *outcome.parser_fallbacks):
        print(f"  {text}")
    failed = [k for k in outcome.kinds() if k in FAILURE_KINDS]
    return 1 if failed else 0


def _progress_printer(every: float) -> Callable[[Summary], None]:
    last = [time.perf_counter()]

    def show(summary: Summary) -> None:
        now = time.perf_counter()
        if now - last[0] >= every:
            last[0] = now
            print(
                f"[{summary.seconds:7.1f}s] {summary.cases} cases, {summary.rate:.1f}/s, "
                f"{summary.failures} failing, {summary.check_errors} check errors",
                file=sys.stderr,
                flush=True,
            )

    return show


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, help="number of cases (default: until --seconds)")
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--seconds", type=float, help="stop starting cases after this long")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"), help="failing cases")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--watchdog", type=float, default=DEFAULT_WATCHDOG, help="kill after s")
    parser.add_argument(
        "--save-cap", type=int, default=DEFAULT_SAVE_CAP, help="cases saved per signature (0: all)"
    )
    parser.add_argument("--replay", type=int, metavar="INDEX", help="grade one case and explain")
    parser.add_argument("--digests", type=Path, help="write 'index digest' of every result here")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(None if argv is None else list(argv))
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    if args.replay is not None:
        return replay(args.seed, args.replay, args.out)
    if args.cases is None and args.seconds is None:
        parser.error("give --cases, --seconds or both")
    progress = None if args.quiet else _progress_printer(10.0)
    summary = run_parallel(
        args.cases,
        args.seed,
        jobs=args.jobs,
        seconds=args.seconds,
        out=args.out,
        watchdog=args.watchdog,
        save_cap=args.save_cap,
        progress=progress,
    )
    print(report(summary, args.out))
    if args.digests is not None:
        args.digests.write_text(
            "".join(f"{i} {d}\n" for i, d in sorted(summary.digests.items())), "utf-8"
        )
    return 1 if summary.failures or summary.fuzzer_errors else 0


if __name__ == "__main__":
    sys.exit(main())
