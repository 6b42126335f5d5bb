"""Trust in both directions: fabrications are caught, honest variation keeps every mark.

Every fabrication starts from a real llama-server capture (`tests/data/real/`, not a
published sample, so it stands for a student's own run) edited the way a student with a
text editor would (`tests/fabrications.py`). Each is caught by a named check, and no
edited copy scores more than the honest capture it started from: hiding a mistake never
pays.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import fabrications as fab
from tests.conftest import REAL, SAMPLES, check_of, statuses


def copy_of(name: str, tmp_path: Path, root: Path = REAL) -> Path:
    target = tmp_path / name.replace("/", "_")
    shutil.copytree(root / name, target)
    return target


def not_passed(result) -> set[str]:
    return {c.id for c in result.checks if c.status != "passed"}


# -- honest variation keeps full marks -----------------------------------------------------


@pytest.mark.parametrize("digits", [1, 0], ids=["0.1 ms", "whole ms"])
def test_times_rounded_by_the_student_keep_full_marks(grade_folder, tmp_path, digits) -> None:
    folder = copy_of("correct", tmp_path)
    fab.round_times(folder, digits)
    result = grade_folder(folder)
    assert not_passed(result) == set() and result.score == result.max_score


def test_extra_keys_in_every_json_file_keep_full_marks(grade_folder, tmp_path) -> None:
    folder = copy_of("correct", tmp_path)
    fab.add_extra_keys(folder)
    assert not_passed(grade_folder(folder)) == set()


INTEGRITY = (
    "submission.original",
    "log.intact",
    "log.lab_run",
    "log.plausible",
    "sse.in_log",
    "sse.one_response",
    "chunks.in_stream",
    "ttft.in_log",
    "prefill.in_log",
    "cache.in_log",
    "sentence.in_log",
    "cancel.in_log",
)


@pytest.mark.parametrize("name", sorted(p.name for p in REAL.iterdir() if p.is_dir()))
def test_no_real_capture_fails_an_integrity_check(grade_folder, name) -> None:
    status = statuses(grade_folder(REAL / name))
    assert {i: status[i] for i in INTEGRITY if status[i] != "passed"} == {}


# -- fabrications are caught, and never outscore the honest original -----------------------

FABRICATIONS: dict[str, tuple[str, Callable[[Path], None], set[str]]] = {
    "jittered client times": ("correct", fab.jitter_times, {"ttft.in_log"}),
    "hand-typed files, one-line log": ("correct", fab.hand_typed, {"log.intact"}),
    "cache-on hidden in prefill.json": (
        "cache_on_in_prefill",
        fab.hide_cache_on_in_json,
        {"prefill.in_log"},
    ),
    "cache-on hidden in prefill.json and the log": (
        "cache_on_in_prefill",
        fab.hide_cache_on_in_json_and_log,
        {"log.intact"},
    ),
    "cache-on hidden, the log's timing lines deleted": (
        "cache_on_in_prefill",
        fab.hide_cache_on_deleting_log_lines,
        {"log.intact"},
    ),
    "open connection hidden in cancel.json": (
        "no_close_on_cancel",
        fab.hide_no_close,
        {"cancel.in_log"},
    ),
    "open connection hidden, `cancel task` appended to the log": (
        "no_close_on_cancel",
        fab.hide_no_close_with_cancel_line,
        {"log.intact"},
    ),
    "host-memory cache hit hidden in cache.json": (
        "no_cache_ram_flag",
        fab.hide_no_cache_ram,
        {"cache.in_log"},
    ),
    "1,366-token prefill in 3 ms, in prefill.json and the log": (
        "correct",
        fab.faster_prefill_in_json_and_log,
        {"log.intact"},
    ),
    "ttft.json and sentence.json from another run": (
        "correct",
        lambda folder: fab.stitch(folder, REAL / "role_chunk_counted"),
        {"ttft.in_log", "sentence.in_log"},
    ),
}


@pytest.mark.parametrize("case", FABRICATIONS, ids=list(FABRICATIONS))
def test_a_fabrication_is_caught_by_its_check(grade_folder, tmp_path, case) -> None:
    base, edit, catchers = FABRICATIONS[case]
    folder = copy_of(base, tmp_path)
    edit(folder)
    failed = {c.id for c in grade_folder(folder).checks if c.status == "failed"}
    assert catchers <= failed


@pytest.mark.parametrize("case", FABRICATIONS, ids=list(FABRICATIONS))
def test_a_fabrication_never_outscores_its_honest_original(grade_folder, tmp_path, case) -> None:
    base, edit, _ = FABRICATIONS[case]
    folder = copy_of(base, tmp_path)
    edit(folder)
    assert grade_folder(folder).score < grade_folder(REAL / base).score


def test_the_published_sample_handed_in_is_caught_naming_it(grade_folder, tmp_path) -> None:
    folder = copy_of("correct", tmp_path, SAMPLES)
    check = check_of(grade_folder(folder), "submission.original")
    assert check.status == "failed" and '"correct"' in (check.message or "")


def test_the_published_sample_with_new_times_and_id_is_caught(grade_folder, tmp_path) -> None:
    folder = copy_of("correct", tmp_path, SAMPLES)
    fab.jitter_times(folder)
    assert check_of(grade_folder(folder), "submission.original").status == "failed"


def test_the_published_sample_in_its_own_folder_is_graded_as_itself(grade_folder) -> None:
    check = check_of(grade_folder(SAMPLES / "correct"), "submission.original")
    assert check.status == "passed" and check.message_id == "submission.original.is_sample"


def test_a_link_to_a_published_sample_is_not_the_sample(grade_folder, tmp_path) -> None:
    link = tmp_path / "llm"
    link.symlink_to(SAMPLES / "correct", target_is_directory=True)
    assert check_of(grade_folder(link), "submission.original").status == "failed"
