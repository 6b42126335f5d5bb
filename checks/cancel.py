"""Step 7: closing the connection is how a client says stop."""

from __future__ import annotations

from typing import Any

from checks.numbers import medians
from grader.engine import Context, Fail, check
from grader.params import Integer, Number


@check(
    "cancel.interrupted",
    reads=("cancel",),
    params={
        "max_tokens": Integer(1, 1_000_000),
        "close_min_ms": Number(0, 3_600_000),
        "close_max_ms": Number(0, 3_600_000),
    },
)
def interrupted(ctx: Context) -> None:
    """The long answer was cut off: some tokens but not all, closed at about 0.5 s."""
    c = ctx["cancel"]
    if c["max_tokens"] != ctx.param("max_tokens"):
        raise Fail(
            "max_tokens",
            expected=ctx.param("max_tokens"),
            found=c["max_tokens"],
            at=ctx.at("cancel", "/max_tokens"),
        )
    if not 0 < c["received_tokens"] < c["max_tokens"]:
        raise Fail(
            "received",
            expected=f"1..{c['max_tokens'] - 1}",
            found=c["received_tokens"],
            at=ctx.at("cancel", "/received_tokens"),
        )
    low, high = ctx.param("close_min_ms"), ctx.param("close_max_ms")
    if not low <= c["closed_at_ms"] <= high:
        raise Fail(
            "close_time",
            expected=f"{low}..{high}",
            found=c["closed_at_ms"],
            at=ctx.at("cancel", "/closed_at_ms"),
        )


def decode_ms_per_token(ttft: Any, sse: Any, cancel: Any) -> tuple[float, str]:
    """This run's own generation speed, from the best evidence the submission has.

    ttft.json's five runs first (median of (total - ttft) / (tokens - 1)), then the SSE
    capture's timings, then the cancelled request itself (which includes its prefill, so
    it errs on the slow side and can only make the check more lenient).
    """
    if ttft is not None:
        rates = [
            (r["total_ms"] - r["ttft_ms"]) / (r["tokens"] - 1)
            for r in ttft["runs"]
            if r["tokens"] > 1
        ]
        rates = [r for r in rates if r > 0]
        if rates:
            return medians(rates)[0], "ttft.json"
    if sse is not None:
        for event in reversed(sse.chunks):
            timings = (event.chunk or {}).get("timings") or {}
            if timings.get("predicted_n") and timings.get("predicted_ms"):
                return timings["predicted_ms"] / timings["predicted_n"], "sse_raw.txt"
    return cancel["closed_at_ms"] / max(cancel["received_tokens"], 1), "cancel.json"


@check(
    "cancel.slot_freed",
    reads=("cancel",),
    uses=("ttft", "sse"),
    params={"max_idle_fraction": Number(0, 1)},
)
def slot_freed(ctx: Context) -> None:
    """The slot went idle soon after the close, not after generating the rest of the answer."""
    c = ctx["cancel"]
    per_token, source = decode_ms_per_token(ctx.optional("ttft"), ctx.optional("sse"), c)
    rest_ms = max(c["max_tokens"] - c["received_tokens"], 1) * per_token
    limit = ctx.param("max_idle_fraction") * rest_ms
    if c["slot_idle_after_ms"] > limit:
        raise Fail(
            "busy",
            expected=f"<= {round(limit, 1)}",
            found=c["slot_idle_after_ms"],
            rest_ms=round(rest_ms, 1),
            per_token=round(per_token, 2),
            source=source,
            at=ctx.at("cancel", "/slot_idle_after_ms"),
        )
