"""The "first token" lab: its artifacts, its checks, its rubric and its messages.

Everything specific to this lab is here; the engine in `grader/` knows none of it. A
second lab would be a second package like this one, with no change to `grader/`.
"""

from __future__ import annotations

from checks import (
    cache,
    cancel,
    log,
    prefill,
    report,
    sentence,
    server,
    source,
    stream,
    submission,
    ttft,
)
from grader.engine import Lab, collect
from grader.formats.chat_stream import chat_stream
from grader.loading import ArtifactSpec
from grader.parsers import json_document, json_lines, python_source, server_log
from grader.schema import SchemaSet

SCHEMAS = SchemaSet.of_package("schemas")
"""The lab's formats: `schemas/<name>.schema.json`."""

ARTIFACTS = (
    ArtifactSpec("health", "health.json", json_document(SCHEMAS["health"])),
    ArtifactSpec("props", "props.json", json_document(SCHEMAS["props"])),
    ArtifactSpec("sse_py", "sse.py", python_source(), max_bytes=lambda limits: limits.source_bytes),
    ArtifactSpec("sse", "sse_raw.txt", chat_stream(SCHEMAS["sse_chunk"])),
    ArtifactSpec("chunks", "chunks.jsonl", json_lines(SCHEMAS["chunks_record"])),
    ArtifactSpec("ttft", "ttft.json", json_document(SCHEMAS["ttft"])),
    ArtifactSpec("prefill", "prefill.json", json_document(SCHEMAS["prefill"])),
    ArtifactSpec("cache", "cache.json", json_document(SCHEMAS["cache"])),
    ArtifactSpec("sentence", "sentence.json", json_document(SCHEMAS["sentence"])),
    ArtifactSpec("cancel", "cancel.json", json_document(SCHEMAS["cancel"])),
    ArtifactSpec("report", "report.json", json_document(SCHEMAS["report"])),
    ArtifactSpec("log", "server.log", server_log(), max_bytes=lambda limits: limits.log_bytes),
)

LAB = Lab(
    name="first-token",
    artifacts=ARTIFACTS,
    checks=collect(
        submission, log, server, source, stream, ttft, prefill, cache, sentence, cancel, report
    ),
    schemas=SCHEMAS,
    rubric_file="rubric.toml",
    messages_package="checks",
    path_options={"log": "server_log"},
    class_report="checks.class_report:CLASS_REPORT",
)
