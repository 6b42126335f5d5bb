"""The text report's wrapping counts terminal columns, as students' terminals do."""

from __future__ import annotations

import unicodedata

from grader.render.text import _wrap


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_cjk_text_wraps_by_terminal_columns_not_characters() -> None:
    text = "読むのはやめたのに、接続を開いたままにしています。" * 8
    lines = _wrap(text, 40)
    assert all(columns(line) <= 40 for line in lines)
    assert "".join(lines) == text


def test_english_wraps_at_spaces() -> None:
    lines = _wrap("the quick brown fox jumps over the lazy dog " * 5, 30)
    assert all(len(line) <= 30 for line in lines)
    assert all(not line.startswith(" ") for line in lines)


def test_a_short_code_span_is_never_split() -> None:
    lines = _wrap("サーバーはタスクをキャンセルせず、`cancel task`もログに出ませんでした。", 30)
    assert any("`cancel task`" in line for line in lines)
