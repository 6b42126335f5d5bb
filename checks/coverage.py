"""Which of the lab's steps a server log can speak for: missing evidence is no contradiction.

A student may restart the server mid-lab, and the log they save may hold only the new
server's run (overwritten, not appended). Then the requests of the steps done before the
restart are not in it: their numbers are *unconfirmed*, not contradicted. The log shows
it: it begins with the server's start-up, and none of its requests is of those steps'
kind (each step's requests have their own signature: the prompt size and token count
the student's own files give), while the later steps' are there.

So a step is before the log when the log begins at a start-up and neither that step
nor any earlier one has a request of its kind in it: the steps before a restart are a
prefix of the lab (2, then 3, ...). An *.in_log check that finds no request for its
numbers says so ("unconfirmed", with what to do) instead of "absent", and the class page
gives it a flag worth a look, never the strong mismatch flag.

What unconfirmed numbers cost is what the rubric says of any number the log does not
confirm: its *.in_log check fails and the checks it confirms are skipped. Were they to
score, a log cut to begin at a start-up would hide any mistake of the steps before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from checks.evidence import blocks
from checks.formats.llama_log import ServerLog, TaskTiming

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from checks.formats.chat_stream import ChatStream
    from grader.engine.api import Context
    from grader.words.problems import Param

    Kind = Callable[[TaskTiming], bool]

FIRST_STEP = 2
"""The lab's first step with a request of its own (step 1 is the server itself)."""
STEPS = (("sse", 2), ("ttft", 3), ("prefill", 4), ("cache", 5), ("sentence", 6))
"""The artifacts of the steps a restart can leave out of an overwritten log, in the
lab's order, with their step numbers (the lab's seeds number them so). A check that asks
`before_log` declares them all (`reads` or `uses`)."""
SHORT_ANSWER, SENTENCE_TOKENS = 64, 120
"""The stream's and the ttft runs' max_tokens, and the sentence step's: only the sentence
request generates more than the first and at most the second (the cancel request is cut
off, or runs to 256)."""


def begins_at_start(log: ServerLog) -> bool:
    """The log begins with a server's start-up: no request of an earlier server is in it."""
    if not log.starts:
        return False
    first = min(
        (e.line for events in (log.timings, log.launches) for e in events[:1]), default=None
    )
    return first is None or log.starts[0].line < first


def final_timings(stream: ChatStream | None) -> dict[str, Any]:
    """The `timings` of a stream's last chunk (as `checks.stream.final_timings`, which
    imports this module's users)."""
    chunks = stream.chunks if stream is not None else ()
    timings = (chunks[-1].chunk or {}).get("timings") if chunks else None
    return timings if isinstance(timings, dict) else {}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _kind(name: str, value: Any, question_prompt: int | None) -> Kind | None:
    """The signature of a request of step `name`, from the student's own file; None when
    the file says nothing to sign with."""
    if name == "sse":
        timings = final_timings(value)
        prompt_n, predicted_n = _int(timings.get("prompt_n")), _int(timings.get("predicted_n"))
        if prompt_n is None or predicted_n is None:
            return None
        return lambda t: t.prompt_n == prompt_n and t.eval_n == predicted_n
    if name == "ttft":
        tokens = {_int(run.get("tokens")) for run in value.get("runs", [])} - {None}
        if not tokens:
            return None
        if question_prompt is None:
            return lambda t: t.eval_n in tokens
        return lambda t: t.eval_n in tokens and t.prompt_n == question_prompt
    if name == "prefill":
        sizes = [_int(entry.get("prompt_n")) for entry in value]
        largest = max((s for s in sizes if s is not None), default=None)
        if largest is None:
            return None
        return lambda t: t.prompt_n == largest
    if name == "sentence":  # the lab's only request that generates 65 to 120 tokens
        return lambda t: t.eval_n is not None and SHORT_ANSWER < t.eval_n <= SENTENCE_TOKENS
    first = _int((value.get("first") or {}).get("prompt_n"))
    if first is None:
        return None
    return lambda t: t.prompt_n == first


def before_log(ctx: Context, log: ServerLog) -> int | None:
    """The last step of the lab's first steps whose requests this log cannot hold (it
    begins at a start-up, and no request of that step or an earlier one is in it), or
    None when the log may hold every step (it does not begin at a start-up, or its first
    request is of step 2)."""
    if not begins_at_start(log):
        return None
    found = blocks(log)
    question_prompt = _int(final_timings(ctx.optional("sse")).get("prompt_n"))
    last: int | None = None
    for name, step in STEPS:
        value = ctx.optional(name)
        kind = _kind(name, value, question_prompt) if value is not None else None
        if kind is not None and any(kind(t) for t in found):
            break
        last = step
    return last


def unconfirmed(ctx: Context, log: ServerLog, step: int) -> dict[str, Param] | None:
    """The message parameters of an *.in_log check of `step` whose numbers the log cannot
    hold (`before_log`), or None when the log should have held them."""
    last = before_log(ctx, log)
    if last is None or last < step:
        return None
    steps = f"{FIRST_STEP}–{last}" if last > FIRST_STEP else str(FIRST_STEP)
    return {"step": step, "steps": steps, "start": log.starts[0].line}
