"""Step 7: closing the connection is how a client says stop."""

from __future__ import annotations

from checks.evidence import blocks
from checks.formats.llama_log import Cancel, Release, ServerLog, TaskTiming
from checks.numbers import medians
from grader.engine import Context, Fail, Note, check
from grader.params import Integer, Number

TYPE_CHECKING = False  # typing is for type checkers only: a check never imports it
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


def cut_off(log: ServerLog) -> list[Cancel | Release]:
    """The log's evidence of tasks cut off before they finished (see
    `ServerLog.unfinished`): cancel lines, or, in eras that log none, releases."""
    return log.unfinished()


def _cancelled_agrees(
    log: ServerLog, cancel: Cancel | Release, c: dict, early_ms: float, late_ms: float
) -> tuple[str, dict[str, Any]] | None:
    """Why a cancelled task contradicts cancel.json (message key, params), or None."""
    if cancel.task is None or isinstance(cancel, Release):
        return None  # a release is its own evidence; it has nothing more to compare
    release = log.release_of(cancel.task, near_line=cancel.line)
    if release is not None and release.line < cancel.line:
        return "released_first", {"task": cancel.task, "line": cancel.line, "release": release.line}
    launch = log.launch_of(cancel.task, near_line=cancel.line)
    if launch is None or launch.time_ms is None:
        return None
    if cancel.time_ms is not None:
        seen = cancel.time_ms - launch.time_ms
        if not -early_ms <= seen - c["closed_at_ms"] <= late_ms:
            return "close_time", {"task": cancel.task, "line": cancel.line, "seen": round(seen, 3)}
    if release is not None and release.time_ms is not None:
        idle = release.time_ms - launch.time_ms
        if idle > c["closed_at_ms"] + c["slot_idle_after_ms"] + early_ms:
            return "idle", {"task": cancel.task, "line": release.line, "seen": round(idle, 3)}
    return None


def _finished_agrees(
    log: ServerLog, timing: TaskTiming, c: dict, early_ms: float
) -> tuple[str, dict[str, Any]] | None:
    """Why a request that ran to max_tokens contradicts cancel.json, or None."""
    ran = (
        timing.total_ms if timing.total_ms is not None else timing.prompt_ms + (timing.eval_ms or 0)
    )
    launch = log.launch_of(timing.task, near_line=timing.line) if timing.task is not None else None
    release = (
        log.release_of(timing.task, near_line=timing.line) if timing.task is not None else None
    )
    if launch is not None and release is not None and None not in (launch.time_ms, release.time_ms):
        ran = max(ran, release.time_ms - launch.time_ms)  # type: ignore[operator]
    if c["closed_at_ms"] + c["slot_idle_after_ms"] + early_ms < ran:
        line = release.line if release is not None else timing.line
        return "ran_to_end", {"task": timing.task, "line": line, "seen": round(ran, 3)}
    return None


def _residuals(log: ServerLog, cancels: list[Cancel | Release], c: dict) -> dict[str, float]:
    """How the log's times compare with cancel.json's, for the last cancelled task: when
    the server saw the close, minus closed_at_ms; when it released the slot, minus the
    close plus the idle time the client measured."""
    out: dict[str, float] = {}
    if not cancels or cancels[-1].task is None or isinstance(cancels[-1], Release):
        return out
    cancel = cancels[-1]
    launch = log.launch_of(cancel.task, near_line=cancel.line)  # type: ignore[arg-type]
    release = log.release_of(cancel.task, near_line=cancel.line)  # type: ignore[arg-type]
    if launch is None or launch.time_ms is None:
        return out
    if cancel.time_ms is not None:
        out["cancel_seen_residual_ms"] = round(
            cancel.time_ms - launch.time_ms - c["closed_at_ms"], 3
        )
    if release is not None and release.time_ms is not None:
        idle = c["closed_at_ms"] + c["slot_idle_after_ms"]
        out["release_residual_ms"] = round(release.time_ms - launch.time_ms - idle, 3)
    return out


def _stories(
    log: ServerLog, c: dict, early_ms: float, late_ms: float
) -> Iterator[tuple[str, dict[str, Any]] | None]:
    """How each cut-off task and each request that ran to max_tokens contradicts
    cancel.json (None: it agrees), the latest first.

    One at a time, as the caller asks: one story that agrees is enough, and a near-cap
    log has 1,300 cut-off tasks, each a few look-ups."""
    for cancel in reversed(cut_off(log)):
        yield _cancelled_agrees(log, cancel, c, early_ms, late_ms)
    for t in reversed(blocks(log)):
        if t.eval_n == c["max_tokens"]:
            yield _finished_agrees(log, t, c, early_ms)


