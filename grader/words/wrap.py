"""Wrapping text to terminal columns, for English and for Japanese, Korean and Chinese.

A terminal shows a wide (East Asian "W"/"F") character in two columns. English and
Korean break at spaces; Japanese and Chinese, which have none, between any two
characters, except where their typography forbids (kinsoku shori): no line starts with
closing punctuation or a small kana (`。`, `、`, `）`, `」`, `ー`, `っ`…), and none ends with
opening punctuation (`（`, `「`…). A short `code span` never breaks; a word longer than the
line is cut, since nothing else fits.
"""

from __future__ import annotations

import re
import unicodedata

NO_LINE_START = set(
    "、。，．,.:;!?！？：；）」』】〕〉》’”…‥ー〜ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ%％)]}"
)
"""Characters Japanese and Chinese typography never puts at the start of a line."""
NO_LINE_END = set("（「『【〔〈《‘“([{")
"""Characters they never leave at the end of one."""

_BREAKS_ANYWHERE = "\u2e80-\u312f\u3190-\uabff\ud7b0-\uffef"
"""Chinese and Japanese script and punctuation: wide characters with no spaces between
words. Hangul (U+3130-318F, U+AC00-D7AF) is wide too, but Korean puts spaces between
words, and a line broken inside one (`자체|를`) reads as a typo."""
_TOKENS = re.compile(rf"`[^`\n]{{1,40}}`|\s+|[{_BREAKS_ANYWHERE}]|[^\s`{_BREAKS_ANYWHERE}]+|`")
"""Code spans, spaces, one Chinese or Japanese character, or an unbroken run of anything
else (an English or a Korean word)."""


UNBROKEN = re.compile(rf"[^\s{_BREAKS_ANYWHERE}]+")
"""A run that wrapping keeps on one line (no space, no character to break between)."""
COLOUR = re.compile(r"\033\[[0-9;]*m")
"""A colour escape (SGR): it takes no column."""


def cells(text: str) -> int:
    """Terminal columns of `text`: wide and fullwidth characters take two, combining
    marks and colour escapes none."""
    total = 0
    for char in COLOUR.sub("", text):
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return total


def _cut(token: str, width: int) -> list[str]:
    """A token wider than a line, cut into pieces of at most `width` columns."""
    pieces, piece, used = [], "", 0
    for char in token:
        size = cells(char)
        if used + size > width and piece:
            pieces.append(piece)
            piece, used = "", 0
        piece, used = piece + char, used + size
    return [*pieces, piece] if piece else pieces


def wrap(text: str, width: int, indent: str = "", first: str | None = None) -> list[str]:
    """`text` as lines of at most `width` columns (hard line breaks kept), each after
    `indent` (the first after `first`, when given: a hanging indent)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(
            _wrap_one(
                paragraph, width, first if not lines and first is not None else indent, indent
            )
        )
    return lines


def _wrap_one(text: str, width: int, lead: str, indent: str) -> list[str]:
    lines: list[str] = []
    placed: list[str] = []  # the tokens on the current line, spaces included
    used = cells(lead)
    prefix = lead

    def flush() -> None:
        nonlocal placed, used, prefix
        lines.append((prefix + "".join(placed)).rstrip())
        placed, used, prefix = [], cells(indent), indent

    def place(token: str) -> None:
        nonlocal used
        placed.append(token)
        used += cells(token)

    room = width - cells(indent)
    for token in _TOKENS.findall(text):
        if token.isspace():
            if placed:
                place(" ")
            continue
        size = cells(token)
        if size > room:  # longer than any line: cut it
            for piece in _cut(token, room):
                if used + cells(piece) > width and placed:
                    flush()
                place(piece)
            continue
        if used + size <= width or not placed:
            place(token)
            continue
        carried: list[str] = []
        if token[0] in NO_LINE_START and placed[-1] != " ":
            # glued to the word before, which goes along: never the mark alone (after a
            # space the mark starts a word of its own, `.schema`, and the space breaks)
            while len(placed) > 1 and (not carried or carried[0][0] in NO_LINE_START):
                carried.insert(0, placed.pop())
        while len(placed) > 1 and placed[-1] and placed[-1][-1] in NO_LINE_END:
            carried.insert(0, placed.pop())  # an opening bracket goes to the next line
        if cells(indent) + sum(cells(t) for t in carried) + size > width:
            placed += carried  # what would go along does not fit either: the rule yields
            carried = []
        used = cells(prefix) + sum(cells(t) for t in placed)
        flush()
        for piece in carried:
            place(piece)
        place(token)
    lines.append((prefix + "".join(placed)).rstrip())
    return lines
