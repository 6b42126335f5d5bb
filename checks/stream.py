"""Step 2: the raw SSE capture and the content chunks the client kept from it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from checks.coverage import unconfirmed
from checks.evidence import agree, blocks, request_params, resolution
from checks.formats.chat_stream import ChatStream
from checks.formats.llama_log import ServerLog
from checks.numbers import duration_noise
from grader.engine.api import Context, Fail, Note, check
from grader.engine.params import Integer, Number

if TYPE_CHECKING:
    from typing import Any

TIMING_KEYS = ("prompt_n", "prompt_ms", "predicted_n")


def final_timings(stream: ChatStream) -> dict[str, Any] | None:
    """The `timings` of the stream's last chunk, as llama-server sends them there."""
    chunks = stream.chunks
    timings = (chunks[-1].chunk or {}).get("timings") if chunks else None
    return timings if isinstance(timings, dict) else None


def _number(timings: dict[str, Any], key: str) -> float | None:
    value = timings.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


@check(
    "sse.in_log",
    reads=("sse", "log"),
    uses=("ttft", "prefill", "cache", "sentence"),
    after=("sse.timings_final",),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
)
def in_log(ctx: Context) -> None:
    """The stream's final timings are those of one request of the server log: the same
    prompt_n and predicted_n, the same prompt_ms and predicted_ms to the log's precision."""
    timings = final_timings(ctx["sse"]) or {}
    prompt_n, predicted_n = timings.get("prompt_n"), timings.get("predicted_n")
    prompt_ms, predicted_ms = _number(timings, "prompt_ms"), _number(timings, "predicted_ms")
    log: ServerLog = ctx["log"]
    same = [t for t in blocks(log) if t.prompt_n == prompt_n and t.eval_n == predicted_n]
    at = ctx.at("sse", line=ctx["sse"].chunks[-1].line)
    if not same:
        unseen = unconfirmed(ctx, log, 2)
        if unseen is not None:  # a log that begins after a restart: missing, not contradicted
            raise Fail(
                "unconfirmed",
                unconfirmed=True,
                expected=f"{prompt_n} + {predicted_n}",
                at=at,
                **unseen,
            )
        raise Fail(
            "absent",
            expected=f"{prompt_n} + {predicted_n}",
            found="—",
            prompt_n=str(prompt_n),
            predicted_n=str(predicted_n),
            at=at,
        )
    for t in same:
        if (prompt_ms is None or agree(prompt_ms, t.prompt_ms)) and (
            predicted_ms is None or t.eval_ms is None or agree(predicted_ms, t.eval_ms)
        ):
            ctx.record(task=t.task, prompt_n=prompt_n, predicted_n=predicted_n)
            return
    near = same[0]
    raise Fail(
        "times",
        expected=f"{near.prompt_ms} + {near.eval_ms}",
        found=f"{prompt_ms} + {predicted_ms}",
        **request_params(near),
        at=at,
    )


def _ids(stream: ChatStream, key: str) -> list[Any]:
    seen: list[Any] = []
    for event in stream.chunks:
        value = (event.chunk or {}).get(key)
        if value is not None and value not in seen:
            seen.append(value)
    return seen


@check(
    "sse.one_response",
    reads=("sse",),
    uses=("props",),
    params={"created_slack_s": Integer(0, 3600), "min_content_fraction": Number(0, 1)},
)
def one_response(ctx: Context) -> None:
    """The capture is one response of this server: one chatcmpl id, `created` (seconds)
    never going back and ticking no longer than the stream lasted, the build props.json
    names as its fingerprint, and about one content event per generated token."""
    stream: ChatStream = ctx["sse"]
    ids = _ids(stream, "id")
    ctx.record(ids=[str(i) for i in ids])
    if len(ids) > 1:
        raise Fail("ids", expected=1, found=len(ids), first=str(ids[0])[:60], at=ctx.at("sse"))
    created = [
        stamp for e in stream.chunks if isinstance(stamp := (e.chunk or {}).get("created"), int)
    ]
    for index in range(1, len(created)):
        if created[index] < created[index - 1]:
            raise Fail(
                "created_back",
                expected=f">= {created[index - 1]}",
                found=created[index],
                at=ctx.at("sse"),
            )
    timings = final_timings(stream) or {}
    lasted = (_number(timings, "prompt_ms") or 0) + (_number(timings, "predicted_ms") or 0)
    if created and timings:
        allowed = math.ceil(lasted / 1000) + ctx.param("created_slack_s")
        ctx.record(created_span_s=created[-1] - created[0], lasted_s=round(lasted / 1000, 3))
        if created[-1] - created[0] > allowed:
            raise Fail(
                "created_span",
                expected=f"<= {allowed}",
                found=created[-1] - created[0],
                at=ctx.at("sse"),
            )
    props = ctx.optional("props")
    build = props.get("build_info") if isinstance(props, dict) else None
    fingerprints = _ids(stream, "system_fingerprint")
    if isinstance(build, str) and fingerprints and any(f != build for f in fingerprints):
        wrong = next(f for f in fingerprints if f != build)
        raise Fail("fingerprint", expected=build, found=str(wrong)[:60], at=ctx.at("sse"))
    predicted = timings.get("predicted_n")
    if isinstance(predicted, int) and not isinstance(predicted, bool) and predicted > 0:
        content = len(stream.content_events)
        ctx.record(content_per_token=round(content / predicted, 4))
        low = math.floor(ctx.param("min_content_fraction") * predicted)
        if not low <= content <= predicted:
            raise Fail(
                "count",
                expected=f"{low}..{predicted}",
                found=content,
                predicted=predicted,
                at=ctx.at("sse"),
            )