@check(
    "cancel.in_log",
    reads=("cancel", "log"),
    confirmed_by=("log.intact", "log.plausible", "log.one_request_each"),
    params={"early_ms": Number(0, 3_600_000), "late_ms": Number(0, 3_600_000)},
)
def in_log(ctx: Context) -> None:
    """The cancel step is a request of the server log, and cancel.json tells its story: a
    task the server cancelled about when the client says it closed, its slot released
    no later than the client saw it idle; or, without a cancel, a task that ran to
    max_tokens, and a slot busy at least until that task was done."""
    c = ctx["cancel"]
    log: ServerLog = ctx["log"]
    stories = _stories(log, c, ctx.param("early_ms"), ctx.param("late_ms"))
    first = next(stories, False)  # False: no task was cut off, none ran to max_tokens
    if first is False:
        raise Fail(
            "no_request",
            expected=f"cancel task | eval time … / {c['max_tokens']} tokens",
            found="—",
            max_tokens=c["max_tokens"],
            at=ctx.at("cancel"),
        )
    if first is None or None in stories:  # `in` stops at the first story that agrees
        ctx.record(
            closed_at_ms=c["closed_at_ms"],
            slot_idle_after_ms=c["slot_idle_after_ms"],
            received_tokens=c["received_tokens"],
            **_residuals(log, cut_off(log), c),
        )
        return
    key, params = first
    found = c["closed_at_ms"] if key == "close_time" else c["slot_idle_after_ms"]
    pointer = "/closed_at_ms" if key == "close_time" else "/slot_idle_after_ms"
    raise Fail(
        key,
        expected=params.get("seen"),
        found=found,
        closed=c["closed_at_ms"],
        at=ctx.at("cancel", pointer),
        **params,
    )


@check(
    "cancel.interrupted",
    reads=("cancel",),
    uses=("log",),
    confirmed_by=("cancel.in_log",),
    params={
        "max_tokens": Integer(1, 1_000_000),
        "close_min_ms": Number(0, 3_600_000),
        "close_max_ms": Number(0, 3_600_000),
    },
)
def interrupted(ctx: Context) -> Note | None:
    """The long answer was cut off: fewer tokens than max_tokens, closed at about 0.5 s.

    None received is fine when the server confirms the cut: on a slow pod the long
    request's own prefill outlasts 0.5 s, so nothing readable has arrived yet, and the log
    shows the task cancelled before it finished.
    """
    c = ctx["cancel"]
    if c["max_tokens"] != ctx.param("max_tokens"):
        raise Fail(
            "max_tokens",
            expected=ctx.param("max_tokens"),
            found=c["max_tokens"],
            at=ctx.at("cancel", "/max_tokens"),
        )
    log = ctx.optional("log")
    confirmed = cut_off(log) if log is not None else []
    nothing_yet = c["received_tokens"] == 0 and bool(confirmed)
    if not (0 < c["received_tokens"] < c["max_tokens"] or nothing_yet):
        raise Fail(
            "received",
            expected=f"1..{c['max_tokens'] - 1}",
            found=c["received_tokens"],
            at=ctx.at("cancel", "/received_tokens"),
        )
    low, high = ctx.param("close_min_ms"), ctx.param("close_max_ms")
    ctx.record(closed_at_ms=c["closed_at_ms"])
    if not low <= c["closed_at_ms"] <= high:
        raise Fail(
            "close_time",
            expected=f"{low}..{high}",
            found=c["closed_at_ms"],
            at=ctx.at("cancel", "/closed_at_ms"),
        )
    if nothing_yet:
        return Note("nothing_yet", {"closed": c["closed_at_ms"], "line": confirmed[-1].line})
    return None


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
    confirmed_by=("cancel.in_log",),
    params={"max_idle_fraction": Number(0, 1)},
)
def slot_freed(ctx: Context) -> None:
    """The slot went idle soon after the close, not after generating the rest of the answer."""
    c = ctx["cancel"]
    per_token, source = decode_ms_per_token(ctx.optional("ttft"), ctx.optional("sse"), c)
    rest_ms = max(c["max_tokens"] - c["received_tokens"], 1) * per_token
    ctx.record(idle_share=round(c["slot_idle_after_ms"] / rest_ms, 5))
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
