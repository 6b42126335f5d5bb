"""Specification of the cancel step's physics: what the server can notice, and when.

The server learns that a client closed only when it next writes to it, and it writes
nothing before the task's prompt is computed. So on a loaded pod a close during the
prefill is logged as `cancel task` only after the prefill, and a client whose blocking
`readline()` returns only with the first line closes at the first byte after 0.5 s. The
slot's time budget is the cancel request's own speed in the log, not another step's.
A client that never closed still fails, and an answer that ended before the close is an
honest mistake, never a contradiction of the log.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from checks.class_report import CLASS_REPORT
from grader.class_report.flags import flags_of
from grader.class_report.results import student_from
from tests.conftest import REAL, check_of, graded
from tests.log_time import delay_from

CANCEL_LINE = "cancel task, id_task = 774"


def edit(path: Path, **changes: object) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text("utf-8")), **changes}), "utf-8")


def cancel_as(folder: Path, **changes: object) -> None:
    """cancel.json changed, and report.json's copy of its idle time with it."""
    edit(folder / "cancel.json", **changes)
    if "slot_idle_after_ms" in changes:
        edit(folder / "report.json", cancel_idle_ms=changes["slot_idle_after_ms"])


def cancel_seen_after(folder: Path, launch_to_cancel_ms: float, generated: int) -> None:
    """The log as a loaded pod prints it: the cancel task's `cancel task` line (and all
    after it) `launch_to_cancel_ms` after its launch, its release counting the prompt's
    40 tokens and `generated` more."""
    log = folder / "server.log"
    text = log.read_text("utf-8")
    launch = re.search(r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) .*task 774 \| processing", text, re.M)
    cancel = re.search(r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) .*" + CANCEL_LINE, text, re.M)
    assert launch is not None and cancel is not None

    def ms(found: re.Match[str]) -> float:
        m, s, milli, micro = (int(g) for g in found.groups())
        return (m * 60 + s) * 1000 + milli + micro / 1000

    text = delay_from(text, CANCEL_LINE, launch_to_cancel_ms - (ms(cancel) - ms(launch)))
    text = re.sub(r"(task 774 \| stop processing: n_tokens = )\d+", rf"\g<1>{40 + generated}", text)
    log.write_text(text, "utf-8")


@pytest.fixture
def loaded(submission: Path) -> Path:
    """The correct real capture, its cancel seen 2,364 ms after the launch for a close at
    505 ms before any token came: the prefill took about 2.3 s."""
    cancel_seen_after(submission, 2364.0, generated=1)
    cancel_as(submission, received_tokens=0, closed_at_ms=505.0, slot_idle_after_ms=1860.4)
    return submission


def test_a_cancel_seen_after_a_slow_prefill_agrees_with_a_close_before_any_token(
    grade_folder, loaded: Path
) -> None:
    assert check_of(grade_folder(loaded), "cancel.in_log").status == "passed"


def test_the_slot_busy_through_the_prefill_after_such_a_close_is_still_freed(
    grade_folder, loaded: Path
) -> None:
    result = grade_folder(loaded)
    assert check_of(result, "cancel.slot_freed").status == "passed"
    assert check_of(result, "cancel.interrupted").message_id == "cancel.interrupted.nothing_yet"
    assert result.score == result.max_score


def test_a_late_cancel_after_tokens_had_arrived_is_still_a_contradiction(
    grade_folder, loaded: Path
) -> None:
    """Tokens had arrived, so the server was writing: it sees a close at once."""
    cancel_as(loaded, received_tokens=10)
    check = check_of(grade_folder(loaded), "cancel.in_log")
    assert (check.status, check.message_id) == ("failed", "cancel.in_log.close_time")


def test_a_slot_seen_idle_before_the_server_could_notice_the_close_is_a_contradiction(
    grade_folder, loaded: Path
) -> None:
    """The server saw the close 1,859 ms after it: the slot cannot have been idle 30 ms
    after it."""
    cancel_as(loaded, slot_idle_after_ms=30.0)
    check = check_of(grade_folder(loaded), "cancel.in_log")
    assert check.status == "failed" and check.message_id in (
        "cancel.in_log.close_time",
        "cancel.in_log.idle",
    )


