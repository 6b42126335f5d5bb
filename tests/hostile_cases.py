"""The hostile submissions: what a careless or malicious student could save.

Each is the real `correct` run with one file replaced by something hostile. The grader
must give each a valid result with a clear message on the artifact concerned, grade the
rest, and never crash or hang. `CASES` are committed under sample_submissions/hostile/
(`scripts/make_hostile.py` rebuilds them); `RUNTIME_CASES` can't live in git (FIFOs,
symbolic links, files of many megabytes) and are built by `tests/test_hostile.py`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.verdicts import SAMPLES, SOURCE

HOSTILE = SAMPLES / "hostile"
Mutation = Callable[[Path], None]


def put(name: str, data: bytes | str) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / name
        path.unlink()
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    return mutate


def rewrite(name: str, change: Callable[[bytes], bytes]) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / name
        path.write_bytes(change(path.read_bytes()))

    return mutate


CANCEL = (SOURCE / "cancel.json").read_text("utf-8")
IDLE = re.search(r'"slot_idle_after_ms": ([0-9.]+)', CANCEL).group(1)  # type: ignore[union-attr]
RECEIVED = re.search(r'"received_tokens": ([0-9]+)', CANCEL).group(1)  # type: ignore[union-attr]
# Checks that read a broken file, or build on one that does, are skipped: `verdict` adds
# them. These are the others a broken file may change.
CANCEL_ALL = ["report.copies_sources"]
TTFT_ALL: list[str] = []


def _sse_lines(change: Callable[[list[str]], list[str]]) -> Mutation:
    return rewrite(
        "sse_raw.txt", lambda b: "\n".join(change(b.decode("utf-8").split("\n"))).encode("utf-8")
    )


def _done_in_middle(lines: list[str]) -> list[str]:
    return [*lines[:20], "data: [DONE]", "", *lines[20:]]


def _after_done(lines: list[str]) -> list[str]:
    return [*lines, "", lines[4], ""]


def _events_without_data(lines: list[str]) -> list[str]:
    return ["event: ping", "", "id: 7", "", *lines]


def _not_an_object(lines: list[str]) -> list[str]:
    return [lines[0], "", "data: [1, 2, 3]", "", *lines[2:]]


# name -> (what it is, mutation, must_fail, may_fail); full marks when must_fail is empty
CASES: dict[str, tuple[str, Mutation, list[str], list[str]]] = {
    "empty_file": ("cancel.json is empty", put("cancel.json", b""), ["cancel.schema"], CANCEL_ALL),
    "whitespace_only": (
        "cancel.json is only whitespace",
        put("cancel.json", " \n\t\n"),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "truncated_json": (
        "cancel.json cut off in the middle",
        put("cancel.json", CANCEL[:40]),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "trailing_garbage": (
        "text after the JSON document",
        put("cancel.json", CANCEL + "\nthanks!\n"),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "nan": (
        "NaN as a time",
        put("cancel.json", CANCEL.replace(IDLE, "NaN")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "infinity": (
        "Infinity as a time",
        put("cancel.json", CANCEL.replace(IDLE, "Infinity")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "minus_infinity": (
        "-Infinity as a time",
        put("cancel.json", CANCEL.replace(IDLE, "-Infinity")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "duplicate_keys": (
        "the same key twice",
        put(
            "cancel.json",
            CANCEL.replace('"max_tokens": 256,', '"max_tokens": 256,\n  "max_tokens": 64,'),
        ),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "huge_float": (
        "1e400 as a time",
        put("cancel.json", CANCEL.replace(IDLE, "1e400")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "hundred_thousand_digits": (
        "a 100,000-digit number",
        put("cancel.json", CANCEL.replace(IDLE, "9" * 100_000)),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "deep_nesting": (
        "arrays nested 10,000 deep",
        put("cancel.json", "[" * 10_000 + "]" * 10_000),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "array_for_object": (
        "a JSON array where an object belongs",
        put("cancel.json", "[" + CANCEL + "]"),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "true_for_number": (
        "true where a number belongs",
        put(
            "cancel.json",
            CANCEL.replace(f'"received_tokens": {RECEIVED}', '"received_tokens": true'),
        ),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "numbers_as_strings": (
        "numbers written as strings",
        put("cancel.json", CANCEL.replace(IDLE, f'"{IDLE}"')),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "invalid_utf8": (
        "bytes that are not UTF-8",
        rewrite("cancel.json", lambda b: b.replace(b"256", b"25\xff6")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "utf16_bom": (
        "saved as UTF-16 (PowerShell's >)",
        put("cancel.json", CANCEL.encode("utf-16")),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "nul_bytes": (
        "NUL bytes inside the JSON",
        rewrite("cancel.json", lambda b: b.replace(b"\n", b"\n\x00", 1)),
        ["cancel.schema"],
        CANCEL_ALL,
    ),
    "crlf_json": (
        "Windows line ends in every JSON file (valid)",
        lambda f: [
            rewrite(n, lambda b: b.replace(b"\n", b"\r\n"))(f)
            for n in ("ttft.json", "cache.json", "chunks.jsonl")
        ],
        [],
        [],
    ),
    "cr_only_sse": (
        "old-Mac CR line ends in sse_raw.txt (valid)",
        rewrite("sse_raw.txt", lambda b: b.replace(b"\n", b"\r")),
        [],
        [],
    ),
    "crlf_sse": (
        "CRLF line ends in sse_raw.txt (valid)",
        rewrite("sse_raw.txt", lambda b: b.replace(b"\n", b"\r\n")),
        [],
        [],
    ),
    "jsonl_blank_lines": (
        "blank lines between records (valid)",
        rewrite("chunks.jsonl", lambda b: b.replace(b"\n", b"\n\n")),
        [],
        [],
    ),
    "jsonl_no_final_newline": (
        "no newline after the last record (valid)",
        rewrite("chunks.jsonl", lambda b: b.rstrip(b"\n")),
        [],
        [],
    ),
    "jsonl_non_object_line": (
        "a line that is a JSON array",
        rewrite("chunks.jsonl", lambda b: b + b"[1, 2]\n"),
        ["chunks.schema"],
        [],
    ),
    "sse_binary_garbage": (
        "binary garbage in sse_raw.txt",
        rewrite("sse_raw.txt", lambda b: b[:500] + bytes(range(256)) + b[500:]),
        ["sse.schema"],
        [],
    ),
    "sse_done_in_middle": (
        "data: [DONE] in the middle of the stream (a client stops there)",
        _sse_lines(_done_in_middle),
        ["sse.content_streamed"],
        ["sse.timings_final", "chunks.role_chunk_excluded", "chunks.match_sse"],
    ),
    "sse_chunks_after_done": (
        "chunks after data: [DONE]",
        _sse_lines(_after_done),
        ["sse.content_streamed"],
        [],
    ),
    "sse_events_without_data": (
        "events with no data field (ignored, valid)",
        _sse_lines(_events_without_data),
        [],
        [],
    ),
    "sse_data_not_object": (
        "a data line that is JSON but not an object",
        _sse_lines(_not_an_object),
        ["sse.schema"],
        [],
    ),
    "sse_py_not_python": (
        "sse.py is not Python",
        put("sse.py", "this is my client, see attached\n"),
        ["sse_py.schema"],
        ["sse_py.static"],
    ),
    "sse_py_hostile_if_run": (
        "sse.py would open a socket and write a file if it ran (it never runs)",
        rewrite(
            "sse.py",
            lambda b: (
                b"import socket, os\nsocket.create_connection(('10.0.0.1', 9))\n"
                b"open('/tmp/pwned', 'w').write('x')\nos.system('rm -rf ~')\n" + b
            ),
        ),
        [],
        [],
    ),
}


def _symlink(name: str, target: str) -> Mutation:
    def mutate(folder: Path) -> None:
        (folder / name).unlink()
        os.symlink(target, folder / name)

    return mutate


def _fifo(name: str) -> Mutation:
    def mutate(folder: Path) -> None:
        (folder / name).unlink()
        os.mkfifo(folder / name)

    return mutate


def _directory(name: str) -> Mutation:
    def mutate(folder: Path) -> None:
        (folder / name).unlink()
        (folder / name).mkdir()

    return mutate


def _big_line(folder: Path) -> None:
    with open(folder / "sse_raw.txt", "wb") as handle:
        handle.write(b"data: " + b"x" * (50 * 1024 * 1024) + b"\n")


def _million_line_log(folder: Path) -> None:
    with open(folder / "server.log", "a", encoding="utf-8") as handle:
        handle.write("0.00.000.001 I srv  update_slots: all slots are idle\n" * 1_000_000)


def _ten_mb_source(folder: Path) -> None:
    (folder / "sse.py").write_text("x = [" + "1," * 5_000_000 + "]\n", "utf-8")


RUNTIME_CASES: dict[str, tuple[str, Mutation, list[str], list[str]]] = {
    "fifo": (
        "ttft.json is a FIFO (must not block)",
        _fifo("ttft.json"),
        ["ttft.schema"],
        [*TTFT_ALL, "report.copies_sources"],
    ),
    "symlink_outside": (
        "health.json links to /etc/passwd",
        _symlink("health.json", "/etc/passwd"),
        ["health.schema"],
        ["health.ok"],
    ),
    "symlink_dev_zero": (
        "ttft.json links to /dev/zero",
        _symlink("ttft.json", "/dev/zero"),
        ["ttft.schema"],
        [*TTFT_ALL, "report.copies_sources"],
    ),
    "directory_for_file": (
        "cache.json is a directory",
        _directory("cache.json"),
        ["cache.schema"],
        [
            "cache.first_is_miss",
            "cache.hit_faster",
            "cache.prefix_breaks_reuse",
            "report.copies_sources",
        ],
    ),
    "fifty_mb_line": ("sse_raw.txt is one 50 MB line", _big_line, ["sse.schema"], []),
    "million_line_log": (
        "server.log has a million lines",
        _million_line_log,
        ["log.schema"],
        [],
    ),
    "ten_mb_source": ("sse.py is 10 MB", _ten_mb_source, ["sse_py.schema"], ["sse_py.static"]),
}


def build(folder: Path, mutation: Mutation, source: Path = SOURCE) -> Path:
    """`source` (the published correct sample, by default) with `mutation` applied."""
    shutil.copytree(source, folder)
    mutation(folder)
    return folder
