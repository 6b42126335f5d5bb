"""An OpenAI-style chat completion stream, as llama-server sends it, read from SSE.

The SSE layer (`grader.reading.sse`) gives events with line numbers; this layer decodes
each event's data as strict JSON and sorts it into what the lab talks about: chunks,
the `[DONE]` sentinel, and errors. It accepts every llama-server era the lab meets:
`timings` on the `finish_reason` chunk, on a separate final `"choices": []` chunk, or on
every chunk; `:` keep-alive comments; `reasoning_content` deltas (thinking, not
content); a mid-stream error sent as `data: {"error": ...}`, as `event: error`, or as
the older non-standard `error: {...}` field line, each reported as the stream's failure.

A plain stream (`grader.reading.sse.plain_data`: what llama-server sends) whose every
event is `[DONE]` or a valid chunk is read in bulk (`_plain_chunks`): its events decoded
and validated in one call each, with no `Event` made. Any other stream, and any plain one
with something to report, is read event by event, which finds each problem and where.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import compress, repeat
from operator import not_
from typing import TYPE_CHECKING

from grader.reading.jsonload import JsonError, StrictDecoder
from grader.reading.limits import Limits
from grader.reading.loading import Parsed, Parser, with_format
from grader.reading.parsers import declared_only, declared_only_all
from grader.reading.schema import SchemaRef
from grader.reading.sse import PlainData, parse_event_stream, plain_data
from grader.words.problems import Location, Problem

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    EventKind = Literal["chunk", "done", "error"]


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One data event: its first line, what it is, and the decoded chunk if it is one.
    (With slots: a near-cap stream has 4,096 of them, each made in a few hundred
    instructions less and holding no dict.)"""

    line: int
    kind: EventKind
    chunk: dict[str, Any] | None = None

    @property
    def delta(self) -> dict[str, Any]:
        choices = (self.chunk or {}).get("choices") or []
        first = choices[0] if choices and isinstance(choices[0], dict) else {}
        delta = first.get("delta")
        return delta if isinstance(delta, dict) else {}

    @property
    def content(self) -> str:
        """The answer text this event carries ("" for role-only, final and usage chunks)."""
        content = self.delta.get("content")
        return content if isinstance(content, str) else ""

    @property
    def finish_reason(self) -> str | None:
        choices = (self.chunk or {}).get("choices") or []
        return choices[0].get("finish_reason") if choices else None


@dataclass(frozen=True)
class ChatStream:
    """The events of a captured stream, in order, with the facts checks ask about.

    Each fact is found once, on first asking (`cached_property`): the events never change,
    and the checks ask for the chunks and the content events a dozen times a grade, which
    walked every event's choices each time (330 `content` look-ups a grade of a real
    capture). A list is handed out as a fresh copy, so no caller's change reaches another.
    """

    events: tuple[StreamEvent, ...]
    done_terminated: bool  # False when the file ends right after `data: [DONE]` (normal)

    @cached_property
    def answer(self) -> tuple[StreamEvent, ...]:
        """The events a client reads: everything before the first `[DONE]`."""
        for index, event in enumerate(self.events):
            if event.kind == "done":
                return self.events[:index]
        return self.events

    @property
    def chunks(self) -> list[StreamEvent]:
        return list(self._chunks)

    @cached_property
    def _chunks(self) -> tuple[StreamEvent, ...]:
        return tuple(e for e in self.answer if e.kind == "chunk")

    @property
    def content_events(self) -> list[StreamEvent]:
        return list(self._content_events)

    @cached_property
    def _content_events(self) -> tuple[StreamEvent, ...]:
        return tuple(e for e in self._chunks if e.content)

    @cached_property
    def content(self) -> str:
        return "".join(e.content for e in self._content_events)


def _error_problem(line: int, detail: Any, file: str) -> Problem:
    message = detail.get("message") if isinstance(detail, dict) else detail
    return Problem("sse.stream_error", {"detail": str(message)[:200]}, Location(file, line))


def _plain_chunks(
    plain: PlainData,
    decoder: StrictDecoder,
    chunk_schema: SchemaRef,
    cut_down: Callable[[list[Any]], list[Any]] | None,
) -> list[StreamEvent] | None:
    """The events of a plain stream when each is `[DONE]` or a valid chunk, no error,
    else None: what the event by event reading gives such a stream, found with a call
    for all the events where that reading makes one for each (decoding, validating).
    A near-cap stream's 4,096 events took 15 µs each that way."""
    done = [data.strip() == "[DONE]" for data in plain.data]

    def chunks_all(values: list[Any]) -> bool:
        """Whether each value is a chunk (no error sent as data, which is told where it
        is event by event): asked of each batch as it is decoded."""
        return (
            set(map(type, values)) <= {dict}
            and not any(map(dict.__contains__, values, repeat("error")))
            and chunk_schema.all_conform(values)
        )

    values = decoder.decode_all(list(compress(plain.data, map(not_, done))), chunks_all)
    if values is None:
        return None
    chunks = iter(values if cut_down is None else cut_down(values))
    return [
        StreamEvent(line, "done") if is_done else StreamEvent(line, "chunk", next(chunks))
        for line, is_done in zip(plain.lines, done, strict=True)
    ]


