"""Turn an artifact's bytes into text, or say precisely why that is impossible.

The lab's files are UTF-8. A UTF-8 byte order mark is tolerated (Windows editors add
one); UTF-16/32 (PowerShell's `>` writes UTF-16) and invalid bytes are reported with the
line where the first bad byte sits, so a student knows which file to save again.
"""

from __future__ import annotations

import codecs

from grader.words.problems import Location, Problem

_FOREIGN_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class TextError(Exception):
    """The bytes are not UTF-8 text; `problem` says where."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message_id)
        self.problem = problem


def decode_utf8(data: bytes, file: str) -> str:
    """Decode UTF-8 (BOM tolerated) or raise `TextError` naming the encoding or the line."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    else:
        for bom, encoding in _FOREIGN_BOMS:
            if data.startswith(bom):
                raise TextError(
                    Problem("text.wrong_encoding", {"encoding": encoding}, Location(file, 1))
                )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TextError(
            Problem(
                "text.invalid_utf8",
                {"offset": exc.start, "byte": f"0x{data[exc.start]:02x}"},
                Location(file, line, column),
            )
        ) from None
