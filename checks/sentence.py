"""Step 6: when the first sentence of a streamed answer is complete."""

from __future__ import annotations

import re

from checks.coverage import unconfirmed
from checks.evidence import (
    blocks,
    first_token_fits,
    generation_fits,
    nearest,
    request_params,
)
from checks.numbers import duration_noise
from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer, Number

# A sentence ends at . ! or ? followed by whitespace, so "3.5" and "a.m." don't end one.
SENTENCE_END = re.compile(r"[.!?](?=\s)")


def first_sentence(text: str) -> str:
    """The lab's rule: up to the first [.!?] followed by whitespace, else the whole text."""
    match = SENTENCE_END.search(text)
    return text[: match.end()] if match else text


@check(
    "sentence.in_log",
    reads=("sentence", "log"),
    uses=("sse", "ttft", "prefill", "cache"),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
    params={
        "noise_ms": Number(0, 60_000),
        "noise_share": Number(0, 1),
        "overhead_ms": Number(0, 3_600_000),
        "max_tokens": Integer(1, 1_000_000),
    },
)
def in_log(ctx: Context) -> None:
    """The answer is a request of the server log: at most max_tokens generated, the client's
    time from first token to end agreeing with the server's `eval time` (within noise_ms
    plus noise_share of that time: noise grows with the duration), and a first token
    after the server computed the prompt."""
    s = ctx["sentence"]
    noise, overhead, limit = (
        ctx.param("noise_ms"),
        ctx.param("overhead_ms"),
        ctx.param("max_tokens"),
    )
    if not s["ttft_ms"] < s["total_ms"]:
        return  # an answer ending before its first token is sentence.order's to report
    generated = round(s["total_ms"] - s["ttft_ms"], 3)
    noise = duration_noise(generated, noise, ctx.param("noise_share"))
    log_blocks, eval_window = blocks(ctx["log"]), ctx["log"].eval_window
    # the closest that fits is the first that fits, nearest first (equally close: the
    # earlier in the log)
    best = next(
        (
            t
            for j in eval_window.agreeing(generated, noise)
            if ((t := log_blocks[j]).eval_n or 0) <= limit
            and generation_fits(generated, t, noise)
            and first_token_fits(s["ttft_ms"], t, overhead)
        ),
        None,
    )
    if best is None:
        candidates = [t for t in log_blocks if (t.eval_n or 0) <= limit]
        near = nearest(candidates, None, generated)
        unseen = unconfirmed(ctx, ctx["log"], 6)
        if unseen is not None:  # a log that begins after a restart: missing, not contradicted
            raise Fail("unconfirmed", unconfirmed=True, at=ctx.at("sentence"), **unseen)
        if near is None:
            raise Fail(
                "no_request", expected=f"<= {limit}", found="—", limit=limit, at=ctx.at("sentence")
            )
        raise Fail(
            "absent",
            expected=near.eval_ms,
            found=generated,
            **request_params(near),
            prompt_ms=near.prompt_ms,
            ttft=s["ttft_ms"],
            noise=round(noise, 1),
            at=ctx.at("sentence", "/total_ms"),
        )
    ctx.record(
        task=best.task,
        ttft_ms=s["ttft_ms"],
        first_sentence_ms=s["first_sentence_ms"],
        total_ms=s["total_ms"],
        generation_residual_ms=round(generated - (best.eval_ms or 0), 3),
        first_token_delay_ms=round(s["ttft_ms"] - best.prompt_ms, 3),
    )


@check("sentence.order", reads=("sentence",), confirmed_by=("sentence.in_log",))
def order(ctx: Context) -> None:
    """First token, then the end of the first sentence, then the end of the answer."""
    s = ctx["sentence"]
    if not s["ttft_ms"] <= s["first_sentence_ms"]:
        raise Fail(
            "before_ttft",
            expected=f">= {s['ttft_ms']}",
            limit=s["ttft_ms"],
            found=s["first_sentence_ms"],
            at=ctx.at("sentence", "/first_sentence_ms"),
        )
    if not s["first_sentence_ms"] <= s["total_ms"]:
        raise Fail(
            "after_total",
            expected=f"<= {s['total_ms']}",
            limit=s["total_ms"],
            found=s["first_sentence_ms"],
            at=ctx.at("sentence", "/first_sentence_ms"),
        )


@check("sentence.first_sentence_rule", reads=("sentence",), confirmed_by=("sentence.in_log",))
def first_sentence_rule(ctx: Context) -> None:
    """first_sentence is exactly what the [.!?]-then-whitespace rule cuts from text."""
    s = ctx["sentence"]
    expected = first_sentence(s["text"])
    if s["first_sentence"].strip() != expected.strip():
        raise Fail(
            "wrong",
            expected=expected.strip()[:80],
            found=s["first_sentence"].strip()[:80],
            at=ctx.at("sentence", "/first_sentence"),
        )
