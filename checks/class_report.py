"""What the class report knows of the "first token" lab (`LAB.class_report` names it).

Physics charts: prefill.json, cache.json and cancel.json hold the numbers; a rising
prefill line measured with the cache on (`prefill.cache_off` failed) is drawn apart, a
cache point is "bad" when the miss or the hit check failed, a cancel point is "freed" or
"busy" by `cancel.slot_freed`.

Integrity flags, in the order the page lists them. Strong (the files contradict their
source): numbers the server log does not have, report.json not copying its sources,
chunks.jsonl not matching the saved stream, a slot "freed" with no `cancel task` in the
log. Worth a look: a log without per-task timings (a real llama-server log has them),
prefill prompt sizes the log or cache.json contradict, times in an order a real run
cannot have. An honest mistake 3 (slot busy and no `cancel task`) is consistent: no flag.
Their descriptions are `class_report.flag.<key>` in messages/<lang>.toml.
"""

from __future__ import annotations

from grader.class_report.spec import ClassReportSpec, FlagRule, PhysicsSpec

CLASS_REPORT = ClassReportSpec(
    physics=PhysicsSpec(
        prefill="prefill",
        cache="cache",
        cancel="cancel",
        prefill_cache_on="prefill.cache_off",
        cache_checks=("cache.first_is_miss", "cache.hit_faster"),
        cancel_check="cancel.slot_freed",
    ),
    flags=(
        FlagRule(
            "log_mismatch",
            strong=True,
            checks=("log.matches_measurements",),
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
            checks=("chunks.match_sse",),
            label="class_report.flag.chunks_mismatch",
        ),
        FlagRule(
            "cancel_vs_log",
            strong=True,
            checks=("log.cancel_task",),
            if_passed=("cancel.slot_freed",),
            label="class_report.flag.cancel_vs_log",
        ),
        FlagRule(
            "log_unconfirmed",
            strong=False,
            checks=("log.matches_measurements",),
            status="passed",
            note="unconfirmed",
            label="class_report.flag.log_unconfirmed",
        ),
        FlagRule(
            "prefill_vs_log",
            strong=False,
            checks=("prefill.cache_off",),
            label="class_report.flag.prefill_vs_log",
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
)
