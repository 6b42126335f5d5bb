"""The input digest: equal inputs give equal digests, any change to what a result depends
on changes it, and the submission's path is not part of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checks import LAB
from grader.engine import grade as grade_module
from grader.engine.grade import grade, submission_digest
from grader.engine.rubric import parse_rubric
from grader.words.problems import Location, Problem
from tests.conftest import CORRECT, ROOT

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def rubric(text: str = RUBRIC_TEXT):
    return parse_rubric(text, "r.toml", LAB.all_check_ids(), LAB.parameters(), LAB.name)


def digest(folder: Path, text: str = RUBRIC_TEXT, **kwargs: object) -> str | None:
    return grade(LAB, str(folder), rubric(text), **kwargs).input_digest  # type: ignore[arg-type]


def test_two_folders_with_equal_files_have_equal_digests(submission: Path, tmp_path) -> None:
    other = tmp_path / "elsewhere" / "bob"
    shutil.copytree(submission, other)
    assert digest(submission) == digest(other) == digest(CORRECT)


def test_one_changed_byte_changes_the_digest(submission: Path) -> None:
    before = digest(submission)
    path = submission / "ttft.json"
    path.write_bytes(path.read_bytes().replace(b"1", b"2", 1))
    assert digest(submission) != before


def test_a_missing_file_and_an_empty_one_differ(submission: Path) -> None:
    (submission / "health.json").unlink()
    missing = digest(submission)
    (submission / "health.json").write_bytes(b"")
    assert digest(submission) != missing


def test_any_change_to_the_rubric_file_changes_the_digest() -> None:
    assert digest(CORRECT, RUBRIC_TEXT + "\n# a comment\n") != digest(CORRECT)


def test_the_language_is_part_of_the_digest() -> None:
    assert digest(CORRECT, lang="ja") != digest(CORRECT, lang="en")


def test_the_grader_version_is_part_of_the_digest(monkeypatch) -> None:
    before = digest(CORRECT)
    monkeypatch.setattr(grade_module, "__version__", "99.0")
    assert digest(CORRECT) != before


def test_the_digest_can_be_computed_without_grading(tmp_path: Path) -> None:
    log = tmp_path / "llama.log"
    shutil.copy(CORRECT / "server.log", log)
    too_big = Problem(
        "file.too_big", {"file": "sse_raw.txt", "size": 9, "limit": 1}, Location("sse_raw.txt")
    )
    for kwargs in ({}, {"overrides": {"log": str(log)}}, {"refused": {"sse": too_big}}):
        graded = grade(LAB, str(CORRECT), rubric(), **kwargs)  # type: ignore[arg-type]
        assert submission_digest(LAB, str(CORRECT), rubric(), "en", **kwargs) == graded.input_digest  # type: ignore[arg-type]


def test_no_digest_for_a_folder_that_is_not_there(tmp_path: Path) -> None:
    assert submission_digest(LAB, str(tmp_path / "nope"), rubric(), "en") is None


@pytest.mark.parametrize("lang", ["xx", "en"])
def test_an_unknown_language_digests_as_english(lang: str) -> None:
    assert submission_digest(LAB, str(CORRECT), rubric(), lang) == digest(CORRECT)
