"""Specification of cancel.in_log: the log tells the cancel step's story as cancel.json does.

Of the log's cut-off tasks and its requests that ran to max_tokens (the latest first),
one whose story agrees with cancel.json is enough; when none does, the latest one's
disagreement is the failure; a log with neither fails as telling no story at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import check_of


def edit(path: Path, **changes: object) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text("utf-8")), **changes}), "utf-8")


def test_the_real_capture_tells_its_cancel_as_cancel_json_does(
    grade_folder, submission: Path
) -> None:
    assert check_of(grade_folder(submission), "cancel.in_log").status == "passed"


def test_a_close_far_earlier_than_the_server_saw_it_fails_with_when_it_saw_it(
    grade_folder, submission: Path
) -> None:
    edit(submission / "cancel.json", closed_at_ms=50_000.0)
    check = check_of(grade_folder(submission), "cancel.in_log")
    assert (check.status, check.message_id) == ("failed", "cancel.in_log.close_time")
    assert check.found == 50_000.0


def test_the_failure_is_the_latest_cut_off_tasks_story(grade_folder, submission: Path) -> None:
    log = submission / "server.log"
    text = log.read_text("utf-8")
    log.write_text(text * 3, "utf-8")  # three runs, each with its cancel
    edit(submission / "cancel.json", closed_at_ms=50_000.0)
    check = check_of(grade_folder(submission), "cancel.in_log")
    assert check.message_id == "cancel.in_log.close_time"
    last_cancel = max(i for i, line in enumerate((text * 3).splitlines()) if "cancel task" in line)
    assert f"(line {last_cancel + 1})" in (check.message or "")


def test_one_story_that_agrees_is_enough(grade_folder, submission: Path) -> None:
    """The cancel disagrees with a close at 50 s, but a request that ran to its 64 tokens
    in 1.6 s agrees: the client's 50 s cover it."""
    edit(submission / "cancel.json", closed_at_ms=50_000.0, max_tokens=64)
    assert check_of(grade_folder(submission), "cancel.in_log").status == "passed"


def test_a_log_with_no_cut_off_task_and_no_request_of_max_tokens_tells_no_story(
    grade_folder, submission: Path
) -> None:
    log = submission / "server.log"
    text = log.read_text("utf-8")
    cancelled = re.search(r"cancel task, id_task = (\d+)", text)
    assert cancelled is not None
    task = f"| task {cancelled.group(1)} |"  # the cut-off task's lines go with its cancel
    lines = text.splitlines(True)
    log.write_text("".join(x for x in lines if "cancel task" not in x and task not in x), "utf-8")
    check = check_of(grade_folder(submission), "cancel.in_log")
    assert (check.status, check.message_id) == ("failed", "cancel.in_log.no_request")
