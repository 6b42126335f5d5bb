"""The server's own log: evidence of the cancellation and of the measured numbers."""

from __future__ import annotations

from typing import Any

from grader.engine import Context, Fail, Note, check
from grader.params import Number


@check("log.cancel_task", reads=("log",))
def cancel_task(ctx: Context) -> None:
    """The server logged `cancel task` for the request the client closed."""
    log = ctx["log"]
    if not log.cancels:
        raise Fail(
            "missing",
            expected="cancel task",
            found="—",
            lines=log.line_count,
            at=ctx.at("log", line=None),
        )


def _measurements(ctx: Context) -> list[tuple[str, str, int, float | None]]:
    """(artifact, pointer, prompt_n, prompt_ms or None) for every prompt size measured."""
    found: list[tuple[str, str, int, float | None]] = []
    prefill: Any = ctx.optional("prefill")
    for index, entry in enumerate(prefill or []):
        found.append(("prefill", f"/{index}/prompt_n", entry["prompt_n"], entry["prompt_ms"]))
    cache: Any = ctx.optional("cache")
    for key in ("first", "second", "changed_prefix") if cache else ():
        found.append(("cache", f"/{key}/prompt_n", cache[key]["prompt_n"], None))
    return found


@check(
    "log.matches_measurements",
    reads=("log",),
    uses=("prefill", "cache"),
    params={"prompt_ms_tolerance": Number(0, 60_000)},
)
def matches_measurements(ctx: Context) -> Note | None:
    """The prompt sizes in the JSON files appear in the log's per-task timing lines."""
    log = ctx["log"]
    measured = _measurements(ctx)
    if not log.timings:
        return Note("unconfirmed", {"lines": log.line_count})
    if not measured:
        return Note("nothing_to_confirm")
    tolerance = ctx.param("prompt_ms_tolerance")
    for artifact, pointer, prompt_n, prompt_ms in measured:
        matches = [t for t in log.timings if t.prompt_n == prompt_n]
        if prompt_ms is not None:
            matches = [t for t in matches if abs(t.prompt_ms - prompt_ms) <= tolerance]
        if not matches:
            what = f"{prompt_n} tokens" + (f", {prompt_ms} ms" if prompt_ms is not None else "")
            raise Fail(
                "absent",
                expected=what,
                found=f"{len(log.timings)} tasks, none matching",
                file=ctx.at(artifact).file,
                at=ctx.at(artifact, pointer),
            )
    return None
