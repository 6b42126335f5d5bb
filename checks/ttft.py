"""Step 3: time to first token, five runs with the cache off."""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

from checks.coverage import unconfirmed
from checks.evidence import (
    Window,
    blocks,
    first_token_fits,
    generation_fits,
    match,
    nearest,
    request_params,
)
from checks.formats.llama_log import TaskTiming
from checks.numbers import close, duration_noise, medians
from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer, Number

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@check(
    "ttft.in_log",
    reads=("ttft", "log"),
    uses=("sse", "prefill", "cache", "sentence"),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
    params={
        "noise_ms": Number(0, 60_000),
        "noise_share": Number(0, 1),
        "overhead_ms": Number(0, 3_600_000),
    },
)
def in_log(ctx: Context) -> None:
    """Each of the five runs is a request of the server log: the same number of tokens,
    the client's time from first token to end agreeing with the server's `eval time`, and
    a first token after the server computed the prompt. Five runs, five requests, all
    with the same prompt (one question, sent five times)."""
    runs = [run for run in ctx["ttft"]["runs"] if run["ttft_ms"] < run["total_ms"]]
    # (a run that ends before its first token is no request at all: ttft.before_total's)
    noise_ms, share, overhead = (
        ctx.param("noise_ms"),
        ctx.param("noise_share"),
        ctx.param("overhead_ms"),
    )

    def noise_of(run: dict[str, Any]) -> float:
        """The noise allowed for this run: it grows with its time from first token to end."""
        return duration_noise(run["total_ms"] - run["ttft_ms"], noise_ms, share)

    def cost(run: dict[str, Any], timing: TaskTiming) -> float:
        off: float = abs(run["total_ms"] - run["ttft_ms"] - (timing.eval_ms or 0))
        return off

    def fits(run: dict[str, Any], timing: TaskTiming) -> bool:
        return (
            timing.eval_n == run["tokens"]
            and generation_fits(run["total_ms"] - run["ttft_ms"], timing, noise_of(run))
            and first_token_fits(run["ttft_ms"], timing, overhead)
        )

    def near(window: Window) -> Callable[[dict[str, Any]], Iterator[int]]:
        """The blocks whose `eval time` can agree with a run's time from first token to
        end, nearest first (as `cost` measures)."""
        return lambda run: window.agreeing(run["total_ms"] - run["ttft_ms"], noise_of(run))

    candidates = blocks(ctx["log"])
    by_size: dict[int, list[TaskTiming]] = {}
    for t in candidates:
        by_size.setdefault(t.prompt_n, []).append(t)
    for size in sorted(by_size):  # one question: one prompt size
        group = by_size[size]
        chosen, _ = match(runs, group, fits, cost, near(Window(group, attrgetter("eval_ms"))))
        if chosen is not None:
            ctx.record(
                tasks=[t.task for t in chosen],
                ttft_ms=[run["ttft_ms"] for run in runs],
                total_ms=[run["total_ms"] for run in runs],
                generation_residual_ms=[
                    round(r["total_ms"] - r["ttft_ms"] - (t.eval_ms or 0), 3)
                    for r, t in zip(runs, chosen, strict=True)
                ],
                first_token_delay_ms=[
                    round(r["ttft_ms"] - t.prompt_ms, 3) for r, t in zip(runs, chosen, strict=True)
                ],
            )
            return
    chosen, bad = match(runs, candidates, fits, near=near(ctx["log"].eval_window))
    if chosen is None:
        unseen = unconfirmed(ctx, ctx["log"], 3)
        if unseen is not None:  # a log that begins after a restart: missing, not contradicted
            raise Fail("unconfirmed", unconfirmed=True, at=ctx.at("ttft", "/runs"), **unseen)
        run = runs[bad]
        bad = ctx["ttft"]["runs"].index(run)
        generated = round(run["total_ms"] - run["ttft_ms"], 3)
        closest = nearest(candidates, run["tokens"], generated)
        at = ctx.at("ttft", f"/runs/{bad}/total_ms")
        if any(fits(run, t) for t in candidates):
            raise Fail("shared", found=generated, index=bad, at=at)
        if closest is None:
            raise Fail("no_tokens", expected=run["tokens"], found="—", index=bad, at=at)
        raise Fail(
            "absent",
            expected=closest.eval_ms,
            found=generated,
            index=bad,
            tokens=run["tokens"],
            **request_params(closest),
            prompt_ms=closest.prompt_ms,
            ttft=run["ttft_ms"],
            noise=round(noise_of(run), 1),
            at=at,
        )
    sizes = sorted({t.prompt_n for t in chosen})
    raise Fail(
        "mixed", expected=sizes[0], found=", ".join(map(str, sizes)), at=ctx.at("ttft", "/runs")
    )


@check("ttft.before_total", reads=("ttft",), confirmed_by=("ttft.in_log",))
def before_total(ctx: Context) -> None:
    """In every run, and in the medians, the first token comes before the end."""
    ttft = ctx["ttft"]
    for index, run in enumerate(ttft["runs"]):
        if not run["ttft_ms"] < run["total_ms"]:
            raise Fail(
                "run",
                expected=f"< {run['total_ms']}",
                limit=run["total_ms"],
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


@check(
    "ttft.medians",
    reads=("ttft",),
    confirmed_by=("ttft.in_log",),
    params={"tolerance_ms": Number(0, 60_000)},
)
def p50_are_medians(ctx: Context) -> None:
    """ttft_p50 and total_p50 are the medians (3rd of 5 sorted) of the runs; the p50
    recorded is the student's own (a leaderboard ranks it when this check passed)."""
    ttft = ctx["ttft"]
    ctx.record(ttft_p50=ttft["ttft_p50"], total_p50=ttft["total_p50"])
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
    confirmed_by=("ttft.in_log",),
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
