"""The fuzzer's JSON mutations: structural edits of a JSON document, of one JSON line of a
JSON Lines file or of an event stream's `data:` line, duplicate keys, trailing garbage.

A mutated value is written back as JSON (`Raw` tokens as they are: NaN, 1e400, 5,000
digits, 100,000 brackets), keeping the file's layout (pretty or compact) and line end.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from typing import Any

from grader.fuzzing.files import State
from grader.fuzzing.mutations import GENERIC, MutationFunc, byte_flip, split_lines

mutation = GENERIC.register


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


def json_nodes(value: Any) -> list[tuple[tuple[Any, ...], Any]]:
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


def json_pointer_of(path: tuple[Any, ...]) -> str:
    return "".join(f"/{p}" for p in path) or "(root)"


def dump_json(value: Any, pretty: bool, compact: bool = False) -> str:
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


def json_op(rng: random.Random, root: Any, op: str) -> tuple[Any, str]:
    """Apply structural JSON mutation `op` to a parsed document; returns (root, detail)."""
    root, done, detail = _json_op_inner(rng, root, op)
    return root, detail if done == op else f"nothing to {op}, did {done}: {detail}"


def _json_op_inner(rng: random.Random, root: Any, op: str) -> tuple[Any, str, str]:
    nodes = json_nodes(root)
    if op == "key_delete":
        keyed = [(p, v) for p, v in nodes if p and isinstance(p[-1], str)]
        if keyed:
            path, _ = rng.choice(keyed)
            parent = root
            for part in path[:-1]:
                parent = parent[part]
            del parent[path[-1]]
            return root, op, json_pointer_of(path)
        op = "type_swap"
    if op == "number_tweak":
        numbers = [(p, v) for p, v in nodes if isinstance(v, (int, float))]
        if numbers:
            path, value = rng.choice(numbers)
            new = not value if isinstance(value, bool) else _tweak_number(rng, value)
            return _set(root, path, new), op, f"{json_pointer_of(path)} {value!r} -> {new!r}"
        op = "number_extreme"
    if op == "string_tweak":
        strings = [(p, v) for p, v in nodes if isinstance(v, str)]
        if strings:
            path, text = rng.choice(strings)
            return _set(root, path, _tweak_string(rng, text)), op, json_pointer_of(path)
        op = "type_swap"
    if op == "array_edit":
        arrays = [(p, v) for p, v in nodes if isinstance(v, list) and v]
        if arrays:
            path, items = rng.choice(arrays)
            how = rng.choice(("remove", "duplicate", "swap", "reverse", "clear"))
            i, j = rng.randrange(len(items)), rng.randrange(len(items))
            if how == "remove":
                del items[i]
            elif how == "duplicate":
                items.insert(i, copy.deepcopy(items[i]))
            elif how == "swap":
                items[i], items[j] = items[j], items[i]
            elif how == "reverse":
                items.reverse()
            else:
                items.clear()
            return root, op, f"{how} {json_pointer_of(path)}"
        op = "type_swap"
    if op == "number_extreme":
        numbers = [(p, v) for p, v in nodes if isinstance(v, (int, float))] or nodes
        path, _ = rng.choice(numbers)
        token = rng.choice(_EXTREMES)
        return _set(root, path, Raw(token)), op, f"{json_pointer_of(path)} -> {token[:24]}"
    if op == "deep_value":
        path, _ = rng.choice(nodes)
        token = _deep(rng)
        detail = f"{json_pointer_of(path)} -> {token[:12]}... ({len(token)})"
        return _set(root, path, Raw(token)), op, detail
    path, value = rng.choice(nodes)  # type_swap
    new = _swap(rng, value)
    detail = f"{json_pointer_of(path)} {type(value).__name__} -> {new!r:.30}"
    return _set(root, path, new), "type_swap", detail


def parse_json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return NOT_JSON


NOT_JSON = object()


def json_doc(op: str) -> MutationFunc:
    def mutate(rng: random.Random, data: bytes) -> tuple[State, str]:
        root = parse_json(data)
        if root is NOT_JSON:
            return byte_flip(rng, data)[0], "not JSON any more: byte flip instead"
        root, detail = json_op(rng, root, op)
        pretty = b"\n" in data.strip()
        text = dump_json(root, pretty)
        ending = data[len(data.rstrip(b"\r\n")) :]
        return text.encode("utf-8", "backslashreplace") + ending, detail

    return mutate


DATA_PREFIX = re.compile(rb"^(data: ?)?(?=[{\[])")


def json_line(op: str) -> MutationFunc:
    """The same JSON mutation, on one JSON line of chunks.jsonl or one data line of SSE."""

    def mutate(rng: random.Random, data: bytes) -> tuple[State, str]:
        lines = split_lines(data)
        candidates = [i for i, line in enumerate(lines) if DATA_PREFIX.match(line)]
        if not candidates:
            return byte_flip(rng, data)[0], "no JSON line: byte flip instead"
        at = rng.choice(candidates)
        line = lines[at]
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :]
        match = DATA_PREFIX.match(body)
        prefix = match.group(0) if match else b""
        root = parse_json(body[len(prefix) :])
        if root is NOT_JSON:
            return byte_flip(rng, data)[0], "not JSON any more: byte flip instead"
        root, detail = json_op(rng, root, op)
        text = dump_json(root, False, compact=b'":' in body)
        lines[at] = prefix + text.encode("utf-8", "backslashreplace") + ending
        return b"".join(lines), f"line {at + 1} {detail}"

    return mutate


for _op in JSON_OPS:
    _weight = 2.0 if _op in ("number_tweak", "type_swap", "number_extreme") else 1.0
    mutation(f"json_{_op}", "json", weight=_weight)(json_doc(_op))
    mutation(f"json_line_{_op}", "sse", "jsonl", weight=_weight * 0.6)(json_line(_op))

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
    lines = split_lines(data)
    candidates = [i for i, line in enumerate(lines) if DATA_PREFIX.match(line)]
    if not candidates:
        return data + rng.choice(_GARBAGE), "at the end"
    at = rng.choice(candidates)
    body = lines[at].rstrip(b"\r\n")
    garbage = rng.choice(_GARBAGE)
    lines[at] = body + garbage + lines[at][len(body) :]
    return b"".join(lines), f"line {at + 1}: {garbage!r}"
