"""Step 5: KV-cache reuse of a repeated prefix, and how a changed first line breaks it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from checks.coverage import unconfirmed
from checks.evidence import blocks, first_token_fits, match, match_in_order, request_params
from checks.numbers import entry_for
from checks.prefill import claimed
from grader.engine.api import Context, Fail, check
from grader.engine.params import Number

if TYPE_CHECKING:
    from typing import Any

    from checks.formats.llama_log import TaskTiming

STEPS = ("first", "second", "changed_prefix")


def _full_prompt(ctx: Context) -> int:
    """The long prompt's whole size: the largest recompute seen (changed_prefix, or the
    12-document prefill entry, which holds the same documents)."""
    cache = ctx["cache"]
    sizes = [cache["changed_prefix"]["prompt_n"], cache["first"]["prompt_n"]]
    prefill: Any = ctx.optional("prefill")
    if prefill is not None:
        twelve = entry_for(prefill, 12)
        if twelve is not None:
            sizes.append(twelve[1]["prompt_n"])
    largest: int = max(sizes)  # prompt_n of the JSON files, validated integers
    return largest


@check(
    "cache.in_log",
    reads=("cache", "log"),
    uses=("prefill", "sse", "ttft", "sentence"),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
    params={"overhead_ms": Number(0, 3_600_000)},
)
def in_log(ctx: Context) -> None:
    """first, second and changed_prefix are three requests of the server log, in that
    order: each one's prompt_n is that request's, its first token came after that prefill,
    and none of them is a request prefill.json already accounts for."""
    cache = ctx["cache"]
    log = ctx["log"]
    overhead = ctx.param("overhead_ms")
    taken = claimed(log, ctx.optional("prefill"))
    candidates = [t for t in blocks(log) if t.line not in taken]
    entries = [cache[key] for key in STEPS]

    def fits(entry: dict[str, Any], timing: TaskTiming) -> bool:
        return timing.prompt_n == entry["prompt_n"] and first_token_fits(
            entry["ttft_ms"], timing, overhead
        )

    chosen, bad = match_in_order(entries, candidates, fits)
    if chosen is None:
        unseen = unconfirmed(ctx, log, 5)
        if unseen is not None:  # a log that begins after a restart: missing, not contradicted
            raise Fail("unconfirmed", unconfirmed=True, at=ctx.at("cache"), **unseen)
        if match(entries, candidates, fits)[0] is not None:
            raise Fail("order", expected=", ".join(STEPS), found="—", at=ctx.at("cache"))
        key, entry = STEPS[bad], entries[bad]
        same = [t for t in candidates if t.prompt_n == entry["prompt_n"]]
        if not same:
            in_prefill = any(t.prompt_n == entry["prompt_n"] for t in blocks(log))
            raise Fail(
                "prefill_request" if in_prefill else "no_prompt",
                expected=entry["prompt_n"],
                found="—",
                key=key,
                at=ctx.at("cache", f"/{key}/prompt_n"),
            )
        near = min(same, key=lambda t: abs(t.prompt_ms - entry["ttft_ms"]))
        raise Fail(
            "ttft",
            expected=f"{near.prompt_ms}..{round(near.prompt_ms + overhead, 2)}",
            found=entry["ttft_ms"],
            key=key,
            prompt_ms=near.prompt_ms,
            limit=round(near.prompt_ms + overhead, 2),
            **request_params(near),
            at=ctx.at("cache", f"/{key}/ttft_ms"),
        )
    ctx.record(
        tasks=[t.task for t in chosen],
        prompt_n=[e["prompt_n"] for e in entries],
        ttft_ms=[e["ttft_ms"] for e in entries],
        first_token_delay_ms=[
            round(e["ttft_ms"] - t.prompt_ms, 3) for e, t in zip(entries, chosen, strict=True)
        ],
    )


@check(
    "cache.first_is_miss",
    reads=("cache",),
    uses=("prefill",),
    confirmed_by=("cache.in_log",),
    params={"min_full_fraction": Number(0, 1)},
)
def first_is_miss(ctx: Context) -> None:
    """The first long request computed the whole prompt (the "hi" request cleared the slot)."""
    first = ctx["cache"]["first"]["prompt_n"]
    full = _full_prompt(ctx)
    ctx.record(first_share=round(first / full, 4))
    if first < ctx.param("min_full_fraction") * full:
        raise Fail(
            "reused",
            expected=f">= {round(ctx.param('min_full_fraction') * full)}",
            found=first,
            full=full,
            at=ctx.at("cache", "/first/prompt_n"),
        )


@check(
    "cache.hit_faster",
    reads=("cache",),
    after=("cache.first_is_miss",),
    confirmed_by=("cache.in_log",),
    params={"max_hit_fraction": Number(0, 1), "max_ttft_ratio": Number(0, 1)},
)
def hit_faster(ctx: Context) -> None:
    """The second identical request reused the prefix: few prompt tokens, earlier first token."""
    first, second = ctx["cache"]["first"], ctx["cache"]["second"]
    ctx.record(
        hit_share=round(second["prompt_n"] / first["prompt_n"], 4),
        ttft_ratio=round(second["ttft_ms"] / first["ttft_ms"], 4) if first["ttft_ms"] else None,
    )
    limit = ctx.param("max_hit_fraction") * first["prompt_n"]
    if second["prompt_n"] > limit:
        raise Fail(
            "not_reused",
            expected=f"<= {round(limit)}",
            found=second["prompt_n"],
            first=first["prompt_n"],
            at=ctx.at("cache", "/second/prompt_n"),
        )
    if not second["ttft_ms"] < ctx.param("max_ttft_ratio") * first["ttft_ms"]:
        raise Fail(
            "not_faster",
            expected=f"< {round(ctx.param('max_ttft_ratio') * first['ttft_ms'], 3)}",
            found=second["ttft_ms"],
            first=first["ttft_ms"],
            at=ctx.at("cache", "/second/ttft_ms"),
        )


@check(
    "cache.prefix_breaks_reuse",
    reads=("cache",),
    uses=("prefill",),
    confirmed_by=("cache.in_log",),
    params={"min_recompute_fraction": Number(0, 1)},
)
def prefix_breaks_reuse(ctx: Context) -> None:
    """A new first line made the server recompute about the whole prompt, slower than the hit."""
    cache = ctx["cache"]
    changed, second = cache["changed_prefix"], cache["second"]
    full = _full_prompt(ctx)
    ctx.record(recompute_share=round(changed["prompt_n"] / full, 4))
    needed = ctx.param("min_recompute_fraction") * full
    if changed["prompt_n"] < needed:
        raise Fail(
            "reused",
            expected=f">= {round(needed)}",
            found=changed["prompt_n"],
            full=full,
            at=ctx.at("cache", "/changed_prefix/prompt_n"),
        )
    if not changed["ttft_ms"] > second["ttft_ms"]:
        raise Fail(
            "not_slower",
            expected=f"> {second['ttft_ms']}",
            limit=second["ttft_ms"],
            found=changed["ttft_ms"],
            at=ctx.at("cache", "/changed_prefix/ttft_ms"),
        )
