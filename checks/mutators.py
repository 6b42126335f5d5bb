"""This lab's side of the fuzzer (`grader.fuzzing`): its seeds, the kind of each of its
files, and the mutations of its own formats (`scripts/fuzz.py` runs the campaign).

The seeds are the real captures at the top of `sample_submissions/` (not `derived/`);
the mutations here are those of a chat-completion event stream (`sse_raw.txt`: `[DONE]`
in the middle, chunks after it, error lines, keep-alive comments, field variants), of
chunks.jsonl's records, of a llama-server log (a deleted `cancel task`, duplicated
timing blocks, garbage lines, era wrappers, the old split timing block) and of sse.py
(not Python, absurd nesting, other defaults and signatures, no http.client). The generic
ones (bytes, lines, encodings, whole files, JSON) apply to these files too, first.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from checks import LAB
from grader.fuzzing import GENERIC, Mutations, State, Target
from grader.fuzzing.json_mutations import JSON_OPS, json_line
from grader.fuzzing.mutations import insert_line, line_ending, split_lines

SAMPLES = Path(__file__).resolve().parent.parent / "sample_submissions"
LAB_MUTATIONS = Mutations()
mutation = LAB_MUTATIONS.register


def file_kind(name: str) -> str:
    """The mutation family of one of the lab's files."""
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


# SSE ---------------------------------------------------------------------------------------


def _data_lines(data: bytes) -> list[int]:
    return [i for i, line in enumerate(split_lines(data)) if line.startswith(b"data:")]


@mutation("sse_blank_insert", "sse", "jsonl")
def _blank_insert(rng: random.Random, data: bytes) -> tuple[State, str]:
    blank = rng.choice((b"\n", b"\n\n", b"\r\n", b"   \n", b"\t\n", b"\n" * 5))
    text, line = insert_line(rng, data, blank)
    return text, f"{blank!r} at line {line}"


@mutation("sse_blank_remove", "sse")
def _blank_remove(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
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
    lines = [line for line in split_lines(data) if b"[DONE]" not in line]
    eol = line_ending(data)
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, b"data: [DONE]" + eol + eol)
    return b"".join(lines), f"at line {at + 1}"


@mutation("sse_chunks_after_done", "sse", weight=1.5)
def _chunks_after_done(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data + b"\ndata: {}\n\n", "no data line"
    eol = line_ending(data)
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
    lines = split_lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    body = lines[at].rstrip(b"\r\n")
    ending = lines[at][len(body) :] or line_ending(data)
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
    eol = line_ending(data)
    extra = eol if rng.random() < 0.5 else eol + eol
    text, line = insert_line(rng, data, comment + extra)
    return text, f"line {line}"


@mutation("sse_field_variant", "sse")
def _field_variant(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    body = lines[at].rstrip(b"\r\n")
    eol = lines[at][len(body) :] or line_ending(data)
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
    lines = split_lines(data)
    data_at = _data_lines(data)
    if not data_at:
        return data, "no data line"
    at = rng.choice(data_at)
    eol = line_ending(data)
    lines.insert(at, lines[at].rstrip(b"\r\n") + eol + eol)
    return b"".join(lines), f"line {at + 1}"


@mutation("amplify", "sse", "jsonl", "log", weight=0.15)
def _amplify(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    block = b"".join(lines[at : at + rng.choice((1, 2, 3))])
    if not block.endswith((b"\n", b"\r")):
        block += line_ending(data)
    times = rng.choice((10, 100, 1000, 1000, 5000))
    lines.insert(at, block * times)
    return b"".join(lines), f"lines {at + 1}.. x{times}"


@mutation("amplify_mutated_line", "sse", "jsonl", weight=0.06)
def _amplify_mutated_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    """One JSON line, mutated, then repeated up to the grader's record and event limits."""
    mutated, detail = json_line(rng.choice(JSON_OPS))(rng, data)
    assert isinstance(mutated, bytes)
    match = re.match(r"line (\d+) ", detail)
    lines = split_lines(mutated)
    if not match or not lines:
        return mutated, detail
    at = int(match.group(1)) - 1
    line = lines[at].rstrip(b"\r\n") + line_ending(data)
    if line.startswith(b"data:"):
        line += line_ending(data)
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
    lines = split_lines(data)
    if lines and rng.random() < 0.5:
        at = rng.randrange(len(lines))
        lines[at] = line + line_ending(data)
        return b"".join(lines), f"line {at + 1} replaced by {line!r}"
    text, at = insert_line(rng, data, line + line_ending(data))
    return text, f"{line!r} inserted at line {at}"


@mutation("no_final_newline", "jsonl", "sse", "log", "py")
def _no_final_newline(rng: random.Random, data: bytes) -> tuple[State, str]:
    return data.rstrip(b"\r\n"), ""


@mutation("jsonl_empty_text", "jsonl")
def _empty_text(rng: random.Random, data: bytes) -> tuple[State, str]:
    record = b'{"t_ms": ' + rng.choice((b"0.5", b"100", b"0", b"1e-300")) + b', "text": ""}'
    text, at = insert_line(rng, data, record + line_ending(data))
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
    lines = split_lines(data)
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
    lines = split_lines(data)
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
    text, at = insert_line(rng, data, garbage + line_ending(data))
    return text, f"{garbage[:30]!r} at line {at}"


_NUMBER = re.compile(rb"\d+(?:\.\d+)?")


@mutation("log_tweak_number", "log", weight=1.5)
def _log_tweak_number(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
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
    lines = split_lines(data)
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
    for line in split_lines(data):
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
        line
        for line in split_lines(data)
        if b"http.client" not in line and b"import http" not in line
    ]
    if rng.random() < 0.5:
        lines.insert(0, b"import requests\n")
    return b"".join(lines), ""


TARGET = Target(
    lab=LAB,
    seeds_root=SAMPLES,
    kind_of=file_kind,
    weights=FILE_WEIGHTS,
    mutations=(*GENERIC.items, *LAB_MUTATIONS.items),
    skip=("derived",),
    salt="firsttoken-fuzz",
)
"""The first-token lab's fuzzing target (`python scripts/fuzz.py`)."""
