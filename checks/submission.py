"""The submission as a whole: its own run, not a published one."""

from __future__ import annotations

from checks.fingerprint import blocks_of, run_keys, times_of
from checks.runs import SERVER_RECORD, is_reference, known_run
from checks.samples import MEASURED, may_share, registry, sample_at
from grader.engine.api import Context, Fail, Note, check

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
    """No measured file is a published sample's, the stream's chatcmpl id is none of
    theirs, and the run is no run the project has published (`checks.runs`: known by its
    fingerprint, whatever its bytes): a sample is a real run, but not this student's.

    Records the run's fingerprint (`run_keys`, `checks.fingerprint`) for the class
    report, which groups the students who share one run (`PairSpec.keys`)."""
    log = ctx.optional("log")
    chunks = ctx.optional("chunks")
    keys = run_keys(blocks_of(log) if log is not None else [], times_of(chunks or []))
    ctx.record(run_keys=keys)
    itself = sample_at(ctx.folder)
    if itself is not None:
        return Note("is_sample", {"sample": itself})
    digests = {f: ctx.sha256(ARTIFACT_OF[f]) for f in MEASURED}
    sse = ctx.optional("sse")
    ids = {str((e.chunk or {}).get("id")) for e in sse.chunks} if sse is not None else set()
    maybe = may_share([*(sha for sha in digests.values() if sha), *ids])
    for sample, known in registry().items() if maybe else ():
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
    published = known_run(keys)
    if published is not None:
        run, count = published
        typed = {f: ctx.optional(ARTIFACT_OF[f]) for f in MEASURED if f not in SERVER_RECORD}
        if is_reference(run, digests, typed):  # a reference capture as it is: noted, flagged
            return Note("reference_run", {"run": run, "shared": count, "keys": len(keys)})
        raise Fail(
            "reused_run",
            expected="—",
            found=run,
            run=run,
            shared=count,
            keys=len(keys),
            at=ctx.at("log" if log is not None else "chunks"),
        )
    return None
