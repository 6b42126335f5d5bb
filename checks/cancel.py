"""Step 7: closing the connection is how a client says stop."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from checks.evidence import blocks
from checks.formats.llama_log import Cancel, Release, ServerLog, TaskTiming
from checks.numbers import medians
from grader.engine.api import Context, Fail, Note, check
from grader.engine.params import Integer, Number

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Literal

    from checks.formats.chat_stream import ChatStream
    from grader.words.problems import Param


class _Told(TypedDict, total=False):
    """How a story contradicts cancel.json, as its message's parameters: the task, the
    line that tells it, its release's line, the time the log shows (`seen`)."""

    task: int | None
    line: int
    release: int
    seen: float


def cut_off(log: ServerLog) -> list[Cancel | Release]:
    """The log's evidence of tasks cut off before they finished (see
    `ServerLog.unfinished`): cancel lines, or, in eras that log none, releases."""
    return log.unfinished()


def _cancel_lines(log: ServerLog) -> Iterator[tuple[Cancel, int, float]]:
    """Each `cancel task` line of a cut-off task, the latest first, with its task and the
    time since the task's launch (lines without a time or a launch left out)."""
    for cancel in reversed(cut_off(log)):
        if isinstance(cancel, Release) or cancel.task is None or cancel.time_ms is None:
            continue
        launch = log.launch_of(cancel.task, near_line=cancel.line)
        if launch is not None and launch.time_ms is not None:
            yield cancel, cancel.task, cancel.time_ms - launch.time_ms


def _cancelled_agrees(
    log: ServerLog, cancel: Cancel | Release, c: dict[str, Any], early_ms: float, late_ms: float
) -> tuple[str, _Told] | None:
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
        if not -early_ms <= seen - c["closed_at_ms"] <= max(late_ms, _in_prefill(c, early_ms)):
            return "close_time", {"task": cancel.task, "line": cancel.line, "seen": round(seen, 3)}
    if release is not None and release.time_ms is not None:
        idle = release.time_ms - launch.time_ms
        if idle > c["closed_at_ms"] + c["slot_idle_after_ms"] + early_ms:
            return "idle", {"task": cancel.task, "line": release.line, "seen": round(idle, 3)}
    return None


def _in_prefill(c: dict[str, Any], early_ms: float) -> float:
    """How long after the close the server may see it when the close came while it was
    still computing the prompt (0: not such a close).

    The server notices a closed connection only when it next writes, and it writes
    nothing before the task's prefill is done: a client that closed before any token
    arrived (received_tokens 0) is seen when the prompt is computed, however long that
    takes on a loaded pod (a close at 505 ms seen 2,364 ms after the launch). Its own
    bound is the slot: it was idle slot_idle_after_ms after the close, so the server saw
    the close before then (plus the client's head start, early_ms).
    """
    if c["received_tokens"] != 0:
        return 0.0
    bound: float = max(c["slot_idle_after_ms"] + early_ms, 0.0)
    return bound


def _finished_agrees(
    log: ServerLog, timing: TaskTiming, c: dict[str, Any], early_ms: float
) -> tuple[str, _Told] | None:
    """Why a request that ran to max_tokens contradicts cancel.json, or None."""
    ran = (
        timing.total_ms if timing.total_ms is not None else timing.prompt_ms + (timing.eval_ms or 0)
    )
    launch = log.launch_of(timing.task, near_line=timing.line) if timing.task is not None else None
    release = (
        log.release_of(timing.task, near_line=timing.line) if timing.task is not None else None
    )
    if (
        launch is not None
        and release is not None
        and launch.time_ms is not None
        and release.time_ms is not None
    ):
        ran = max(ran, release.time_ms - launch.time_ms)
    if c["closed_at_ms"] + c["slot_idle_after_ms"] + early_ms < ran:
        line = release.line if release is not None else timing.line
        return "ran_to_end", {"task": timing.task, "line": line, "seen": round(ran, 3)}
    return None


def _residuals(
    log: ServerLog, cancels: list[Cancel | Release], c: dict[str, Any]
) -> dict[str, float]:
    """How the log's times compare with cancel.json's, for the last cancelled task: when
    the server saw the close, minus closed_at_ms; when it released the slot, minus the
    close plus the idle time the client measured."""
    out: dict[str, float] = {}
    if not cancels:
        return out
    cancel = cancels[-1]
    if cancel.task is None or isinstance(cancel, Release):
        return out
    launch = log.launch_of(cancel.task, near_line=cancel.line)
    release = log.release_of(cancel.task, near_line=cancel.line)
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
    log: ServerLog, c: dict[str, Any], early_ms: float, late_ms: float
) -> Iterator[tuple[str, _Told] | None]:
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
    # False: no task was cut off, none ran to max_tokens
    first: tuple[str, _Told] | Literal[False] | None = next(stories, False)
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


