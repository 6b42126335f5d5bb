"""The fuzzer's generic mutations: bytes, lines, encodings and whole files of any kind.

A mutation takes a random generator and a file's bytes and returns the new state of the
file (bytes, a `Special` file, or None for absent) and a few words saying what it did.
It declares the file kinds it applies to (a lab names the kind of each of its files:
"json", "jsonl", "sse", "log", "py", ...; "any" is every file). `grader.fuzzing.json_mutations`
adds the JSON ones; a lab adds its own formats' in a `Mutations` list of its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from grader.fuzzing.files import Special, State

MutationFunc = Callable[[random.Random, bytes], tuple[State, str]]


@dataclass(frozen=True)
class Mutation:
    name: str
    kinds: frozenset[str]  # file kinds it applies to; "any" for every file
    weight: float
    func: MutationFunc
    whole_file: bool = False  # also applies when the file is not a regular file


class Mutations:
    """An ordered list of mutations, filled by its `register` decorator. The order is
    part of a campaign's seed: the same list gives the same mutants."""

    def __init__(self) -> None:
        self.items: list[Mutation] = []

    def register(
        self, name: str, *kinds: str, weight: float = 1.0, whole_file: bool = False
    ) -> Callable[[MutationFunc], MutationFunc]:
        """Register `func` as mutation `name` of files of `kinds` ("any": every file)."""

        def register(func: MutationFunc) -> MutationFunc:
            self.items.append(Mutation(name, frozenset(kinds), weight, func, whole_file))
            return func

        return register


GENERIC = Mutations()
"""The mutations of any lab's files: bytes, lines, encodings, whole files, JSON."""
mutation = GENERIC.register


def line_ending(data: bytes) -> bytes:
    if b"\r\n" in data:
        return b"\r\n"
    if b"\n" not in data and b"\r" in data:
        return b"\r"
    return b"\n"


def split_lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def insert_line(rng: random.Random, data: bytes, new: bytes) -> tuple[bytes, int]:
    lines = split_lines(data)
    at = rng.randrange(len(lines) + 1)
    if at == len(lines) and lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += line_ending(data)
    lines.insert(at, new)
    return b"".join(lines), at + 1


def offset(rng: random.Random, data: bytes) -> int:
    if not data:
        return 0
    if rng.random() < 0.2:
        return max(0, len(data) - rng.randint(1, 3))
    return rng.randrange(len(data) + 1)


# generic ---------------------------------------------------------------------------------


@mutation("byte_flip", "any")
def byte_flip(rng: random.Random, data: bytes) -> tuple[State, str]:
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
    at = offset(rng, data)
    return data[:at], f"at byte {at} of {len(data)}"


@mutation("delete_line", "any")
def _delete_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    del lines[at]
    return b"".join(lines), f"line {at + 1}"


@mutation("duplicate_line", "any")
def _duplicate_line(rng: random.Random, data: bytes) -> tuple[State, str]:
    lines = split_lines(data)
    if not lines:
        return data, "no line"
    at = rng.randrange(len(lines))
    line = lines[at] if lines[at].endswith((b"\n", b"\r")) else lines[at] + line_ending(data)
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
    lines = split_lines(lf)
    out = [
        line[:-1] + rng.choice((b"\r\n", b"\r", b"\n")) if line.endswith(b"\n") else line
        for line in lines
    ]
    return b"".join(out), "mixed"


_BAD_UTF8 = (b"\xff", b"\xfe", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\x80")


@mutation("insert_nul", "any", weight=0.7)
def _insert_nul(rng: random.Random, data: bytes) -> tuple[State, str]:
    at = offset(rng, data)
    count = rng.choice((1, 1, 3))
    return data[:at] + b"\x00" * count + data[at:], f"{count} at byte {at}"


@mutation("invalid_utf8", "any", weight=0.7)
def _invalid_utf8(rng: random.Random, data: bytes) -> tuple[State, str]:
    at = offset(rng, data)
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
    lines = split_lines(data)
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
