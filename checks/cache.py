"""Step 5: KV-cache reuse of a repeated prefix, and how a changed first line breaks it."""

from __future__ import annotations

from typing import Any

from checks.numbers import entry_for
from grader.engine import Context, Fail, check
from grader.params import Number


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
    return max(sizes)


@check(
    "cache.first_is_miss",
    reads=("cache",),
    uses=("prefill",),
    params={"min_full_fraction": Number(0, 1)},
)
def first_is_miss(ctx: Context) -> None:
    """The first long request computed the whole prompt (the "hi" request cleared the slot)."""
    first = ctx["cache"]["first"]["prompt_n"]
    full = _full_prompt(ctx)
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
    params={"max_hit_fraction": Number(0, 1), "max_ttft_ratio": Number(0, 1)},
)
def hit_faster(ctx: Context) -> None:
    """The second identical request reused the prefix: few prompt tokens, earlier first token."""
    first, second = ctx["cache"]["first"], ctx["cache"]["second"]
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
    params={"min_recompute_fraction": Number(0, 1)},
)
def prefix_breaks_reuse(ctx: Context) -> None:
    """A new first line made the server recompute about the whole prompt, slower than the hit."""
    cache = ctx["cache"]
    changed, second = cache["changed_prefix"], cache["second"]
    full = _full_prompt(ctx)
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
            found=changed["ttft_ms"],
            at=ctx.at("cache", "/changed_prefix/ttft_ms"),
        )
