"""Step 3: time to first token, five runs with the cache off."""

from __future__ import annotations

from checks.numbers import close, medians
from grader.engine import Context, Fail, check
from grader.params import Integer, Number


@check("ttft.before_total", reads=("ttft",))
def before_total(ctx: Context) -> None:
    """In every run, and in the medians, the first token comes before the end."""
    ttft = ctx["ttft"]
    for index, run in enumerate(ttft["runs"]):
        if not run["ttft_ms"] < run["total_ms"]:
            raise Fail(
                "run",
                expected=f"< {run['total_ms']}",
                found=run["ttft_ms"],
                index=index,
                at=ctx.at("ttft", f"/runs/{index}/ttft_ms"),
            )
    if not ttft["ttft_p50"] < ttft["total_p50"]:
        raise Fail(
            "p50",
            expected=f"< {ttft['total_p50']}",
            found=ttft["ttft_p50"],
            at=ctx.at("ttft", "/ttft_p50"),
        )


@check("ttft.medians", reads=("ttft",), params={"tolerance_ms": Number(0, 60_000)})
def p50_are_medians(ctx: Context) -> None:
    """ttft_p50 and total_p50 are the medians (3rd of 5 sorted) of the runs."""
    ttft = ctx["ttft"]
    for key, field in (("ttft_p50", "ttft_ms"), ("total_p50", "total_ms")):
        candidates = medians([run[field] for run in ttft["runs"]])
        if not any(close(ttft[key], m, ctx.param("tolerance_ms")) for m in candidates):
            raise Fail(
                "wrong",
                expected=candidates[0],
                found=ttft[key],
                key=key,
                field=field,
                at=ctx.at("ttft", f"/{key}"),
            )


@check(
    "ttft.tokens",
    reads=("ttft",),
    params={"runs": Integer(1, 1000), "max_tokens": Integer(1, 1_000_000)},
)
def tokens(ctx: Context) -> None:
    """Five runs, each with 1..max_tokens generated tokens."""
    runs = ctx["ttft"]["runs"]
    if len(runs) != ctx.param("runs"):
        raise Fail("count", expected=ctx.param("runs"), found=len(runs), at=ctx.at("ttft", "/runs"))
    limit = ctx.param("max_tokens")
    for index, run in enumerate(runs):
        if not 1 <= run["tokens"] <= limit:
            raise Fail(
                "range",
                expected=f"1..{limit}",
                found=run["tokens"],
                index=index,
                limit=limit,
                at=ctx.at("ttft", f"/runs/{index}/tokens"),
            )
