"""Reading a captured chat stream: every llama-server era, and the stream's own failures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks import LAB, SCHEMAS
from checks.formats import chat_stream as chat_stream_module
from checks.formats.chat_stream import ChatStream, chat_stream
from grader.reading import jsonload, parsers
from tests.bulk_reading import ROOT, read_both, saved_files

parse = chat_stream(SCHEMAS["sse_chunk"])
LIMITS = LAB.default_limits()


def chunk(delta: dict, finish: str | None = None, **extra: object) -> str:
    body = {
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        "object": "chat.completion.chunk",
    }
    return "data: " + json.dumps(body | extra) + "\n\n"


ROLE = chunk({"role": "assistant", "content": None})
TIMINGS = {"prompt_n": 3, "prompt_ms": 1.5, "predicted_n": 2, "predicted_ms": 9.0}


def stream_of(text: str) -> tuple[ChatStream, list[str]]:
    parsed = parse(text, "sse_raw.txt", LIMITS)
    return parsed.value, [p.message_id for p in parsed.problems]


def test_timings_on_the_finish_chunk() -> None:
    text = ROLE + chunk({"content": "Hi"}) + chunk({}, "stop", timings=TIMINGS) + "data: [DONE]\n"
    stream, problems = stream_of(text)
    assert problems == []
    assert stream.content == "Hi" and stream.chunks[-1].chunk["timings"] == TIMINGS


def test_timings_on_a_separate_usage_chunk_with_no_choices() -> None:
    usage = "data: " + json.dumps({"choices": [], "timings": TIMINGS, "usage": {}}) + "\n\n"
    stream, problems = stream_of(
        ROLE + chunk({"content": "Hi"}) + chunk({}, "stop") + usage + "data: [DONE]\n"
    )
    assert (
        problems == [] and stream.chunks[-1].content == "" and "timings" in stream.chunks[-1].chunk
    )


def test_keep_alive_comments_before_the_first_chunk_are_ignored() -> None:
    stream, problems = stream_of(
        ": keep-alive\n\n: ping\n" + ROLE + chunk({"content": "a"}) + "data: [DONE]\n"
    )
    assert problems == [] and stream.content == "a"


def test_reasoning_content_is_not_content() -> None:
    stream, _ = stream_of(
        ROLE + chunk({"reasoning_content": "think"}) + chunk({"content": "a"}) + "data: [DONE]\n"
    )
    assert [e.content for e in stream.content_events] == ["a"]


def test_data_error_object_is_the_streams_failure_with_its_line() -> None:
    text = ROLE + 'data: {"error": {"code": 500, "message": "context full"}}\n\n'
    parsed = parse(text, "sse_raw.txt", LIMITS)
    assert [(p.message_id, p.location.line) for p in parsed.problems] == [("sse.stream_error", 3)]
    assert "context full" in str(parsed.problems[0].params["detail"])


def test_old_error_field_line_is_the_streams_failure() -> None:
    parsed = parse(ROLE + 'error: {"message": "boom"}\n\n', "sse_raw.txt", LIMITS)
    assert [p.message_id for p in parsed.problems] == ["sse.stream_error"]


def test_data_without_the_space_after_the_colon() -> None:
    stream, problems = stream_of(ROLE.replace("data: ", "data:") + "data:[DONE]\n")
    assert problems == [] and stream.events[-1].kind == "done"


def test_crlf_line_ends_give_the_same_stream() -> None:
    text = ROLE + chunk({"content": "x"}) + "data: [DONE]\n"
    assert stream_of(text.replace("\n", "\r\n"))[0] == stream_of(text)[0]


def test_data_that_is_json_but_not_an_object_is_a_schema_problem() -> None:
    assert stream_of(ROLE + "data: [1, 2]\n\n")[1] == ["schema.type"]


def test_data_that_is_not_json_is_a_json_problem_on_its_line() -> None:
    parsed = parse(ROLE + "data: {oops\n\n", "sse_raw.txt", LIMITS)
    assert (
        parsed.problems[0].message_id.startswith("json.") and parsed.problems[0].location.line == 3
    )


def test_a_file_with_no_events_is_a_problem() -> None:
    assert stream_of("hello\n")[1] == ["sse.no_events"]


def test_events_after_done_are_kept_for_the_checks_to_judge() -> None:
    stream, problems = stream_of(ROLE + "data: [DONE]\n\n" + chunk({"content": "late"}))
    assert problems == [] and [e.kind for e in stream.events] == ["chunk", "done", "chunk"]


def test_a_callers_change_to_the_chunks_it_was_given_reaches_no_other_caller() -> None:
    stream, _ = stream_of(ROLE + chunk({"content": "Hi"}) + "data: [DONE]\n")
    stream.chunks.clear()
    stream.content_events.clear()
    assert len(stream.chunks) == 2 and [e.content for e in stream.content_events] == ["Hi"]


def test_the_facts_of_a_stream_are_those_of_its_answer_before_done() -> None:
    stream, _ = stream_of(
        ROLE
        + chunk({"content": "a"})
        + chunk({})
        + chunk({"content": "b"})
        + "data: [DONE]\n\n"
        + chunk({"content": "late"})
    )
    assert [e.kind for e in stream.answer] == ["chunk"] * 4
    assert len(stream.chunks) == 4
    assert [e.content for e in stream.content_events] == ["a", "b"]
    assert stream.content == "ab"
    assert stream.content == "ab" and len(stream.chunks) == 4  # asked again: the same


# A plain stream (only `data: ` lines and empty lines, as llama-server sends it) is read
# in bulk when every event is a valid chunk or [DONE]; the result must be what reading it
# event by event gives, whatever the stream holds.

STREAMS = saved_files("sse_raw.txt")
NOT_PLAIN = (chat_stream_module, "plain_data", lambda text, max_events: None)


def _read_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    return read_both(parse, text, "sse_raw.txt", "choices", monkeypatch, NOT_PLAIN)


@pytest.mark.parametrize("text", STREAMS, ids=range(len(STREAMS)))
@pytest.mark.parametrize("cut_down", [False, True], ids=["whole", "cut down"])
def test_a_real_stream_read_in_bulk_is_what_reading_each_event_gives(
    text: str, cut_down: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if cut_down:
        monkeypatch.setattr(parsers, "PRUNED_FROM", 0)
    together, each = _read_both(text, monkeypatch)
    assert together == each


@pytest.mark.parametrize(
    "data", ["[" * 900 + "]" * 900, "[" + ",".join(["1"] * 900) + "]", '{"choices": 1}']
)
def test_a_hostile_stream_is_given_up_in_bulk_within_a_batch(
    data: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain stream of 4,096 valid JSON texts that are no chunk (deep or long arrays,
    a chunk of the wrong shape) is read event by event after at most one batch decoded
    in bulk: it once cost 11 times the event-by-event reading, every event decoded
    first. What it gives is that reading's."""
    decoded: list[str] = []
    decode_all = jsonload.StrictDecoder.decode_all
    decode = jsonload.StrictDecoder.decode

    def counting(self, texts, accept=None):  # type: ignore[no-untyped-def]
        def counted(text: str, file: str) -> object:
            decoded.append(text)
            return decode(self, text, file)

        self.decode = counted  # the texts decoded in bulk, not those read one by one
        try:
            return decode_all(self, texts, accept)
        finally:
            del self.decode

    monkeypatch.setattr(jsonload.StrictDecoder, "decode_all", counting)
    text = f"data: {data}\n\n" * 4096
    together, each = _read_both(text, monkeypatch)
    assert together == each and together[1]
    assert 0 < len(decoded) <= jsonload.DECODE_BATCH


