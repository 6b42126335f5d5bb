"""Step 4: prefill grows with the prompt (0, 4 and 12 KB documents, cache off)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from checks.numbers import entry_for
from grader.engine import Context, Fail, check
from grader.params import Integer, ListOf, Number


@check(
    "prefill.doc_counts",
    reads=("prefill",),
    params={"docs": ListOf(Integer(0, 10_000), 1, 100)},
)
def doc_counts(ctx: Context) -> None:
    """One entry each for 0, 4 and 12 documents, in that order."""
    expected = list(ctx.param("docs"))
    found = [entry["docs"] for entry in ctx["prefill"]]
    if found != expected:
        raise Fail("wrong", expected=str(expected), found=str(found), at=ctx.at("prefill", ""))


@check("prefill.grows_with_docs", reads=("prefill",))
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
                found=entry["ttft_ms"],
                docs=entry["docs"],
                at=ctx.at("prefill", f"/{index}/ttft_ms"),
            )


def _full_size_from_log(log: Any, entry: dict[str, Any], tolerance_ms: float) -> int | None:
    """The whole prompt size of the task that produced `entry`, from the server log."""
    for timing in log.timings:
        if (
            timing.prompt_n == entry["prompt_n"]
            and abs(timing.prompt_ms - entry["prompt_ms"]) <= tolerance_ms
        ):
            return log.full_prompt_tokens(timing)
    return None


@check(
    "prefill.cache_off",
    reads=("prefill",),
    uses=("log", "cache"),
    params={
        "all_docs": Integer(0, 10_000),
        "min_full_fraction": Number(0, 1),
        "log_tolerance_ms": Number(0, 60_000),
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
    if log is not None:
        for index, entry in enumerate(entries):
            full = _full_size_from_log(log, entry, ctx.param("log_tolerance_ms"))
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
