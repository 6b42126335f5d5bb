"""What a student over one of the grader's limits is told, and that the lab's caps (the
log's, the JSON documents') keep every honest file far inside them.

A file's problem is told what to do by the hint for that problem where a catalog has one
(`engine.schema_hint."file.too_big"`), else by the hint for its kind (`...schema_hint.file`):
"save the file itself" is no advice for a file that is merely too big.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.grade import catalog_for, grade
from grader.engine.rubric import parse_rubric
from grader.engine.runner import Outcome, hint_ids
from tests.conftest import CORRECT, ROOT

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def _limited(limits: str):
    text = RUBRIC_TEXT.replace('version = "2026.12"', f'version = "2026.12"\n[limits]\n{limits}')
    return parse_rubric(text, "r.toml", LAB.all_check_ids(), LAB.parameters(), LAB.name, LAB.limits)


def _schema_check(folder: Path | str, artifact: str, limits: str = "", lang: str = "en"):
    result = grade(LAB, str(folder), _limited(limits), lang=lang)  # type: ignore[arg-type]
    return next(c for c in result.checks if c.id == f"{artifact}.schema")


def _lab_text(key: str, lang: str = "en") -> str:
    return catalog_for(LAB, lang).raw(key)  # type: ignore[return-value]


def test_a_log_over_its_line_limit_is_told_which_lines_to_keep() -> None:
    check = _schema_check(CORRECT, "log", "log_lines = 10")
    assert (check.status, check.message_id) == ("failed", "log.too_many_lines")
    assert check.hint == _lab_text("engine.schema_hint.log.too_many_lines")
    assert "`initializing`" in check.hint


def test_a_log_over_its_byte_limit_is_told_which_lines_to_keep() -> None:
    check = _schema_check(CORRECT, "log", "log_bytes = 1000")
    assert (check.status, check.message_id) == ("failed", "file.too_big")
    assert check.hint == _lab_text("engine.schema_hint.file.too_big")
    assert "server.log" in check.hint and "`initializing`" in check.hint


def test_the_hint_for_a_problem_is_said_in_the_students_language() -> None:
    check = _schema_check(CORRECT, "log", "log_lines = 10", lang="ja")
    assert check.hint == _lab_text("engine.schema_hint.log.too_many_lines", "ja")
    assert check.hint != _lab_text("engine.schema_hint.log.too_many_lines", "en")


def test_a_stream_over_its_event_limit_is_told_to_stream_a_shorter_answer() -> None:
    check = _schema_check(CORRECT, "sse", "sse_events = 3")
    assert (check.status, check.message_id) == ("failed", "sse.too_many_events")
    assert check.hint == _lab_text("engine.schema_hint.sse.too_many_events")


def test_a_problem_without_a_hint_of_its_own_gets_the_hint_for_its_kind(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    shutil.copytree(CORRECT, folder)
    (folder / "server.log").write_text("", "utf-8")
    empty = _schema_check(folder, "log")
    assert empty.message_id == "log.empty"
    assert empty.hint == _lab_text("engine.schema_hint.log")  # the lab's, for every log problem
    (folder / "server.log").unlink()
    (folder / "server.log").mkdir()
    folder_instead = _schema_check(folder, "log")
    assert folder_instead.message_id.startswith("file.")
    assert folder_instead.hint == _lab_text("engine.schema_hint.file")  # the engine's


def test_a_missing_file_gets_how_the_lab_makes_it(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    shutil.copytree(CORRECT, folder)
    (folder / "server.log").unlink()
    missing = _schema_check(folder, "log")
    assert missing.message_id == "file.missing"
    assert missing.hint == _lab_text("engine.missing_hint.log")  # the lab's: voice-llm log


@pytest.mark.parametrize(
    ("hint_id", "expected"),
    [
        (None, ("ttft.medians.hint",)),
        (
            "engine.schema_hint.file.too_big",
            ("engine.schema_hint.file.too_big", "engine.schema_hint.file"),
        ),
        (
            "engine.schema_hint.schema.type",
            ("engine.schema_hint.schema.type", "engine.schema_hint.schema"),
        ),
        ("engine.schema_hint.file", ("engine.schema_hint.file",)),
        ("somewhere.else.hint", ("somewhere.else.hint",)),
    ],
)
def test_the_hints_tried_go_from_the_problem_to_its_kind(
    hint_id: str | None, expected: tuple[str, ...]
) -> None:
    outcome = Outcome("ttft.medians", "failed", 0, 1, "ttft", hint_id=hint_id)
    assert hint_ids(outcome) == expected


def test_the_log_limits_hold_two_hundred_runs_of_the_lab() -> None:
    real = sorted((ROOT / "tests" / "data" / "real").glob("*/server.log"))
    assert real, "the real captures' logs are the measure of an honest log"
    for path in real:
        text = path.read_text("utf-8")
        assert len(text.encode()) * 200 <= LAB.limits["log_bytes"], path.parent.name
        assert text.count("\n") * 200 <= LAB.limits["log_lines"], path.parent.name


def test_a_json_document_over_its_cap_is_told_what_a_run_makes() -> None:
    check = _schema_check(CORRECT, "props", "json_bytes = 1000")
    assert (check.status, check.message_id) == ("failed", "file.too_big")
    assert check.hint == _lab_text("engine.schema_hint.file.too_big")


def test_the_json_documents_cap_holds_a_hundred_times_what_a_run_makes() -> None:
    documents = sorted((ROOT / "tests" / "data" / "real").glob("*/*.json"))
    assert len(documents) >= 40
    for path in documents:
        assert path.stat().st_size * 100 <= LAB.limits["json_bytes"], path
