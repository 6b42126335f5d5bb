"""Specification of missing evidence: no accusation without contradiction.

A student who restarted the server after step 4 and saved only the new server's log
(sample `derived/restart_log_overwritten`, made of the real capture's own lines) has no
request of steps 2-4 in it. Those numbers are *unconfirmed*: their *.in_log checks say
so, with what to do, in every language; the class page gives a flag worth a look, never
the strong mismatch flag; and the run loses what the rubric says an unconfirmed number
costs (the *.in_log check and the checks it gates), nothing of steps 5-7. A number the
log does hold a request for, and contradicts, is still a mismatch.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checks.class_report import CLASS_REPORT
from grader.class_report.flags import flags_of
from grader.class_report.results import student_from
from tests.conftest import check_of, graded
from tests.log_time import restarted_after_prefill, restarted_before

RESTART = "derived/restart_log_overwritten"
UNSEEN = ("sse.in_log", "ttft.in_log", "prefill.in_log")


def test_the_restart_samples_log_begins_at_a_start_and_holds_only_steps_5_to_7() -> None:
    from tests.conftest import SAMPLES

    text = (SAMPLES / RESTART / "server.log").read_text("utf-8")
    assert text.splitlines()[0].endswith("llama_server: initializing ...")
    prompts = [int(n) for n in re.findall(r"prompt eval time = +[\d.]+ ms / +(\d+) tokens", text)]
    assert prompts == [25, 1361, 1, 1373, 34]  # the cache step's four, the sentence's
    assert "cancel task, id_task = 285" in text  # task ids count from the new start


@pytest.mark.parametrize("check_id", UNSEEN)
def test_steps_before_the_restart_are_unconfirmed_not_absent(check_id: str) -> None:
    check = check_of(graded(RESTART), check_id)
    assert (check.status, check.message_id) == ("failed", f"{check_id}.unconfirmed")
    assert "redo steps 2–4 on this server" in (check.message or "")
    assert "Keep the whole log across restarts" in (check.message or "")


@pytest.mark.parametrize(
    ("lang", "says"),
    [("ja", "ステップ2–4をやり直して"), ("zh", "重做步骤 2–4"), ("ko", "2–4 단계를 다시 하세요")],
)
def test_what_to_do_is_said_in_every_language(rubric, lang: str, says: str) -> None:
    from checks import LAB
    from grader.engine.grade import grade
    from tests.conftest import SAMPLES

    result = grade(LAB, str(SAMPLES / RESTART), rubric, lang=lang)
    assert says in (check_of(result, "prefill.in_log").message or "")


def test_an_unconfirmed_step_raises_no_strong_flag() -> None:
    flags = flags_of(student_from("restart", graded(RESTART)), CLASS_REPORT.flags)
    assert [(f.key, f.strong) for f in flags] == [("steps_unconfirmed", False)] * 3


def test_the_run_loses_only_what_unconfirmed_numbers_cost() -> None:
    """Every check that did not pass is one of the three unconfirmed checks or skipped
    because of one: steps 5 to 7, the log's own checks and every file keep their points."""
    result = graded(RESTART)
    lost = [c for c in result.checks if c.status != "passed"]
    assert {c.id for c in lost if c.status == "failed"} == set(UNSEEN)
    assert all(c.status == "skipped" and c.cause in UNSEEN for c in lost if c.id not in UNSEEN)
    for step in ("cache.", "sentence.", "cancel."):
        assert all(c.status == "passed" for c in result.checks if c.id.startswith(step))


def test_a_number_the_log_contradicts_is_still_a_mismatch() -> None:
    result = graded("derived/prefill_numbers_not_in_log")
    check = check_of(result, "prefill.in_log")
    assert check.status == "failed" and check.message_id != "prefill.in_log.unconfirmed"
    flags = flags_of(student_from("typed", result), CLASS_REPORT.flags)
    assert ("log_mismatch", True) in [(f.key, f.strong) for f in flags]


def test_a_step_missing_after_an_earlier_one_is_logged_is_a_mismatch(
    grade_folder, submission: Path
) -> None:
    """The stream's request (step 2) is in the log, the ttft runs' (step 3) are not: no
    restart explains that, the steps before a restart come first."""
    log = submission / "server.log"
    text = log.read_text("utf-8")
    tasks = re.findall(r"task (\d+) \| +eval time = +[\d.]+ ms / +64 tokens", text)
    ttft_tasks = {f"| task {t} |" for t in tasks[1:6]}  # the five after the stream's
    log.write_text(
        "".join(x for x in text.splitlines(True) if not any(t in x for t in ttft_tasks)),
        "utf-8",
    )
    result = grade_folder(submission)
    check = check_of(result, "ttft.in_log")
    # a mismatch: the runs claim requests the log does not hold where they must be (the
    # one-to-one assignment fails first, and the in_log checks wait for it)
    assert check.status != "passed" and check.message_id != "ttft.in_log.unconfirmed"
    assert check_of(result, "log.one_request_each").status == "failed"


@pytest.fixture
def restarted(submission: Path) -> Path:
    """A private copy of the real correct capture (no published sample's files), its log
    as the new server's after a restart following step 4."""
    log = submission / "server.log"
    log.write_text(restarted_after_prefill(log.read_text("utf-8")), "utf-8")
    return submission


def test_a_students_own_restart_log_is_unconfirmed_too(grade_folder, restarted: Path) -> None:
    result = grade_folder(restarted)
    assert [c.id for c in result.checks if c.status == "failed"] == list(UNSEEN)
    assert all(check_of(result, c).message_id == f"{c}.unconfirmed" for c in UNSEEN)


def test_a_log_that_does_not_begin_at_a_start_is_no_restart(grade_folder, restarted: Path) -> None:
    """Cut at its first request, the restart log no longer shows that the server started
    there: the missing steps may have been cut away, so they are mismatches."""
    log = restarted / "server.log"
    lines = log.read_text("utf-8").splitlines(True)
    first = next(i for i, line in enumerate(lines) if "get_availabl" in line)
    log.write_text("".join(lines[first:]), "utf-8")
    result = grade_folder(restarted)
    for check_id in UNSEEN:
        check = check_of(result, check_id)
        assert check.status == "failed" and check.message_id != f"{check_id}.unconfirmed"


def test_a_restart_after_the_cache_step_leaves_steps_2_to_5_unconfirmed(
    grade_folder, submission: Path
) -> None:
    log = submission / "server.log"
    log.write_text(restarted_before(log.read_text("utf-8"), "/   120 tokens"), "utf-8")
    result = grade_folder(submission)
    unseen = (*UNSEEN, "cache.in_log")
    assert [c.id for c in result.checks if c.status == "failed"] == list(unseen)
    for check_id in unseen:
        check = check_of(result, check_id)
        assert check.message_id == f"{check_id}.unconfirmed"
        assert "redo steps 2–5 on this server" in (check.message or "")
    assert check_of(result, "sentence.in_log").status == "passed"
