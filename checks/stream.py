"""Step 2: the raw SSE capture and the content chunks the client kept from it."""

from __future__ import annotations

from grader.engine import Context, Fail, check
from grader.formats.chat_stream import ChatStream

TIMING_KEYS = ("prompt_n", "prompt_ms", "predicted_n")


@check("sse.role_chunk_first", reads=("sse",))
def role_chunk_first(ctx: Context) -> None:
    """The first data event carries the role and no content."""
    stream: ChatStream = ctx["sse"]
    chunks = stream.chunks
    if not chunks:
        raise Fail("no_chunks", at=ctx.at("sse", line=1))
    first = chunks[0]
    if not isinstance(first.delta.get("role"), str):
        raise Fail(
            "no_role",
            expected="delta.role",
            found=first.content[:40],
            at=ctx.at("sse", line=first.line),
        )
    if first.content:
        raise Fail(
            "has_content", expected="", found=first.content[:40], at=ctx.at("sse", line=first.line)
        )


@check("sse.content_streamed", reads=("sse",))
def content_streamed(ctx: Context) -> None:
    """At least one content event arrived, and the stream ends with [DONE]."""
    stream: ChatStream = ctx["sse"]
    if not stream.content_events:
        raise Fail("no_content", expected=">= 1", found=0, at=ctx.at("sse", line=1))
    done = [i for i, e in enumerate(stream.events) if e.kind == "done"]
    if not done:
        last = stream.events[-1]
        raise Fail(
            "no_done",
            expected="data: [DONE]",
            found="EOF",
            at=ctx.at("sse", line=last.line),
        )
    if done[0] != len(stream.events) - 1:
        after = stream.events[done[0] + 1]
        raise Fail(
            "after_done",
            found=len(stream.events) - 1 - done[0],
            done_line=stream.events[done[0]].line,
            at=ctx.at("sse", line=after.line),
        )


@check("sse.timings_final", reads=("sse",))
def timings_final(ctx: Context) -> None:
    """The final chunk carries llama-server's timings (prompt_n, prompt_ms, predicted_n)."""
    stream: ChatStream = ctx["sse"]
    chunks = stream.chunks
    if not chunks:
        raise Fail("no_chunks", at=ctx.at("sse", line=1))
    last = chunks[-1]
    timings = (last.chunk or {}).get("timings")
    if not isinstance(timings, dict):
        raise Fail("missing", expected="timings", found="—", at=ctx.at("sse", line=last.line))
    missing = [k for k in TIMING_KEYS if k not in timings]
    if missing:
        raise Fail(
            "keys",
            expected=", ".join(TIMING_KEYS),
            found=", ".join(sorted(timings)) or "{}",
            key=missing[0],
            at=ctx.at("sse", line=last.line),
        )


@check("chunks.role_chunk_excluded", reads=("chunks", "sse"))
def role_chunk_excluded(ctx: Context) -> None:
    """chunks.jsonl holds only content fragments: one per content event of the stream."""
    records = ctx["chunks"]
    for index, record in enumerate(records):
        if record["text"] == "":
            raise Fail(
                "empty_text",
                expected='"text" not empty',
                found='""',
                index=index,
                at=ctx.at("chunks", f"/{index}/text"),
            )
    expected = len(ctx["sse"].content_events)
    if len(records) != expected:
        raise Fail("count", expected=expected, found=len(records), at=ctx.at("chunks", line=1))


@check("chunks.match_sse", reads=("chunks", "sse"))
def match_sse(ctx: Context) -> None:
    """The fragments, joined, are exactly the streamed content."""
    joined = "".join(r["text"] for r in ctx["chunks"])
    streamed: str = ctx["sse"].content
    if joined == streamed:
        return
    offset = next(
        (i for i, (a, b) in enumerate(zip(joined, streamed, strict=False)) if a != b),
        min(len(joined), len(streamed)),
    )
    consumed, index = 0, 0
    for index, record in enumerate(ctx["chunks"]):  # noqa: B007 - index is used after the loop
        consumed += len(record["text"])
        if consumed > offset:
            break
    raise Fail(
        "differs",
        expected=streamed[offset : offset + 20],
        found=joined[offset : offset + 20],
        offset=offset,
        at=ctx.at("chunks", f"/{index}/text"),
    )


@check("chunks.time_order", reads=("chunks",))
def time_order(ctx: Context) -> None:
    """Every t_ms is positive and none is earlier than the one before."""
    previous = 0.0
    for index, record in enumerate(ctx["chunks"]):
        t_ms = record["t_ms"]
        if t_ms <= 0:
            raise Fail(
                "not_positive",
                expected="> 0",
                found=t_ms,
                index=index,
                at=ctx.at("chunks", f"/{index}/t_ms"),
            )
        if t_ms < previous:
            raise Fail(
                "decreasing",
                expected=f">= {previous}",
                found=t_ms,
                index=index,
                at=ctx.at("chunks", f"/{index}/t_ms"),
            )
        previous = t_ms
