"""Specification of log.one_request_each: every measurement is its own request of the log.

The stream, the five ttft runs, the three prefill requests, the cache step's three, the
sentence and the cancel are each given a request of the log of their own, at once (a
minimum-cost matching); a measurement that fits only requests other measurements hold
fails, naming the one that holds it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checks.assignment import Settings, _hungarian, assign
from checks.formats.llama_log import scan_log
from tests.conftest import EXPECTED, REAL, REAL_EXPECTED, check_of, graded

SETTINGS = Settings(noise_ms=40, noise_share=0.02, overhead_ms=300, sentence_max_tokens=120)


def load(path: Path) -> object:
    return json.loads(path.read_text("utf-8"))


def edit(path: Path, **changes: object) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text("utf-8")), **changes}), "utf-8")


def test_every_measurement_of_the_real_capture_gets_a_request_of_its_own(
    grade_folder, submission: Path
) -> None:
    check = check_of(grade_folder(submission), "log.one_request_each")
    assert check.status == "passed"
    tasks = check.data["tasks"]
    assert len(tasks) == 14  # stream, 5 ttft, 3 prefill, 3 cache, sentence, cancel
    assert len(set(tasks.values())) == 14 and None not in tasks.values()


def test_the_only_request_no_measurement_explains_is_the_short_one_clearing_the_slot(
    grade_folder, submission: Path
) -> None:
    """The "hi" before the cache step has no file of its own: it is the one request left."""
    check = check_of(grade_folder(submission), "log.one_request_each")
    assert check.data["unexplained_count"] == 1
    (clearing,) = check.data["unexplained"]
    line = (submission / "server.log").read_text("utf-8").splitlines()[clearing["line"] - 1]
    assert "prompt eval time" in line and "/    25 tokens" in line


def test_sentence_json_filled_from_a_ttft_runs_numbers_shares_that_runs_request(
    grade_folder, submission: Path
) -> None:
    run = load(submission / "ttft.json")["runs"][2]  # type: ignore[index]
    edit(submission / "sentence.json", ttft_ms=run["ttft_ms"], total_ms=run["total_ms"])
    result = grade_folder(submission)
    check = check_of(result, "log.one_request_each")
    assert (check.status, check.message_id) == ("failed", "log.one_request_each.shared")
    assert check.found == "sentence.json"  # the weaker signature loses the request
    assert "ttft.json /runs/2" in (check.message or "")


def test_a_shared_request_leaves_the_numbers_it_would_confirm_unconfirmed(
    grade_folder, submission: Path
) -> None:
    """Alone, sentence.in_log finds the ttft run's request; one request cannot confirm
    two measurements, so the checks it gates are not counted: the lie scores less than
    the sentence step left undone."""
    run = load(submission / "ttft.json")["runs"][2]  # type: ignore[index]
    edit(submission / "sentence.json", ttft_ms=run["ttft_ms"], total_ms=run["total_ms"])
    forged = grade_folder(submission)
    assert check_of(forged, "sentence.in_log").status == "skipped"
    (submission / "sentence.json").unlink()
    undone = grade_folder(submission)
    assert forged.score < undone.score


def test_one_ttft_run_written_twice_is_one_request_not_two(grade_folder, submission: Path) -> None:
    ttft = load(submission / "ttft.json")
    ttft["runs"][3] = dict(ttft["runs"][1])  # type: ignore[index]
    (submission / "ttft.json").write_text(json.dumps(ttft), "utf-8")
    check = check_of(grade_folder(submission), "log.one_request_each")
    assert check.message_id == "log.one_request_each.shared"
    pair = {"ttft.json /runs/1", "ttft.json /runs/3"}
    assert check.found in pair
    (other,) = pair - {check.found}
    assert other in (check.message or "")


def test_a_measurement_that_fits_no_request_at_all_is_its_own_checks_business(
    grade_folder, submission: Path
) -> None:
    """Numbers the log does not have are sentence.in_log's to report; no request is
    shared, so nothing here fails."""
    edit(submission / "sentence.json", ttft_ms=100.0, total_ms=90_000.0)
    result = grade_folder(submission)
    assert check_of(result, "sentence.in_log").status == "failed"
    check = check_of(result, "log.one_request_each")
    assert check.status == "passed" and check.data["tasks"]["sentence.json"] is None


@pytest.mark.parametrize(
    "name", sorted(name for name, v in EXPECTED.items() if v.get("full_marks") and "/" not in name)
)
def test_every_full_marks_sample_gives_each_measurement_its_own_request(name: str) -> None:
    """Among them: a restart with the log appended (second_run), a 2025 server
    (server_2025), the steps in another order, rounded numbers, a slow and a loaded pod."""
    assert check_of(graded(name), "log.one_request_each").status == "passed"


@pytest.mark.parametrize("name", sorted(REAL_EXPECTED))
def test_every_real_capture_gives_each_measurement_its_own_request(name: str, grade_folder) -> None:
    assert check_of(grade_folder(REAL / name), "log.one_request_each").status == "passed"


def test_the_assignment_depends_only_on_the_files(submission: Path) -> None:
    log = scan_log((submission / "server.log").read_text("utf-8"))
    files = {"ttft": load(submission / "ttft.json"), "prefill": load(submission / "prefill.json")}
    first = assign(log, files, SETTINGS)
    again = assign(scan_log((submission / "server.log").read_text("utf-8")), files, SETTINGS)
    assert [r.line if r else None for r in first.request] == [
        r.line if r else None for r in again.request
    ]


def test_the_matching_is_of_minimum_cost_not_greedy() -> None:
    """Greedy takes column 0 for row 0 (cost 1) and leaves row 1 the 10; the minimum is
    2 + 2."""
    assert _hungarian([[1.0, 2.0], [2.0, 10.0]]) == [1, 0]


def test_the_matching_leaves_extra_columns_free() -> None:
    assert _hungarian([[5.0, 1.0, 3.0]]) == [1]


def test_the_short_request_clearing_the_slot_is_named_before_cache_first(
    grade_folder, submission: Path
) -> None:
    check = check_of(grade_folder(submission), "log.one_request_each")
    assert check.data["clearing"] == check.data["unexplained"][0]


def test_a_cache_step_without_its_clearing_request_has_none(grade_folder) -> None:
    """no_slot_reset skipped the "hi" request: the 12-document prefill comes right before
    cache.first."""
    check = check_of(graded("no_slot_reset"), "log.one_request_each")
    assert check.status == "passed" and check.data["clearing"] is None


def test_a_ttft_json_of_thousands_of_runs_is_no_run_of_the_lab_and_is_not_matched(
    grade_folder, submission: Path
) -> None:
    """Matching them all would cost their square times their candidates; ttft.in_log
    reports such a file."""
    ttft = load(submission / "ttft.json")
    ttft["runs"] = ttft["runs"] * 1000  # type: ignore[index]
    (submission / "ttft.json").write_text(json.dumps(ttft), "utf-8")
    check = check_of(grade_folder(submission), "log.one_request_each")
    assert (
        check.status == "passed" and check.data["measurements"] == 5009
    )  # 5,000 runs, 3 prefill, 6 more
