"""The submission as a whole: its own run, not a published one."""

from __future__ import annotations

from checks.samples import MEASURED, may_share, registry, sample_at
from grader.engine import Context, Fail, Note, check

ARTIFACT_OF = {
    "sse_raw.txt": "sse",
    "chunks.jsonl": "chunks",
    "ttft.json": "ttft",
    "prefill.json": "prefill",
    "cache.json": "cache",
    "sentence.json": "sentence",
    "cancel.json": "cancel",
    "report.json": "report",
    "server.log": "log",
}
"""Each measured file's artifact."""


@check("submission.original", reads=(), uses=tuple(ARTIFACT_OF[f] for f in MEASURED))
def original(ctx: Context) -> Note | None:
    """No measured file is a published sample's, and the stream's chatcmpl id is none of
    theirs: a sample is a real run, but not this student's."""
    itself = sample_at(ctx.folder)
    if itself is not None:
        return Note("is_sample", {"sample": itself})
    digests = {f: ctx.sha256(ARTIFACT_OF[f]) for f in MEASURED}
    sse = ctx.optional("sse")
    ids = {str((e.chunk or {}).get("id")) for e in sse.chunks} if sse is not None else set()
    if not may_share([*(sha for sha in digests.values() if sha), *ids]):
        return None  # shares nothing with any sample: no need to say which
    for sample, known in registry().items():
        for file, sha in known["files"].items():
            if digests.get(file) == sha:
                raise Fail(
                    "reused_file",
                    expected="—",
                    found=sample,
                    sample=sample,
                    file=ctx.at(ARTIFACT_OF[file]).file,
                    at=ctx.at(ARTIFACT_OF[file]),
                )
        shared = next((i for i in known["ids"] if i in ids), None)
        if shared is not None:
            raise Fail(
                "reused_id",
                expected="—",
                found=shared,
                sample=sample,
                id=shared,
                at=ctx.at("sse"),
            )
    return None
