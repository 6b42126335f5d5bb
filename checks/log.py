"""The server's own log: this run's record, intact and physically possible, and the cancel.

Everything a student measured is corroborated by `server.log` (see `checks.evidence`), so
the log itself must first be shown to be what llama-server wrote during this run:

- `log.intact` (`checks.log_intact`): it has timing blocks that add up, stamped and
  ordered as a server prints them. A log with no timing block confirms nothing.
- `log.lab_run`: its start-up lines name the model props.json names and the slots and
  context props.json reports (and the build, where the era prints one).
- `log.plausible`: no request ran faster than physics allows, nor far faster than the
  same run's other requests (slower is always possible: a busy pod, a cold page cache).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from checks.evidence import blocks, task_label
from checks.formats.llama_log import Cancel, ServerLog, TaskTiming
from checks.numbers import median
from grader.engine.api import Context, Fail, Note, check
from grader.engine.params import Integer, Number
from grader.words.problems import Term

if TYPE_CHECKING:
    from typing import Any

# -- log.lab_run ---------------------------------------------------------------------------


def _props_model(props: dict[str, Any]) -> str | None:
    model = props.get("model_path")
    if not isinstance(model, str):
        settings = props.get("default_generation_settings") or {}
        model = settings.get("model") if isinstance(settings, dict) else None
    return model if isinstance(model, str) and model else None


def _same_file(a: str, b: str) -> bool:
    return a == b or a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]


def _props_build(props: dict[str, Any]) -> tuple[int, str] | None:
    """props.json's `build_info` ("b5415-8733e0c") as (5415, "8733e0c"); None for any
    other shape. The number is read only when it is ASCII digits, at most 18 of them, as
    the log's (`int` refuses "²" though `isdigit` accepts it, and a string of thousands of
    digits)."""
    info = props.get("build_info")
    if not isinstance(info, str) or not info.startswith("b") or "-" not in info:
        return None
    number, _, commit = info[1:].partition("-")
    readable = number.isascii() and number.isdigit() and len(number) <= 18
    return (int(number), commit.lower()) if readable and commit else None


@check("log.lab_run", reads=("log", "props"))
def lab_run(ctx: Context) -> None:
    """The server that wrote the log is the one props.json describes."""
    log: ServerLog = ctx["log"]
    props = ctx["props"]
    runs = sorted(set(log.runs_in_order(blocks(log))) or {len(log.starts)})
    model, build = _props_model(props), _props_build(props)  # the same for every run
    for run in runs:
        if run == 0:
            raise Fail("no_start", expected="loading model …", found="—", at=ctx.at("log", line=1))
        start = log.starts[run - 1]
        at = ctx.at("log", line=start.line)
        if start.model is None:
            raise Fail(
                "no_model", expected=model or "loading model", found="—", line=start.line, at=at
            )
        if model is not None and not _same_file(start.model, model):
            raise Fail("model", expected=model, found=start.model, line=start.line, at=at)
        slots, n_ctx = props["total_slots"], props["default_generation_settings"]["n_ctx"]
        if start.n_slots is not None and start.n_slots != slots:
            raise Fail("n_slots", expected=slots, found=start.n_slots, line=start.line, at=at)
        if start.n_ctx_slot is not None and start.n_ctx_slot != n_ctx:
            raise Fail("n_ctx", expected=n_ctx, found=start.n_ctx_slot, line=start.line, at=at)
        if build is not None and start.build is not None and start.commit is not None:
            length = min(len(build[1]), len(start.commit))
            if build[0] != start.build or build[1][:length] != start.commit[:length].lower():
                raise Fail(
                    "build",
                    expected=props["build_info"],
                    found=f"b{start.build}-{start.commit}",
                    line=start.line,
                    at=at,
                )


# -- log.plausible -------------------------------------------------------------------------


def _rates(
    log: ServerLog, min_prompt: int, min_eval: int
) -> tuple[tuple[list[float], list[TaskTiming]], tuple[list[float], list[TaskTiming]]]:
    """The ms per prompt token and the ms per generated token of every block large enough
    for a rate to mean something, each beside the blocks they are of (two lists, so that
    a near-cap log's 18,000 rates are summed up by one call each)."""
    prefill = [t for t in log.timings if t.prompt_n >= min_prompt]
    decode = [
        t
        for t in blocks(log)
        if t.eval_n is not None and t.eval_n >= min_eval and t.eval_ms is not None
    ]
    return (
        ([t.prompt_ms / t.prompt_n for t in prefill], prefill),
        ([t.eval_ms / t.eval_n for t in decode], decode),  # type: ignore[operator]
    )


@check(
    "log.plausible",
    reads=("log",),
    params={
        "min_prompt_tokens": Integer(1, 1_000_000),
        "min_eval_tokens": Integer(1, 1_000_000),
        "max_speedup": Number(1, 1_000_000),
        "min_prefill_ms_per_token": Number(0, 60_000),
        "min_decode_ms_per_token": Number(0, 60_000),
    },
)
def plausible(ctx: Context) -> None:
    """No request computed its prompt or its answer faster than physics allows, nor
    faster by far than the run's typical request. (A number in the JSON files is held to
    the same physics through the request of the log it must match.)"""
    log: ServerLog = ctx["log"]
    min_prompt, min_eval = ctx.param("min_prompt_tokens"), ctx.param("min_eval_tokens")
    factor = ctx.param("max_speedup")
    floors = {
        "prefill": ctx.param("min_prefill_ms_per_token"),
        "decode": ctx.param("min_decode_ms_per_token"),
    }
    (prefill, prefill_blocks), (decode, decode_blocks) = _rates(log, min_prompt, min_eval)
    typical = {
        "prefill": median(prefill) if prefill else None,
        "decode": median(decode) if decode else None,
    }
    ctx.record(
        prefill_ms_per_token=typical["prefill"],
        decode_ms_per_token=typical["decode"],
        fastest_prefill_share=round(min(prefill) / typical["prefill"], 4)
        if prefill and typical["prefill"]
        else None,
        fastest_decode_share=round(min(decode) / typical["decode"], 4)
        if decode and typical["decode"]
        else None,
    )
    for kind, rates, timings in (
        ("prefill", prefill, prefill_blocks),
        ("decode", decode, decode_blocks),
    ):
        limit = max(floors[kind], (typical[kind] or 0) / factor)
        if not rates or min(rates) >= limit:
            continue  # none is too fast (as a nan is not): the usual case, in one call
        for rate, t in zip(rates, timings, strict=True):
            if rate < limit:
                raise Fail(
                    "log_rate",
                    expected=f">= {round(limit, 3)}",
                    found=round(rate, 4),
                    kind=Term(kind),
                    task=task_label(t),
                    line=t.line,
                    median=round(typical[kind] or 0, 3),
                    factor=factor,
                    floor=floors[kind],
                    at=ctx.at("log", line=t.line),
                )


# -- the cancel ----------------------------------------------------------------------------


@check("log.cancel_task", reads=("log",), confirmed_by=("log.intact",))
def cancel_task(ctx: Context) -> Note | None:
    """The server logged `cancel task` for the request the client closed (a server of
    mid 2024 logs no cancel line: there a task released without a timing block is one)."""
    log: ServerLog = ctx["log"]
    bare = [e for e in log.unfinished() if not isinstance(e, Cancel)]
    if not log.cancels and bare:
        return Note("no_cancel_era", {"line": bare[-1].line, "task": bare[-1].task})
    if not log.cancels:
        raise Fail(
            "missing",
            expected="cancel task",
            found="—",
            lines=log.line_count,
            at=ctx.at("log", line=None),
        )
    return None
