"""Step 6: when the first sentence of a streamed answer is complete."""

from __future__ import annotations

import re

from grader.engine import Context, Fail, check

# A sentence ends at . ! or ? followed by whitespace, so "3.5" and "a.m." don't end one.
SENTENCE_END = re.compile(r"[.!?](?=\s)")


def first_sentence(text: str) -> str:
    """The lab's rule: up to the first [.!?] followed by whitespace, else the whole text."""
    match = SENTENCE_END.search(text)
    return text[: match.end()] if match else text


@check("sentence.order", reads=("sentence",))
def order(ctx: Context) -> None:
    """First token, then the end of the first sentence, then the end of the answer."""
    s = ctx["sentence"]
    if not s["ttft_ms"] <= s["first_sentence_ms"]:
        raise Fail(
            "before_ttft",
            expected=f">= {s['ttft_ms']}",
            found=s["first_sentence_ms"],
            at=ctx.at("sentence", "/first_sentence_ms"),
        )
    if not s["first_sentence_ms"] <= s["total_ms"]:
        raise Fail(
            "after_total",
            expected=f"<= {s['total_ms']}",
            found=s["first_sentence_ms"],
            at=ctx.at("sentence", "/first_sentence_ms"),
        )


@check("sentence.first_sentence_rule", reads=("sentence",))
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