def _counts_with_n_tokens(log: ServerLog | None) -> bool:
    """The log's releases count `n_tokens`: a build from after Oct 2025, long after llama.cpp
    PR 13634 (May 2025) restored the role-only first chunk."""
    return log is not None and any(r.counter == "n_tokens" for r in log.releases)


@check(
    "sse.role_chunk_first",
    reads=("sse",),
    uses=("log",),
    confirmed_by=("sse.in_log", "sse.one_response"),
)
def role_chunk_first(ctx: Context) -> Note | None:
    """The first data event carries the role and no content, so the capture is the whole
    stream. Builds from Jan 2024 to May 2025 sent no role-only chunk at all; from such a
    server, a stream whose content events match predicted_n is whole without one."""
    stream: ChatStream = ctx["sse"]
    chunks = stream.chunks
    if not chunks:
        raise Fail("no_chunks", at=ctx.at("sse", line=1))
    first = chunks[0]
    if isinstance(first.delta.get("role"), str) and not first.content:
        return None
    at = ctx.at("sse", line=first.line)
    if _counts_with_n_tokens(ctx.optional("log")):
        key = (
            "has_content"
            if first.content and isinstance(first.delta.get("role"), str)
            else "no_role"
        )
        raise Fail(key, expected="delta.role", found=first.content[:40], line=first.line, at=at)
    return Note("no_role_era", {"line": first.line, "events": len(stream.content_events)})


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


@check(
    "chunks.in_stream",
    reads=("chunks", "sse"),
    confirmed_by=("sse.in_log",),
    params={"noise_ms": Number(0, 60_000), "noise_share": Number(0, 1)},
)
def in_stream(ctx: Context) -> None:
    """The client's fragment times are this stream's: the first after the server computed
    the prompt, the last as long after it as the server says it generated."""
    texts = [(i, r) for i, r in enumerate(ctx["chunks"]) if r["text"]]
    timings = final_timings(ctx["sse"]) or {}
    prompt_ms, predicted_ms = _number(timings, "prompt_ms"), _number(timings, "predicted_ms")
    if not texts or prompt_ms is None:
        return
    (first_index, first), (last_index, last) = texts[0], texts[-1]
    if first["t_ms"] + resolution(first["t_ms"]) + resolution(prompt_ms) < prompt_ms:
        raise Fail(
            "early",
            expected=f">= {prompt_ms}",
            found=first["t_ms"],
            prompt_ms=prompt_ms,
            at=ctx.at("chunks", f"/{first_index}/t_ms"),
        )
    if predicted_ms is not None and len(texts) > 1:
        span = round(last["t_ms"] - first["t_ms"], 3)
        ctx.record(span_residual_ms=round(span - predicted_ms, 3))
        noise = duration_noise(span, ctx.param("noise_ms"), ctx.param("noise_share"))
        if not agree(span, predicted_ms, noise):
            raise Fail(
                "span",
                expected=predicted_ms,
                found=span,
                at=ctx.at("chunks", f"/{last_index}/t_ms"),
            )


@check("chunks.role_chunk_excluded", reads=("chunks", "sse"), confirmed_by=("sse.in_log",))
def role_chunk_excluded(ctx: Context) -> None:
    """chunks.jsonl holds only content fragments: one per content event of the stream."""
    records = ctx["chunks"]
    for index, record in enumerate(records):
        if record["text"] == "":
            raise Fail(
                "empty_text",
                expected='text != ""',
                found='""',
                index=index,
                at=ctx.at("chunks", f"/{index}/text"),
            )
    expected = len(ctx["sse"].content_events)
    if len(records) != expected:
        raise Fail("count", expected=expected, found=len(records), at=ctx.at("chunks", line=1))


@check("chunks.match_sse", reads=("chunks", "sse"), confirmed_by=("sse.in_log",))
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


@check("chunks.time_order", reads=("chunks",), confirmed_by=("sse.in_log",))
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
