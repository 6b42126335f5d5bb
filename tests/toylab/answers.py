"""The toy lab's two checks."""

from __future__ import annotations

from grader.engine.api import Context, Fail, Note, check
from grader.engine.params import Integer, Number


@check("answer.correct", reads=("answer",), params={"expected": Integer(0, 1000)})
def correct(ctx: Context) -> Note | None:
    answer = ctx["answer"]
    ctx.record(answer=answer["answer"])
    if answer["answer"] != ctx.param("expected"):
        raise Fail(
            "wrong",
            expected=ctx.param("expected"),
            found=answer["answer"],
            at=ctx.at("answer", "/answer"),
            question=answer["question"],
        )
    return None


@check(
    "answer.quick",
    reads=("answer",),
    after=("answer.correct",),
    params={"max_seconds": Number(0, 3600)},
)
def quick(ctx: Context) -> Note | None:
    seconds = ctx["answer"]["seconds"]
    if seconds > ctx.param("max_seconds"):
        raise Fail("slow", expected=ctx.param("max_seconds"), found=seconds)
    return Note("in_time", {"seconds": seconds})
