"""Reading JSON Lines (`grader.reading.parsers.json_lines`): a file whose every record is valid
is read in bulk, and what that gives must be what reading it line by line gives."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks import LAB, SCHEMAS
from grader.reading import parsers
from grader.reading.jsonload import StrictDecoder
from tests.bulk_reading import ROOT, read_both, saved_files

parse = parsers.json_lines(SCHEMAS["chunks_record"])
LIMITS = LAB.default_limits()
FILES = saved_files("chunks.jsonl")
NOT_IN_BULK = (StrictDecoder, "decode_all", lambda self, texts, accept=None: None)


def _read_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    return read_both(parse, text, "chunks.jsonl", "t_ms", monkeypatch, NOT_IN_BULK)


@pytest.mark.parametrize("text", FILES, ids=range(len(FILES)))
@pytest.mark.parametrize("cut_down", [False, True], ids=["whole", "cut down"])
def test_a_real_file_read_in_bulk_is_what_reading_each_line_gives(
    text: str, cut_down: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if cut_down:
        monkeypatch.setattr(parsers, "PRUNED_FROM", 0)
    together, each = _read_both(text, monkeypatch)
    assert together == each


def test_a_real_file_is_read_in_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "data" / "real" / "correct" / "chunks.jsonl").read_text("utf-8")
    monkeypatch.setattr(parsers, "_line_by_line", None)  # never called
    parsed = parse(text, "chunks.jsonl", LIMITS)
    assert parsed.problems == [] and len(parsed.value) == 64


_RECORDS = [
    '{"t_ms": 236.636, "text": "shire"}',
    '{"t_ms": 1, "text": "a: b", "extra": [1]}',
    '{"t_ms": 2.5, "text": "x", "t_ms": 3}',
    '{"t_ms": -1, "text": "x"}',
    '{"t_ms": 1e999, "text": "x"}',
    '{"text": "no time"}',
    ' {"t_ms": 1, "text": "spaced"} ',
    "[1]",
    "{",
    "",
    "   ",
]


@settings(deadline=None)
@given(
    st.lists(st.sampled_from(_RECORDS), max_size=6),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
def test_any_file_read_in_bulk_is_what_reading_each_line_gives(
    records: list[str], line_end: str, cut_down: bool
) -> None:
    text = line_end.join(records)
    with pytest.MonkeyPatch.context() as patch:
        if cut_down:
            patch.setattr(parsers, "PRUNED_FROM", 0)
        together, each = _read_both(text, patch)
    assert together == each


def test_more_records_than_the_limit_are_refused_as_line_by_line() -> None:
    parsed = parse(
        '{"t_ms": 1, "text": "a"}\n' * 3, "chunks.jsonl", replace(LIMITS, jsonl_records=2)
    )
    assert [(p.message_id, p.location.line) for p in parsed.problems] == [("jsonl.too_many", 3)]