def _first_byte_late(
    log: ServerLog | None,
    c: dict[str, Any],
    close_max_ms: float,
    window: tuple[float, float],
    max_unseen: int,
) -> dict[str, Param] | None:
    """Why a close later than close_max_ms is still the lab's close, or None.

    A client whose `readline()` blocks can close only when a line arrives. On a loaded
    pod the first line comes after the request's own prefill, so such a client closes at
    the first byte after 0.5 s, well past it: it received at most that one line (one
    token), and the server cancelled the task right after (within `early_ms` before to
    `late_ms` after the close, as cancel.in_log reads it), having had nothing to send
    before. A client that waited on purpose received what the server wrote meanwhile,
    and one that says it received one token when it received more is belied by the
    task's release: the server held its prompt and the tokens in flight beyond those the
    client counted (43-47 in every real capture of the lab's 40-token cancel prompt), not
    a long answer's (`max_unseen`).
    """
    if log is None or c["closed_at_ms"] <= close_max_ms or c["received_tokens"] > 1:
        return None
    early_ms, late_ms = window
    for cancel, task, seen in _cancel_lines(log):
        release = log.release_of(task, near_line=cancel.line)
        if release is None or release.n_tokens - c["received_tokens"] > max_unseen:
            continue
        if -early_ms <= seen - c["closed_at_ms"] <= late_ms:
            return {"closed": c["closed_at_ms"], "line": cancel.line, "seen": round(seen, 3)}
    return None


@check(
    "cancel.interrupted",
    reads=("cancel",),
    uses=("log",),
    confirmed_by=("cancel.in_log",),
    params={
        "max_tokens": Integer(1, 1_000_000),
        "close_min_ms": Number(0, 3_600_000),
        "close_max_ms": Number(0, 3_600_000),
        "early_ms": Number(0, 3_600_000),
        "late_ms": Number(0, 3_600_000),
        "max_unseen_tokens": Integer(0, 1_000_000),
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
    late = _first_byte_late(
        log,
        c,
        high,
        (ctx.param("early_ms"), ctx.param("late_ms")),
        ctx.param("max_unseen_tokens"),
    )
    if late is not None:
        return Note("first_byte_late", late)
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


def own_record(log: ServerLog | None, cancel: dict[str, Any]) -> TaskTiming | None:
    """The cancel request's own timing block in the log, when it has one: the latest
    request that generated cancel.json's max_tokens (a request cut off by a close prints
    no timing block; one whose connection stayed open runs to max_tokens and does)."""
    if log is None:
        return None
    for timing in reversed(blocks(log)):
        if timing.eval_n == cancel["max_tokens"] and timing.eval_ms is not None:
            return timing
    return None


def decode_ms_per_token(
    log: ServerLog | None,
    ttft: dict[str, Any] | None,
    sse: ChatStream | None,
    cancel: dict[str, Any],
) -> tuple[float, str]:
    """The cancel request's generation speed, from the best evidence the submission has.

    First the request's own record in the log (its `eval time` per token: the speed at
    which it really generated the rest; another step's speed may have been measured in a
    load spike, 241 ms per token against the cancel request's own 27.7). Then, when the
    log has no such record (a request cut off prints none), ttft.json's five runs
    (median of (total - ttft) / (tokens - 1)), then the SSE capture's timings, then the
    cancelled request itself (which includes its prefill, so it errs on the slow side and
    can only make the check more lenient).
    """
    own = own_record(log, cancel)
    if own is not None and own.eval_n and own.eval_ms is not None and own.eval_ms > 0:
        return own.eval_ms / own.eval_n, "server.log"
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


def prefill_wait(log: ServerLog | None, cancel: dict[str, Any]) -> float:
    """How long after the close the server could not yet notice it, by the log: a close
    before any token arrived (received_tokens 0) is seen only when the server first
    writes, after the task's prefill; until then the slot is busy whatever the client
    does. The time from the close to the task's `cancel task` line (0 without one)."""
    if log is None or cancel["received_tokens"] != 0:
        return 0.0
    for _, _, seen in _cancel_lines(log):
        wait: float = max(seen - cancel["closed_at_ms"], 0.0)
        return wait
    return 0.0


@check(
    "cancel.slot_freed",
    reads=("cancel",),
    uses=("ttft", "sse", "log"),
    confirmed_by=("cancel.in_log",),
    params={"max_idle_fraction": Number(0, 1)},
)
def slot_freed(ctx: Context) -> None:
    """The slot went idle soon after the close, not after generating the rest of the answer.

    An answer received whole before the close left nothing to stop: such a run does not
    show what a close does (it fails, as not shown, never as contradicted)."""
    c = ctx["cancel"]
    if c["received_tokens"] >= c["max_tokens"]:
        raise Fail(
            "finished",
            expected=f"< {c['max_tokens']}",
            found=c["received_tokens"],
            max_tokens=c["max_tokens"],
            at=ctx.at("cancel", "/received_tokens"),
        )
    per_token, source = decode_ms_per_token(
        ctx.optional("log"), ctx.optional("ttft"), ctx.optional("sse"), c
    )
    rest_ms = max(c["max_tokens"] - c["received_tokens"], 1) * per_token
    wait = prefill_wait(ctx.optional("log"), c)
    # the share the threshold judges: of the idle time, what came after the server could
    # notice the close
    ctx.record(idle_share=round(max(c["slot_idle_after_ms"] - wait, 0.0) / rest_ms, 5))
    limit = ctx.param("max_idle_fraction") * rest_ms + wait
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
