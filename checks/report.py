"""Step 8: report.json copies the headline numbers from the other files."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from checks.numbers import close
from grader.engine.api import Context, Fail, Note, check
from grader.engine.params import Number

if TYPE_CHECKING:
    from typing import Any


def _twelve_docs(prefill: Any) -> Any:
    twelve = [entry for entry in prefill if entry["docs"] == 12]
    return twelve[0] if twelve else prefill[-1]


SOURCES: dict[str, tuple[str, str, Callable[[Any], Any]]] = {
    "ttft_p50_ms": ("ttft", "ttft_p50", lambda v: v["ttft_p50"]),
    "total_p50_ms": ("ttft", "total_p50", lambda v: v["total_p50"]),
    "ttft_12docs_ms": ("prefill", "[docs=12].ttft_ms", lambda v: _twelve_docs(v)["ttft_ms"]),
    "prompt_n_12docs": ("prefill", "[docs=12].prompt_n", lambda v: _twelve_docs(v)["prompt_n"]),
    "cache_ttft_ms": ("cache", "second.ttft_ms", lambda v: v["second"]["ttft_ms"]),
    "first_sentence_ms": ("sentence", "first_sentence_ms", lambda v: v["first_sentence_ms"]),
    "cancel_idle_ms": ("cancel", "slot_idle_after_ms", lambda v: v["slot_idle_after_ms"]),
}
"""report.json key → (source artifact, source field, getter). The field is written as a
path into the source file (`[docs=12]`: the entry for 12 documents), the same in every
language, since it is shown inside translated sentences."""


@check(
    "report.copies_sources",
    reads=("report",),
    uses=("ttft", "prefill", "cache", "sentence", "cancel"),
    params={"tolerance_abs": Number(0, 1_000_000), "tolerance_rel": Number(0, 1)},
)
def copies_sources(ctx: Context) -> Note | None:
    """Every field of report.json equals its source, within rounding."""
    report = ctx["report"]
    unavailable: list[str] = []
    for key, (artifact, field, getter) in SOURCES.items():
        source = ctx.optional(artifact)
        if source is None:
            unavailable.append(ctx.at(artifact).file)
            continue
        expected, found = getter(source), report[key]
        if not close(found, expected, ctx.param("tolerance_abs"), ctx.param("tolerance_rel")):
            raise Fail(
                "differs",
                expected=expected,
                found=found,
                key=key,
                source=ctx.at(artifact).file,
                field=field,
                at=ctx.at("report", f"/{key}"),
            )
    if unavailable:
        return Note("partial", {"files": ", ".join(sorted(set(unavailable)))})
    return None
