"""Guards around CPython's reading of a student's Python source (`grader.reading.parsers`'s
`python_source`): what it refuses before parsing, said as CPython says it and with the
line (a NUL byte, an unknown encoding declaration, a line past its cap), and a fixed
recursion headroom for the parse, so that a file nested too deeply is the student's
failure at any stack depth and a file the check accepts always makes a tree.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from grader.words.problems import Location, Problem

if TYPE_CHECKING:
    import ast
    from typing import Any

_LINE_END = re.compile(r"\r\n|\r|\n")

CHECK_HEADROOM = 800
"""Frames of Python recursion the syntax check of a student's source may use above the
frame it runs in. CPython's parser, symbol table and tree builder count about three
levels of nesting a frame, so this admits some 2,400 levels (an honest sse.py nests a
few dozen), and the same file passes or fails whatever the stack depth it is checked at
(`headroom`)."""
TREE_HEADROOM = CHECK_HEADROOM + 100
"""The frames `python_tree` gives the tree builder: more than the check had, so a source
the check accepted always becomes a tree, at any stack depth."""
_COOKIE = re.compile(r"[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(r"[ \t\f]*(?:[#\r\n]|$)")


class _Probe(Exception):
    pass


def _depth() -> int:
    """How many Python frames are below the caller (the traceback of an exception gives
    the frame without private API)."""
    try:
        raise _Probe
    except _Probe as probe:
        traceback = probe.__traceback__
        frame = traceback.tb_frame if traceback is not None else None
    depth = 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


class headroom:
    """Within it, exactly `frames` frames of recursion above the frame that entered it:
    what a parse of a student's source may use does not depend on how deep in the stack
    it runs (a deeply nested file passed the check at one depth and crashed the tree
    builder at another: issue 26)."""

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self.old = 0

    def __enter__(self) -> None:
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(_depth() + self.frames)

    def __exit__(self, *exc: object) -> None:
        sys.setrecursionlimit(self.old)


def python_tree(text: str) -> ast.Module:
    """The syntax tree (`ast.Module`) of a source `python_source` accepted, built with
    more recursion headroom than the check had, so it never fails where the check
    passed, however deep the caller is. Every reader of a student's source makes its
    tree here, never with a bare `ast.parse`."""
    import ast

    with headroom(TREE_HEADROOM):
        return ast.parse(text)


def source_problem(text: str, file: str) -> Problem | None:
    """What CPython refuses in a source before parsing it, said as it says it, with the
    line: a NUL byte, an encoding declaration (PEP 263, in the first two lines) that
    names no codec. (The text is already decoded, so `compile` of it would ignore the
    declaration; Python itself, reading the file, would not run it.)"""
    import codecs

    lines = text.split("\n", 2)[:2]
    for number, line in enumerate(lines, start=1):
        cookie = _COOKIE.match(line)
        if cookie is not None:
            try:
                codecs.lookup(cookie.group(1))
            except LookupError:
                return Problem(
                    "python.unknown_encoding",
                    {"file": file, "encoding": cookie.group(1)},
                    Location(file, number, cookie.start(1) + 1),
                )
            break
        if not _BLANK_OR_COMMENT.match(line):
            break  # a declaration counts only on a line after blank or comment lines
    nul = text.find("\0")
    if nul >= 0:
        line_start = text.rfind("\n", 0, nul) + 1
        return Problem(
            "python.null_byte",
            {"file": file},
            Location(file, text.count("\n", 0, nul) + 1, nul - line_start + 1),
        )
    return None


def long_line(text: str, file: str, cap: int) -> Problem | None:
    """The first line longer than `cap` characters (`Limits.python_line_chars`), as a
    problem, found in linear time: CPython 3.11's tokenizer gives each token a copy of
    its line, so a 250 KB one-line file cost 250,000 copies of 250 KB (5-12 s) in the
    lab's reading of its tokens."""
    if len(text) <= cap:
        return None
    lines = _LINE_END.split(text)
    for number, line in enumerate(lines, start=1):
        if len(line) > cap:
            params: dict[str, Any] = {"file": file, "chars": len(line), "cap": cap}
            return Problem("python.line_too_long", params, Location(file, number))
    return None


def deepest_line(text: str) -> int:
    """The line a too-deeply nested expression most likely is on: the longest."""
    lines = text.split("\n")
    return max(range(len(lines)), key=lambda i: len(lines[i])) + 1