def _line_of(event_lines: Callable[[], list[int]]) -> Callable[[str], int | None]:
    """The line of the event a pointer (`/<index>/...`) is in; `event_lines` is asked
    only when a line is first looked up (for a problem, or a check that fails)."""
    lines: dict[str, int] | None = None

    def line_of(pointer: str) -> int | None:
        nonlocal lines
        if lines is None:
            lines = {f"/{i}": line for i, line in enumerate(event_lines())}
        head = "/" + pointer.split("/")[1] if pointer.startswith("/") else ""
        return lines.get(head)

    return line_of


def _event_by_event(
    text: str, file: str, limits: Limits, decoder: StrictDecoder, chunk_schema: SchemaRef
) -> Parsed:
    """What `chat_stream` reads from any stream: each event decoded, validated and told
    apart by itself, each problem found with its line."""
    stream = parse_event_stream(text, max_events=limits["sse_events"])
    cut_down = declared_only(chunk_schema, text)
    problems: list[Problem] = []
    events: list[StreamEvent] = []
    if stream.truncated:
        problems.append(
            Problem("sse.too_many_events", {"limit": limits["sse_events"]}, Location(file))
        )
    for extra in stream.unknown_fields:
        if extra.name == "error":
            problems.append(_error_problem(extra.line, extra.value, file))
    for index, event in enumerate(stream.events):
        if len(problems) >= limits.problems_per_file:
            break  # the stream is invalid either way; its first problems say why
        line = event.data_lines[0] if event.data_lines else event.line
        if event.data.strip() == "[DONE]":
            events.append(StreamEvent(line, "done"))
            continue
        try:
            value = decoder.decode(event.data, file)
        except JsonError as error:
            loc = error.problem.location
            problems.append(
                Problem(
                    error.problem.message_id,
                    error.problem.params,
                    Location(file, line, loc.column if loc else None, f"/{index}"),
                )
            )
            continue
        if event.type == "error" or (isinstance(value, dict) and "error" in value):
            detail = value.get("error", value) if isinstance(value, dict) else value
            problems.append(_error_problem(line, detail, file))
            events.append(StreamEvent(line, "error"))
            continue
        invalid = chunk_schema.validate(value, (index,))
        for problem in invalid:
            pointer = problem.location.pointer if problem.location else None
            problems.append(
                Problem(problem.message_id, problem.params, Location(file, line, None, pointer))
            )
        if cut_down is not None and not invalid:
            value = cut_down(value)  # what the format does not declare, no check reads
        events.append(StreamEvent(line, "chunk", value if isinstance(value, dict) else None))
    if not events and not problems:
        problems.append(Problem("sse.no_events", {}, Location(file, 1)))
    terminated = all(e.terminated for e in stream.events[-1:])
    event_lines = [e.data_lines[0] if e.data_lines else e.line for e in stream.events]
    return Parsed(ChatStream(tuple(events), terminated), problems, _line_of(lambda: event_lines))


def chat_stream(chunk_schema: SchemaRef) -> Parser:
    """A parser for `sse_raw.txt`: SSE, then each data event as a chat completion chunk.

    Of a long stream, each valid chunk keeps only the members its schema declares, as the
    engine's JSON parsers keep theirs (`grader.reading.parsers.declared_only`): 4,096 events
    padded with undeclared members would otherwise stay alive whole, at 8 times their
    text, until the checks ran."""

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        decoder = StrictDecoder(limits.number_digits, limits.json_depth, share_keys=True)
        plain = plain_data(text, limits["sse_events"])
        if plain is not None:
            cut_down = declared_only_all(chunk_schema, text)
            found = _plain_chunks(plain, decoder, chunk_schema, cut_down)
            if found is not None:
                lines = plain.lines  # not the data: the closure keeps what it holds
                stream = ChatStream(tuple(found), plain.last_terminated)
                return Parsed(stream, [], _line_of(lambda: list(lines)))
        return _event_by_event(text, file, limits, decoder, chunk_schema)

    return with_format(parse, chunk_schema, "event")
