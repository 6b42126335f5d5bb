"""Specification of `grader.reading.sse`: text/event-stream as the HTML Standard parses it.

Each test states one rule. The property tests at the end compare the parser with a
character-by-character transcription of the spec (`reference_parse`) on generated text,
plain streams (`plain_data`'s quick reading) and near-plain ones among them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.reading.sse import Event, Field, Stream, parse_event_stream, plain_data

REAL_CAPTURE = Path(__file__).resolve().parent.parent / "data" / "real" / "correct" / "sse_raw.txt"

# -- line ends -----------------------------------------------------------------------------


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_lf_crlf_and_cr_line_ends_give_the_same_events(eol: str) -> None:
    text = eol.join(["event: a", "data: 1", "data: 2", "", "data: 3", "", ""])
    stream = parse_event_stream(text)
    assert [(e.type, e.data, e.line, e.data_lines) for e in stream.events] == [
        ("a", "1\n2", 1, (2, 3)),
        ("message", "3", 5, (5,)),
    ]
    assert stream.line_count == 6


def test_line_numbers_count_crlf_cr_and_lf_when_mixed() -> None:
    text = ": hi\r\ndata: a\rdata: b\n\r\nevent: e\r\ndata: c\n\n"
    stream = parse_event_stream(text)
    assert stream.comments == (Field(1, "", "hi"),)
    assert [(e.line, e.end_line, e.data_lines) for e in stream.events] == [
        (2, 3, (2, 3)),
        (5, 6, (6,)),
    ]
    assert stream.line_count == 7


def test_a_cr_then_an_lf_is_one_line_end_not_an_empty_line() -> None:
    stream = parse_event_stream("data: a\r\ndata: b\r\n\r\n")
    assert [e.data for e in stream.events] == ["a\nb"]


def test_unicode_line_separators_and_form_feed_are_not_line_ends() -> None:
    value = "a\u2028b\u2029c\x0cd\x0be\x85f\x1cg\x1dh\x1ei"
    stream = parse_event_stream(f"data: {value}\n\n")
    assert [e.data for e in stream.events] == [value]
    assert stream.line_count == 2


def test_line_count_includes_a_last_line_without_line_end() -> None:
    assert parse_event_stream("data: a\n\ndata: b").line_count == 3
    assert parse_event_stream("data: a\n\ndata: b\n").line_count == 3
    assert parse_event_stream("").line_count == 0


# -- byte order mark -----------------------------------------------------------------------


def test_a_leading_bom_is_stripped() -> None:
    stream = parse_event_stream("\ufeffdata: x\n\n")
    assert [(e.line, e.data) for e in stream.events] == [(1, "x")]
    assert stream.unknown_fields == ()


def test_only_one_leading_bom_is_stripped_a_second_one_starts_the_field_name() -> None:
    stream = parse_event_stream("\ufeff\ufeffdata: x\n\n")
    assert stream.events == ()
    assert stream.unknown_fields == (Field(1, "\ufeffdata", "x"),)


def test_a_bom_inside_a_value_is_kept_as_data() -> None:
    stream = parse_event_stream("\ufeffdata: \ufeffx\n\n")
    assert [e.data for e in stream.events] == ["\ufeffx"]


# -- comments and field syntax -------------------------------------------------------------


def test_a_keep_alive_comment_before_the_first_event_is_recorded_not_an_event() -> None:
    stream = parse_event_stream(": keep-alive\n\ndata: x\n\n")
    assert stream.comments == (Field(1, "", "keep-alive"),)
    assert [(e.line, e.data) for e in stream.events] == [(3, "x")]


def test_a_comment_without_a_space_keeps_all_its_text() -> None:
    assert parse_event_stream(":ping\n").comments == (Field(1, "", "ping"),)


def test_a_comment_inside_an_event_does_not_interrupt_it() -> None:
    stream = parse_event_stream("data: a\n: note\ndata: b\n\n")
    assert [(e.data, e.line, e.end_line) for e in stream.events] == [("a\nb", 1, 3)]


@pytest.mark.parametrize("line", ["data: x", "data:x"], ids=["with-space", "without-space"])
def test_data_value_is_the_same_with_or_without_the_space_after_the_colon(line: str) -> None:
    assert [e.data for e in parse_event_stream(f"{line}\n\n").events] == ["x"]


def test_only_one_leading_space_is_removed_from_a_value() -> None:
    assert [e.data for e in parse_event_stream("data:  x \n\n").events] == [" x "]


def test_only_the_first_colon_separates_name_and_value() -> None:
    stream = parse_event_stream('data: {"a": "b:c"}\n\n')
    assert [e.data for e in stream.events] == ['{"a": "b:c"}']


def test_multi_line_data_is_joined_with_lf_without_a_final_lf() -> None:
    stream = parse_event_stream("data: a\ndata:\ndata: b\n\n")
    assert [(e.data, e.data_lines) for e in stream.events] == [("a\n\nb", (1, 2, 3))]


def test_a_field_without_a_colon_is_a_name_with_an_empty_value() -> None:
    stream = parse_event_stream("data\n\nfoo\n")
    assert [e.data for e in stream.events] == [""]
    assert stream.unknown_fields == (Field(3, "foo", ""),)


def test_field_names_are_case_sensitive() -> None:
    stream = parse_event_stream("Data: x\n\n")
    assert stream.events == ()
    assert stream.unknown_fields == (Field(1, "Data", "x"),)


# -- the fields ----------------------------------------------------------------------------


def test_event_field_sets_the_type() -> None:
    stream = parse_event_stream("event: delta\ndata: x\n\n")
    assert [e.type for e in stream.events] == ["delta"]


def test_type_is_message_when_there_is_no_event_field_or_it_is_empty() -> None:
    stream = parse_event_stream("data: a\n\nevent:\ndata: b\n\n")
    assert [e.type for e in stream.events] == ["message", "message"]


def test_id_field_sets_the_events_id() -> None:
    stream = parse_event_stream("id: 7\ndata: x\n\n")
    assert [e.id for e in stream.events] == ["7"]


def test_id_containing_nul_is_ignored() -> None:
    stream = parse_event_stream("id: 1\nid: 2\x003\ndata: x\n\n")
    assert [e.id for e in stream.events] == ["1"]


def test_id_is_the_events_own_not_carried_to_the_next_event() -> None:
    stream = parse_event_stream("id: 1\ndata: a\n\ndata: b\n\n")
    assert [e.id for e in stream.events] == ["1", None]


def test_retry_with_ascii_digits_sets_retry_and_the_last_valid_one_wins() -> None:
    assert parse_event_stream("retry: 3000\nretry: 0042\n").retry == 42


@pytest.mark.parametrize(
    "value", ["3s", "-1", "1.5", " 10", "", "\u0661\u0662", "\uff11"], ids=repr
)
def test_retry_that_is_not_only_ascii_digits_is_ignored(value: str) -> None:
    stream = parse_event_stream(f"retry: 100\nretry: {value}\n")
    assert stream.retry == 100
    assert stream.unknown_fields == ()


def test_retry_too_long_to_convert_is_not_applied_but_reported() -> None:
    digits = "9" * 5000
    stream = parse_event_stream(f"retry: 5\nretry: {digits}\n")
    assert stream.retry == 5
    assert stream.unknown_fields == (Field(2, "retry", digits),)


def test_an_unknown_field_is_recorded_with_its_line_and_ignored() -> None:
    text = 'data: x\n\nerror: {"message": "boom"}\n\n'
    stream = parse_event_stream(text)
    assert [e.data for e in stream.events] == ["x"]
    assert stream.unknown_fields == (Field(3, "error", '{"message": "boom"}'),)


# -- dispatch ------------------------------------------------------------------------------


def test_empty_line_after_data_dispatches_a_terminated_event() -> None:
    stream = parse_event_stream("data: x\n\n")
    assert stream.events == (Event(1, 1, "message", "x", None, (1,), True),)


def test_empty_line_with_no_data_dispatches_nothing_and_resets_the_type() -> None:
    stream = parse_event_stream("\n\nevent: ping\nid: 3\n\n\n\ndata: x\n\n")
    assert stream.events == (Event(8, 8, "message", "x", None, (8,), True),)


def test_empty_data_field_produces_an_event_with_empty_data() -> None:
    stream = parse_event_stream("data:\n\n")
    assert stream.events == (Event(1, 1, "message", "", None, (1,), True),)


def test_event_lines_span_its_first_to_last_field_line() -> None:
    stream = parse_event_stream(": c\nevent: e\nid: 1\ndata: x\nretry: 9\n\n")
    assert [(e.line, e.end_line, e.data_lines) for e in stream.events] == [(2, 5, (4,))]


def test_trailing_done_without_final_empty_line_is_an_unterminated_event() -> None:
    stream = parse_event_stream("data: a\n\ndata: [DONE]\n")
    assert [(e.data, e.terminated) for e in stream.events] == [("a", True), ("[DONE]", False)]


def test_last_line_without_any_line_end_still_counts() -> None:
    stream = parse_event_stream("data: [DONE]")
    assert stream.events == (Event(1, 1, "message", "[DONE]", None, (1,), False),)


def test_input_ending_inside_a_block_without_data_gives_no_event() -> None:
    stream = parse_event_stream("data: a\n\nevent: x\nid: 2\n")
    assert [e.data for e in stream.events] == ["a"]


# -- max_events ----------------------------------------------------------------------------


def test_max_events_stops_parsing_and_marks_the_stream_truncated() -> None:
    text = "data: 1\n\ndata: 2\n\n: after\nretry: 5\ndata: 3\n\n"
    stream = parse_event_stream(text, max_events=2)
    assert [e.data for e in stream.events] == ["1", "2"]
    assert stream.truncated
    assert stream.comments == ()
    assert stream.retry is None
    assert stream.line_count == 8


def test_max_events_counts_an_unterminated_last_event() -> None:
    stream = parse_event_stream("data: 1\n\ndata: [DONE]\n", max_events=1)
    assert [e.data for e in stream.events] == ["1"]
    assert stream.truncated


def test_exactly_max_events_events_is_not_truncated() -> None:
    stream = parse_event_stream("data: 1\n\ndata: 2\n\n: end\n", max_events=2)
    assert len(stream.events) == 2
    assert not stream.truncated
    assert stream.comments == (Field(5, "", "end"),)


def test_max_events_zero_returns_no_events() -> None:
    stream = parse_event_stream("data: 1\n\n", max_events=0)
    assert stream.events == ()
    assert stream.truncated


def test_negative_max_events_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        parse_event_stream("", max_events=-1)


# -- real data and size --------------------------------------------------------------------


def test_real_capture_parses_into_role_content_timings_and_done_events() -> None:
    # Decoded from bytes so no newline translation can hide the file's real line ends.
    stream = parse_event_stream(REAL_CAPTURE.read_bytes().decode("utf-8"))
    events = stream.events
    assert len(events) == 67
    assert stream.line_count == 133
    assert (stream.comments, stream.unknown_fields, stream.truncated) == ((), (), False)
    assert [e.line for e in events] == list(range(1, 134, 2))
    assert all(e.type == "message" and e.terminated for e in events[:-1])
    assert (events[-1].data, events[-1].terminated) == ("[DONE]", False)

    chunks = [json.loads(e.data) for e in events[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas[0] == {"role": "assistant", "content": None}
    assert all(isinstance(d.get("content"), str) for d in deltas[1:65])
    assert deltas[65] == {}
    assert "timings" in chunks[65]
    assert all("timings" not in c for c in chunks[:65])


def test_hundred_thousand_events_of_20_mb_all_parse_with_their_lines() -> None:
    # Speed is measured by the benchmark, not asserted here; this pins correctness at scale.
    text = ("data: " + "x" * 190 + "\n\n") * 100_000
    stream = parse_event_stream(text)
    assert len(stream.events) == 100_000
    assert stream.events[-1].line == 199_999


# -- properties ----------------------------------------------------------------------------


def reference_lines(text: str) -> list[str]:
    """Split into lines one character at a time, as the spec words it (BOM already gone).

    A last line without line end is kept (the module's documented deviation).
    """
    lines: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "\r\n":
            lines.append("".join(current))
            current = []
            if char == "\r" and text[i + 1 : i + 2] == "\n":
                i += 1
        else:
            current.append(char)
        i += 1
    if current:
        lines.append("".join(current))
    return lines


def reference_parse(text: str) -> Stream:
    """The spec's line processing, transcribed literally, plus the documented deviations."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = reference_lines(text)
    events: list[Event] = []
    comments: list[Field] = []
    unknown: list[Field] = []
    retry: int | None = None
    data_buffer, type_buffer, event_id = "", "", None
    data_lines: list[int] = []
    field_lines: list[int] = []

    def dispatch(terminated: bool) -> None:
        nonlocal data_buffer, type_buffer, event_id, data_lines, field_lines
        if data_buffer != "":
            events.append(
                Event(
                    field_lines[0],
                    field_lines[-1],
                    type_buffer or "message",
                    data_buffer[:-1] if data_buffer.endswith("\n") else data_buffer,
                    event_id,
                    tuple(data_lines),
                    terminated,
                )
            )
        data_buffer, type_buffer, event_id, data_lines, field_lines = "", "", None, [], []

    for number, line in enumerate(lines, start=1):
        if line == "":
            dispatch(True)
            continue
        if line.startswith(":"):
            value = line[1:]
            comments.append(Field(number, "", value[1:] if value.startswith(" ") else value))
            continue
        if ":" in line:
            name, value = line[: line.index(":")], line[line.index(":") + 1 :]
            value = value[1:] if value.startswith(" ") else value
        else:
            name, value = line, ""
        field_lines.append(number)
        if name == "event":
            type_buffer = value
        elif name == "data":
            data_buffer += value + "\n"
            data_lines.append(number)
        elif name == "id":
            if "\x00" not in value:
                event_id = value
        elif name == "retry":
            if value and all(c in "0123456789" for c in value):
                retry = int(value)
        else:
            unknown.append(Field(number, name, value))
    dispatch(False)
    return Stream(tuple(events), tuple(comments), tuple(unknown), retry, len(lines), False)


_PIECES = [
    "data", "event", "id", "retry", "error", "data: ", "[DONE]", ":", " ", "  ", "x", "7",
    "\n", "\r", "\r\n", "\n\n", "\ufeff", "\x00", "\u2028", "\x0c", "\x85",
]  # fmt: skip
_piece = st.one_of(st.sampled_from(_PIECES), st.text(max_size=4))
sse_like_text = st.lists(_piece, max_size=40).map("".join)
line_text = st.text(st.characters(blacklist_characters="\r\n"), max_size=12)


@settings(deadline=None)
@given(st.one_of(st.text(), sse_like_text))
def test_any_text_parses_without_error_and_counts_the_spec_lines(text: str) -> None:
    stream = parse_event_stream(text)
    assert stream.line_count == len(reference_lines(text.removeprefix("\ufeff")))


@settings(deadline=None)
@given(sse_like_text)
def test_parser_agrees_with_a_literal_transcription_of_the_spec(text: str) -> None:
    assert parse_event_stream(text) == reference_parse(text)


@settings(deadline=None)
@given(
    events=st.lists(
        st.tuples(
            st.one_of(st.none(), line_text),
            st.lists(line_text, min_size=1, max_size=4),
            st.one_of(st.none(), line_text.filter(lambda s: "\x00" not in s)),
        ),
        max_size=6,
    ),
    data=st.data(),
)
def test_serialized_events_round_trip_with_any_line_ends(
    events: list[tuple[str | None, list[str], str | None]], data: st.DataObject
) -> None:
    lines: list[str] = []
    for event_type, values, event_id in events:
        if event_type is not None:
            lines.append(f"event: {event_type}")
        if event_id is not None:
            lines.append(f"id: {event_id}")
        lines.extend(f"data: {value}" for value in values)
        lines.append("")
    text, previous = "", ""
    for line in lines:
        choices = ["\n", "\r\n", "\r"]
        if previous == "\r" and line == "":
            choices.remove("\n")  # "\r" + "\n" would be one CRLF: the empty line would vanish
        previous = data.draw(st.sampled_from(choices))
        text += line + previous

    stream = parse_event_stream(text)
    assert [(e.type, e.data, e.id, e.terminated) for e in stream.events] == [
        (event_type or "message", "\n".join(values), event_id, True)
        for event_type, values, event_id in events
    ]


@settings(deadline=None)
@given(
    lines=st.lists(st.one_of(line_text, st.sampled_from(["", "data: x", ": c", "event: e"]))),
    ends_with_line_end=st.booleans(),
)
def test_converting_line_ends_between_lf_crlf_and_cr_changes_nothing(
    lines: list[str], ends_with_line_end: bool
) -> None:
    def join(eol: str) -> str:
        return eol.join(lines) + (eol if ends_with_line_end and lines else "")

    assert parse_event_stream(join("\n")) == parse_event_stream(join("\r\n"))
    assert parse_event_stream(join("\n")) == parse_event_stream(join("\r"))


plain_text = st.builds(
    lambda bom, values, end: bom + "\n\n".join(f"data: {v}" for v in values) + end,
    st.sampled_from(["", "\ufeff"]),
    st.lists(st.one_of(line_text, st.sampled_from(["[DONE]", "data: x", " x", ":"])), min_size=1),
    st.sampled_from(["\n\n", "\n", ""]),
)
"""Streams as llama-server sends them: `data: ` lines, each followed by one empty line."""


@settings(deadline=None)
@given(plain_text)
def test_a_plain_stream_is_read_quickly_and_as_the_spec_reads_it(text: str) -> None:
    assert plain_data(text) is not None
    assert parse_event_stream(text) == reference_parse(text)


_EDITS = ["\n", "\r", "\r\n", "\n\n", ":", "data:", "data: ", "id: 1", "\ufeff", " ", "x"]


@settings(deadline=None)
@given(plain_text, st.lists(st.tuples(st.integers(0), st.sampled_from(_EDITS)), max_size=3))
def test_a_stream_almost_plain_is_read_as_the_spec_reads_it(
    text: str, edits: list[tuple[int, str]]
) -> None:
    for place, piece in edits:
        cut = place % (len(text) + 1)
        text = text[:cut] + piece + text[cut:]
    assert parse_event_stream(text) == reference_parse(text)


@settings(deadline=None)
@given(plain_text, st.integers(0, 5))
def test_a_plain_stream_over_max_events_is_truncated_as_any_other(text: str, limit: int) -> None:
    stream = parse_event_stream(text, max_events=limit)
    assert stream.events == reference_parse(text).events[:limit]
    assert stream.truncated == (len(reference_parse(text).events) > limit)