def test_a_real_capture_is_read_in_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "data" / "real" / "correct" / "sse_raw.txt").read_text("utf-8")
    monkeypatch.setattr(chat_stream_module, "parse_event_stream", None)  # never called
    parsed = parse(text, "sse_raw.txt", LIMITS)
    assert parsed.problems == [] and len(parsed.value.events) == 67


_EVENTS = [
    ROLE.removesuffix("\n\n"),
    chunk({"content": "Hi: there"}).removesuffix("\n\n"),
    chunk({}, "stop", timings=TIMINGS).removesuffix("\n\n"),
    chunk({"content": "x"}, extra={"deep": [[1]]}).removesuffix("\n\n"),
    "data: [DONE]",
    "data:  [DONE] ",
    'data: {"error": {"message": "boom"}}',
    'data: {"choices": [], "choices": []}',
    'data: {"choices": [{"index": -1}]}',
    'data: {"choices": [], "n": 1e999}',
    'data: {"choices": [], "s": "\\ud800"}',
    'data: {"choices": 5}',
    "data: [1, 2]",
    "data: {",
    "data: ",
    "data:{}",
    ": keep-alive",
    "event: error",
]


@settings(deadline=None)
@given(
    st.lists(st.sampled_from(_EVENTS), min_size=1, max_size=6),
    st.sampled_from(["\n\n", "\n", ""]),
    st.booleans(),
)
def test_any_stream_read_in_bulk_is_what_reading_each_event_gives(
    events: list[str], end: str, cut_down: bool
) -> None:
    text = "\n\n".join(events) + end
    with pytest.MonkeyPatch.context() as patch:
        if cut_down:
            patch.setattr(parsers, "PRUNED_FROM", 0)
        together, each = _read_both(text, patch)
    assert together == each
