"""Step 4: prefill grows with the prompt (0, 4 and 12 KB documents, cache off)."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from checks.coverage import unconfirmed
from checks.evidence import (
    agree,
    blocks,
    match,
    request_params,
    resolution,
)
from checks.formats.llama_log import ServerLog, TaskTiming
from checks.numbers import entry_for
from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer, ListOf, Number

if TYPE_CHECKING:
    from typing import Any


def prefill_fits(entry: dict[str, Any], timing: TaskTiming, overhead_ms: float) -> bool:
    """The request of the log that produced `entry`: its prompt_n and prompt_ms, as the
    stream's timings gave them to the client, and a first token not long after that
    prefill. (A first token *before* it is prefill.ttft_covers_prefill's to report.)"""
    return (
        timing.prompt_n == entry["prompt_n"]
        and agree(timing.prompt_ms, entry["prompt_ms"])
        and entry["ttft_ms"] <= timing.prompt_ms + overhead_ms + resolution(entry["ttft_ms"])
    )


def claimed(log: ServerLog, entries: list[dict[str, Any]] | None) -> set[int]:
    """Lines of the timing blocks prefill.json's entries copied their numbers from (a
    request's prompt_n and prompt_ms identify it: no tolerance beyond rounding)."""
    if not entries:
        return set()
    candidates, window = blocks(log), log.prompt_window
    return {
        candidates[j].line
        for e in entries
        for j in window.agreeing(e["prompt_ms"])
        if candidates[j].prompt_n == e["prompt_n"]
        and agree(candidates[j].prompt_ms, e["prompt_ms"])
    }


@check(
    "prefill.in_log",
    reads=("prefill", "log"),
    uses=("sse", "ttft", "cache", "sentence"),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
    params={"overhead_ms": Number(0, 3_600_000)},
)
def in_log(ctx: Context) -> None:
    """Each entry is a request of the server log: its prompt_n and prompt_ms are that
    request's, and its first token came after that prefill."""
    entries = ctx["prefill"]
    overhead = ctx.param("overhead_ms")
    candidates, window = blocks(ctx["log"]), ctx["log"].prompt_window
    chosen, bad = match(
        entries,
        candidates,
        lambda e, t: prefill_fits(e, t, overhead),
        lambda e, t: abs(e["prompt_ms"] - t.prompt_ms),
        lambda e: window.agreeing(e["prompt_ms"]),
    )
    if chosen is None:
        unseen = unconfirmed(ctx, ctx["log"], 4)
        if unseen is not None:  # a log that begins after a restart: missing, not contradicted
            raise Fail("unconfirmed", unconfirmed=True, at=ctx.at("prefill"), **unseen)
        entry = entries[bad]
        same = [t for t in candidates if t.prompt_n == entry["prompt_n"]]
        at = ctx.at("prefill", f"/{bad}/prompt_n")
        if not same:
            raise Fail(
                "no_prompt", expected=entry["prompt_n"], found="—", docs=entry["docs"], at=at
            )
        near = min(same, key=lambda t: abs(t.prompt_ms - entry["prompt_ms"]))
        if not agree(near.prompt_ms, entry["prompt_ms"]):
            raise Fail(
                "prompt_ms",
                expected=near.prompt_ms,
                found=entry["prompt_ms"],
                docs=entry["docs"],
                **request_params(near),
                at=ctx.at("prefill", f"/{bad}/prompt_ms"),
            )
        if not prefill_fits(entry, near, overhead):
            raise Fail(
                "ttft",
                expected=f"<= {round(near.prompt_ms + overhead, 2)}",
                found=entry["ttft_ms"],
                docs=entry["docs"],
                **request_params(near),
                prompt_ms=near.prompt_ms,
                limit=round(near.prompt_ms + overhead, 2),
                at=ctx.at("prefill", f"/{bad}/ttft_ms"),
            )
        raise Fail("shared", found=entry["prompt_n"], docs=entry["docs"], at=at)
    ctx.record(
        tasks=[t.task for t in chosen],
        docs=[e["docs"] for e in entries],
        prompt_n=[e["prompt_n"] for e in entries],
        prompt_ms=[e["prompt_ms"] for e in entries],
        ttft_ms=[e["ttft_ms"] for e in entries],
        first_token_delay_ms=[
            round(e["ttft_ms"] - t.prompt_ms, 3) for e, t in zip(entries, chosen, strict=True)
        ],
    )


@check(
    "prefill.doc_counts",
    reads=("prefill",),
    confirmed_by=("prefill.in_log",),
    params={"docs": ListOf(Integer(0, 10_000), 1, 100)},
)
def doc_counts(ctx: Context) -> None:
    """One entry each for 0, 4 and 12 documents, in that order."""
    expected = list(ctx.param("docs"))
    found = [entry["docs"] for entry in ctx["prefill"]]
    if found != expected:
        raise Fail("wrong", expected=str(expected), found=str(found), at=ctx.at("prefill", ""))


@check("prefill.grows_with_docs", reads=("prefill",), confirmed_by=("prefill.in_log",))
def grows_with_docs(ctx: Context) -> None:
    """prompt_n and ttft_ms both grow from 0 to 4 to 12 documents."""
    indexed = sorted(enumerate(ctx["prefill"]), key=lambda pair: pair[1]["docs"])
    for (_, before), (index, after) in pairwise(indexed):
        for key in ("prompt_n", "ttft_ms"):
            if not after[key] > before[key]:
                raise Fail(
                    "flat",
                    expected=f"> {before[key]}",
                    found=after[key],
                    key=key,
                    docs=after["docs"],
                    previous_docs=before["docs"],
                    at=ctx.at("prefill", f"/{index}/{key}"),
                )


@check(
    "prefill.ttft_covers_prefill",
    reads=("prefill",),
    confirmed_by=("prefill.in_log",),
    params={"tolerance_ms": Number(0, 60_000)},
)
def ttft_covers_prefill(ctx: Context) -> None:
    """The client's first token includes the server's prefill: ttft_ms >= prompt_ms."""
    slack = ctx.param("tolerance_ms")
    for index, entry in enumerate(ctx["prefill"]):
        if entry["ttft_ms"] + slack < entry["prompt_ms"]:
            raise Fail(
                "short",
                expected=f">= {entry['prompt_ms']}",
                limit=entry["prompt_ms"],
                found=entry["ttft_ms"],
                docs=entry["docs"],
                at=ctx.at("prefill", f"/{index}/ttft_ms"),
            )


def _full_size_from_log(log: ServerLog, entry: dict[str, Any]) -> int | None:
    """The whole prompt size of the task that produced `entry`, from the server log."""
    for timing in log.timings:
        if timing.prompt_n == entry["prompt_n"] and agree(timing.prompt_ms, entry["prompt_ms"]):
            return log.full_prompt_tokens(timing)
    return None


@check(
    "prefill.cache_off",
    reads=("prefill",),
    uses=("log", "cache"),
    confirmed_by=("prefill.in_log",),
    params={
        "all_docs": Integer(0, 10_000),
        "min_full_fraction": Number(0, 1),
        "min_cache_prompt_fraction": Number(0, 1),
        "min_prompt_tokens": Integer(0, 10_000_000),
    },
)
def cache_off(ctx: Context) -> None:
    """prompt_n counts whole prompts, not the remainder a warm KV cache left to compute.

    Evidence, strongest first: the server log's slot release line gives each task's whole
    prompt size; cache.json's long prompt holds the same 12 documents; and no chat prompt
    with a system message and a question is as short as a few tokens.
    """
    entries = ctx["prefill"]
    log = ctx.optional("log")
    fulls = [_full_size_from_log(log, e) if log is not None else None for e in entries]
    shares = [e["prompt_n"] / f for e, f in zip(entries, fulls, strict=True) if f]
    ctx.record(
        whole_prompt_share=round(min(shares), 4) if shares else None,
        smallest_prompt_n=min(e["prompt_n"] for e in entries),
    )
    if log is not None:
        for index, (entry, full) in enumerate(zip(entries, fulls, strict=True)):
            if full is not None and entry["prompt_n"] < ctx.param("min_full_fraction") * full:
                raise Fail(
                    "log",
                    expected=full,
                    found=entry["prompt_n"],
                    docs=entry["docs"],
                    at=ctx.at("prefill", f"/{index}/prompt_n"),
                )
    cache = ctx.optional("cache")
    twelve = entry_for(entries, ctx.param("all_docs"))
    if cache is not None and twelve is not None:
        index, entry = twelve
        reference = max(cache["first"]["prompt_n"], cache["changed_prefix"]["prompt_n"])
        ctx.record(cache_prompt_share=round(entry["prompt_n"] / reference, 4))
        if entry["prompt_n"] < ctx.param("min_cache_prompt_fraction") * reference:
            raise Fail(
                "vs_cache",
                expected=f">= {round(ctx.param('min_cache_prompt_fraction') * reference)}",
                found=entry["prompt_n"],
                reference=reference,
                docs=entry["docs"],
                at=ctx.at("prefill", f"/{index}/prompt_n"),
            )
    for index, entry in enumerate(entries):
        if entry["prompt_n"] < ctx.param("min_prompt_tokens"):
            raise Fail(
                "tiny",
                expected=f">= {ctx.param('min_prompt_tokens')}",
                found=entry["prompt_n"],
                docs=entry["docs"],
                at=ctx.at("prefill", f"/{index}/prompt_n"),
            )