@pytest.fixture
def blocking(submission: Path) -> Path:
    """A client whose blocking readline returned its first line only at 1,966 ms, after
    the prefill, and closed then; the server cancelled 9 ms later."""
    cancel_seen_after(submission, 1975.0, generated=2)
    cancel_as(submission, received_tokens=1, closed_at_ms=1966.0, slot_idle_after_ms=2.2)
    return submission


def test_a_blocking_client_closes_at_the_first_byte_after_half_a_second(
    grade_folder, blocking: Path
) -> None:
    result = grade_folder(blocking)
    check = check_of(result, "cancel.interrupted")
    assert (check.status, check.message_id) == ("passed", "cancel.interrupted.first_byte_late")
    assert "1966" in (check.message or "") and "1975" in (check.message or "")
    assert result.score == result.max_score


def test_a_client_that_waited_past_half_a_second_with_tokens_coming_closed_late(
    grade_folder, blocking: Path
) -> None:
    cancel_as(blocking, received_tokens=40)
    check = check_of(grade_folder(blocking), "cancel.interrupted")
    assert (check.status, check.message_id) == ("failed", "cancel.interrupted.close_time")


def test_a_late_close_claiming_one_token_is_belied_by_the_tokens_the_server_held(
    grade_folder, blocking: Path
) -> None:
    """The release holds the prompt's 40 tokens and 160 generated: far more than one
    token reached a client that closed at its first line (real captures: 43-47 unseen)."""
    log = blocking / "server.log"
    log.write_text(
        re.sub(
            r"(task 774 \| stop processing: n_tokens = )\d+",
            r"\g<1>200",
            log.read_text("utf-8"),
        ),
        "utf-8",
    )
    check = check_of(grade_folder(blocking), "cancel.interrupted")
    assert (check.status, check.message_id) == ("failed", "cancel.interrupted.close_time")


@pytest.fixture
def never_closed(tmp_path: Path) -> Path:
    """The real run that never closed its connection (its log: task 774 ran all 256 tokens
    at 22.8 ms per token)."""
    target = tmp_path / "never_closed"
    shutil.copytree(REAL / "no_close_on_cancel", target)
    return target


def test_a_client_that_never_closed_gets_no_first_byte_excuse(
    grade_folder, never_closed: Path
) -> None:
    cancel_as(never_closed, received_tokens=1, closed_at_ms=1966.0)
    result = grade_folder(never_closed)
    assert check_of(result, "cancel.interrupted").message_id == "cancel.interrupted.close_time"
    assert check_of(result, "cancel.slot_freed").status == "failed"


def test_the_slot_budget_is_the_cancel_requests_own_speed_not_ttfts(
    grade_folder, never_closed: Path
) -> None:
    """ttft.json's runs measured in a load spike (241 ms per token) would give the slot
    255 x 241 / 4 = 15 s; the cancel request itself generated at 22.8 ms per token."""
    ttft = json.loads((never_closed / "ttft.json").read_text("utf-8"))
    for run in ttft["runs"]:
        run["total_ms"] = round(run["ttft_ms"] + 241.0 * (run["tokens"] - 1), 3)
    ttft["total_p50"] = sorted(r["total_ms"] for r in ttft["runs"])[2]
    (never_closed / "ttft.json").write_text(json.dumps(ttft), "utf-8")
    cancel = json.loads((never_closed / "cancel.json").read_text("utf-8"))
    assert cancel["slot_idle_after_ms"] < 0.25 * 241.0 * (256 - cancel["received_tokens"])
    check = check_of(grade_folder(never_closed), "cancel.slot_freed")
    assert (check.status, check.message_id) == ("failed", "cancel.slot_freed.busy")
    assert "server.log" in (check.message or "") and "22.78 ms per token" in (check.message or "")


def test_an_answer_that_ended_before_the_close_shows_nothing_freed() -> None:
    check = check_of(graded("cancel_after_finish"), "cancel.slot_freed")
    assert (check.status, check.message_id) == ("failed", "cancel.slot_freed.finished")


def test_an_answer_that_ended_before_the_close_is_no_accusation() -> None:
    """No `cancel task` in the log, but nothing in the log contradicts cancel.json: the
    task finished before the close. An honest mistake gets no flag."""
    student = student_from("cancel_after_finish", graded("cancel_after_finish"))
    assert flags_of(student, CLASS_REPORT.flags) == ()
