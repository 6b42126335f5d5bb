"""What the class report knows of the "first token" lab (`LAB.class_report` names it).

Its own section: the physics across the class (`checks.report_physics`), drawn from the
measurements its results carry of prefill.json, cache.json and cancel.json.

Integrity flags, in the order the page lists them. Strong (the files contradict the
server's own record, or are not this student's): a published sample's files, a log that
does not add up or describes another server, a request faster than physics, numbers the
log contradicts, report.json not copying its sources, chunks.jsonl not matching the
saved stream, a cut-off answer and a slot "freed" with no `cancel task` in the log.
Worth a look: a log with no timing block at all (it confirms nothing), a log that begins
after a restart (the earlier steps' numbers unconfirmed, `checks.coverage`), times in an
order a real run cannot have. An honest mistake (the cache left on while measuring
prefill, a connection kept open, an answer that ended before the close) is consistent
with the log: no flag. Their descriptions are `class_report.flag.<key>` in
messages/<lang>.toml.

Groups: students who share a measured file byte for byte, or their stream's chatcmpl id,
or `MIN_SHARED` of their run's fingerprint keys (`checks.fingerprint`, recorded by
`submission.original`: a copy keeps them however rescaled, re-indented or spliced), or
more of their timings within 0.5 % than chance gives a class of their size (more than 5
in any class; `grader.class_report.pairs.near_needed_of`), handed in one run.
"""

from __future__ import annotations

from checks.fingerprint import MIN_SHARED
from checks.report_physics import SECTION as PHYSICS
from grader.class_report.spec import ClassReportSpec, FlagRule, PairSpec

IN_LOG = (
    "sse.in_log",
    "ttft.in_log",
    "prefill.in_log",
    "cache.in_log",
    "sentence.in_log",
    "cancel.in_log",
    "log.one_request_each",
)

CLASS_REPORT = ClassReportSpec(
    sections=(PHYSICS,),
    flags=(
        FlagRule(
            "published_sample",
            strong=True,
            checks=("submission.original",),
            label="class_report.flag.published_sample",
        ),
        FlagRule(
            "reference_run",
            strong=True,
            checks=("submission.original",),
            status="passed",  # the check passes, saying which reference it is
            note="reference_run",
            label="class_report.flag.reference_run",
        ),
        FlagRule(
            "log_tampered",
            strong=True,
            checks=(
                "log.intact",
                "log.story",
                "log.lab_run",
                "log.plausible",
                "sse.one_response",
            ),
            except_note="no_timings",
            label="class_report.flag.log_tampered",
        ),
        FlagRule(
            "log_mismatch",
            strong=True,
            checks=IN_LOG,
            # a log that begins after a restart lacks the earlier steps: no contradiction
            except_note="unconfirmed",
            label="class_report.flag.log_mismatch",
        ),
        FlagRule(
            "report_mismatch",
            strong=True,
            checks=("report.copies_sources",),
            label="class_report.flag.report_mismatch",
        ),
        FlagRule(
            "chunks_mismatch",
            strong=True,
            checks=("chunks.match_sse", "chunks.in_stream"),
            label="class_report.flag.chunks_mismatch",
        ),
        FlagRule(
            "cancel_vs_log",
            strong=True,
            checks=("log.cancel_task",),
            # the contradiction is a cut-off answer and a freed slot with no cancel in the
            # log; an answer that ended before the close (cancel.interrupted and
            # cancel.slot_freed fail, "finished") is an honest mistake, consistent with it
            if_passed=("cancel.interrupted", "cancel.slot_freed"),
            label="class_report.flag.cancel_vs_log",
        ),
        FlagRule(
            "log_unconfirmed",
            strong=False,
            checks=("log.intact",),
            note="no_timings",
            label="class_report.flag.log_unconfirmed",
        ),
        FlagRule(
            "steps_unconfirmed",
            strong=False,
            checks=IN_LOG,
            note="unconfirmed",
            label="class_report.flag.steps_unconfirmed",
        ),
        FlagRule(
            "impossible_timing",
            strong=False,
            checks=(
                "ttft.before_total",
                "prefill.ttft_covers_prefill",
                "sentence.order",
                "chunks.time_order",
            ),
            label="class_report.flag.impossible_timing",
        ),
    ),
    messages_package="checks",
    pairs=PairSpec(
        files=("sse", "chunks", "ttft", "prefill", "cache", "sentence", "cancel", "report", "log"),
        ids=(("sse.one_response", "ids"),),
        keys=(("submission.original", "run_keys"),),
        min_keys=MIN_SHARED,
        timings=(
            ("ttft.in_log", "ttft_ms"),
            ("ttft.in_log", "total_ms"),
            ("prefill.in_log", "prompt_ms"),
            ("prefill.in_log", "ttft_ms"),
            ("cache.in_log", "ttft_ms"),
            ("sentence.in_log", "ttft_ms"),
            ("sentence.in_log", "total_ms"),
            ("cancel.in_log", "slot_idle_after_ms"),
        ),
    ),
)
