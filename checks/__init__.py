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

ARTIFACTS = (
    ArtifactSpec("health", "health.json", json_document("health")),
    ArtifactSpec("props", "props.json", json_document("props")),
    ArtifactSpec("sse_py", "sse.py", python_source(), max_bytes=lambda limits: limits.source_bytes),
    ArtifactSpec("sse", "sse_raw.txt", chat_stream("sse_chunk")),
    ArtifactSpec("chunks", "chunks.jsonl", json_lines("chunks_record")),
    ArtifactSpec("ttft", "ttft.json", json_document("ttft")),
    ArtifactSpec("prefill", "prefill.json", json_document("prefill")),
    ArtifactSpec("cache", "cache.json", json_document("cache")),
    ArtifactSpec("sentence", "sentence.json", json_document("sentence")),
    ArtifactSpec("cancel", "cancel.json", json_document("cancel")),
    ArtifactSpec("report", "report.json", json_document("report")),
    ArtifactSpec("log", "server.log", server_log(), max_bytes=lambda limits: limits.log_bytes),
)

LAB = Lab(
    name="first-token",
    artifacts=ARTIFACTS,
    checks=collect(
        submission, log, server, source, stream, ttft, prefill, cache, sentence, cancel, report
    ),
    rubric_file="rubric.toml",
    messages_package="checks",
    path_options={"log": "server_log"},
    class_report="checks.class_report:CLASS_REPORT",
)
