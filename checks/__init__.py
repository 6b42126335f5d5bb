"""The "first token" lab: its artifacts, its checks, its rubric and its messages.

Everything specific to this lab is here; the engine in `grader/` knows none of it. A
second lab would be a second package like this one, with no change to `grader/`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from checks import (
    assignment,
    cache,
    cancel,
    log,
    log_intact,
    measures,
    prefill,
    report,
    sentence,
    server,
    source,
    story,
    stream,
    submission,
    ttft,
)
from checks.formats.chat_stream import chat_stream
from checks.formats.server_log import server_log
from checks.samples import SAMPLE_FOLDERS
from grader.engine.api import collect
from grader.engine.lab import Lab, Leaderboard
from grader.reading.loading import ArtifactSpec
from grader.reading.parsers import json_document, json_lines
from grader.reading.schema import SchemaSet

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from grader.words.problems import JSONValue

SCHEMAS = SchemaSet.of_package("schemas")
"""The lab's formats: `schemas/<name>.schema.json`."""

LIMITS = {
    "json_bytes": 512 * 1024,  # each JSON document (real: 15 B to 4.5 KB, props.json)
    "source_bytes": 256 * 1024,  # sse.py (real: 4 KB); ast.parse is slow on huge input
    "log_bytes": 4 * 1024 * 1024,  # the server log (real: 13 KB for the whole lab)
    "sse_events": 4_096,  # real: 67 (max_tokens 64); even max_tokens 4000 fits
    "log_lines": 25_000,  # real: 116
}
"""The caps of the lab's own formats, beside the engine's (`grader/reading/limits.py`); the
rubric's `[limits]` sets them like the engine's.

The log's two caps hold some 200 whole runs of the lab (a run's log is 116 lines, 13 KB,
about 800 bytes a request), a server that ran for weeks: no honest log comes near them.
They bound what a grade costs, which is linear in the log (docs/benchmarks.md). The line
cap binds first for the lab build's lines (25,000 of them are 2.7 MB), the byte cap for
eras that print longer ones. The dearest known lines (bare timing lines, each a block,
read the general way) cost some 8 µs each, and the line cap bounds them: 0.4 s of
grading near the caps, where 16 MiB and 200,000 lines allowed 0.9 s for the lab's lines
and 1.9 s for those. Past either cap the student is told which lines to keep
(`engine.schema_hint."log.too_many_lines"`, the lab's catalogs).

The JSON documents' cap is a hundred times the largest a run makes (props.json, which
a build with a long chat template makes several times larger still): at the engine's
4 MiB a padded document cost 75-110 ms to read, and the eight of them 0.6 s.
chunks.jsonl and sse_raw.txt keep the engine's `file_bytes`: an honest stream
of `sse_events` events is 1.2 MB, and its chunks.jsonl grows with the keys a client
adds to each record."""


def _document(
    name: str,
    measure: Callable[[Any], Mapping[str, JSONValue]] | None = None,
    corroborated_by: tuple[str, ...] | None = None,
) -> ArtifactSpec:
    """One of the lab's JSON documents, `<name>.json`, under the lab's `json_bytes` cap."""
    return ArtifactSpec(
        name,
        f"{name}.json",
        json_document(SCHEMAS[name]),
        max_bytes="json_bytes",
        measure=measure,
        corroborated_by=corroborated_by,
    )


ARTIFACTS = (
    _document("health"),
    _document("props"),
    # sse.py's parse (the compiler's symbol table, then its syntax tree) needs many times
    # its text: parsed after the others, the memory it frees is not left among the log's events
    ArtifactSpec(
        "sse_py", "sse.py", source.client_source(), max_bytes="source_bytes", parse_last=True
    ),
    # each file of measurements names the checks that compare it with the server's log
    ArtifactSpec(
        "sse", "sse_raw.txt", chat_stream(SCHEMAS["sse_chunk"]), corroborated_by=("sse.in_log",)
    ),
    ArtifactSpec(
        "chunks",
        "chunks.jsonl",
        json_lines(SCHEMAS["chunks_record"]),
        corroborated_by=("chunks.match_sse", "sse.in_log"),
    ),
    _document("ttft", corroborated_by=("ttft.in_log",)),
    _document("prefill", measure=measures.prefill, corroborated_by=("prefill.in_log",)),
    _document("cache", measure=measures.cache, corroborated_by=("cache.in_log",)),
    _document("sentence", corroborated_by=("sentence.in_log",)),
    _document("cancel", measure=measures.cancel, corroborated_by=("cancel.in_log",)),
    # report.json copies the other files: it can agree with them, no record backs it
    _document("report", corroborated_by=()),
    ArtifactSpec("log", "server.log", server_log(), max_bytes="log_bytes"),
)

LAB = Lab(
    name="first-token",
    title="the 'first token' lab on an LLM's answer stream (llama.cpp, SSE, time to first token)",
    artifacts=ARTIFACTS,
    checks=collect(
        submission,
        log_intact,
        log,
        story,
        server,
        source,
        stream,
        ttft,
        prefill,
        cache,
        sentence,
        cancel,
        assignment,
        report,
    ),
    package="checks",
    schemas=SCHEMAS,
    rubric_file="rubric.toml",
    limits=LIMITS,
    default_folder="/root/voice/llm",
    path_options={"log": "--server-log"},
    samples=SAMPLE_FOLDERS,
    sample="correct",
    class_report="checks.class_report:CLASS_REPORT",
    leaderboard=(Leaderboard("leaderboard.ttft_p50", "ttft.medians", "ttft_p50", "asc"),),
)
