"""The grader's own failure is told apart from the student's, by exit status and in every
format: a crashed check is exit 3 and `grader_error`, never a plain exit 1."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

import checks
from checks import LAB
from grader.cli.main import main
from grader.engine import labs
from tests.conftest import CORRECT, ROOT, SAMPLES

RESULT_SCHEMA = json.loads((ROOT / "grader" / "schemas" / "result.schema.json").read_text("utf-8"))


def _crash(ctx: object) -> None:
    raise ZeroDivisionError("a bug in the check")


@pytest.fixture
def crashing_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab with one check, ttft.medians, replaced by one that crashes."""
    replaced = tuple(
        dataclasses.replace(c, run=_crash) if c.id == "ttft.medians" else c for c in LAB.checks
    )
    crashing = dataclasses.replace(LAB, checks=replaced)
    monkeypatch.setattr(checks, "LAB", crashing)
    monkeypatch.setitem(labs._loaded, LAB.name, crashing)  # what `--lab first-token` loads


def check(capsys: pytest.CaptureFixture[str], folder: object, *args: str) -> tuple[int, str]:
    code = main(["check", str(folder), "--color", "never", *args])
    return code, capsys.readouterr().out


def test_every_check_passed_is_0(capsys) -> None:
    assert check(capsys, CORRECT)[0] == 0


def test_a_failed_check_is_1_and_no_grader_error(capsys) -> None:
    code, out = check(capsys, SAMPLES / "role_chunk_counted", "--format", "json")
    assert code == 1 and json.loads(out)["grader_error"] is False


def test_no_folder_is_2(capsys, tmp_path) -> None:
    assert check(capsys, tmp_path / "nope")[0] == 2


def test_a_crashed_check_is_3_even_when_others_fail(capsys, crashing_lab) -> None:
    assert check(capsys, CORRECT)[0] == 3
    assert check(capsys, SAMPLES / "role_chunk_counted")[0] == 3


def test_json_says_grader_error(capsys, crashing_lab) -> None:
    code, out = check(capsys, CORRECT, "--format", "json")
    result = json.loads(out)
    jsonschema.validate(result, RESULT_SCHEMA)
    assert code == 3 and result["grader_error"] is True and result["gradable"] is True
    statuses = {c["id"]: c["status"] for c in result["checks"]}
    assert statuses["ttft.medians"] == "error" and statuses["ttft.tokens"] == "passed"


def test_text_and_markdown_warn_that_the_score_is_not_final(capsys, crashing_lab) -> None:
    for fmt in ("text", "markdown"):
        _, out = check(capsys, CORRECT, "--format", fmt)
        assert "The grader itself failed on ttft.medians" in out and "not final" in out


def test_gradescope_warns_and_flags_the_error(capsys, crashing_lab) -> None:
    _, out = check(capsys, CORRECT, "--format", "gradescope")
    doc = json.loads(out)
    assert doc["extra_data"]["grader_error"] is True
    assert doc["output"].startswith("**⚠️ The grader itself failed on ttft.medians")
    test = next(t for t in doc["tests"] if t["extra_data"]["id"] == "ttft.medians")
    assert test["extra_data"]["status"] == "error" and test["score"] == 0


def test_prairielearn_does_not_count_the_attempt(capsys, crashing_lab) -> None:
    _, out = check(capsys, CORRECT, "--format", "prairielearn")
    doc = json.loads(out)
    assert doc["gradable"] is False and doc["score"] == 0
    assert "ttft.medians" in doc["format_errors"][0] and doc["tests"] == []


def test_prairielearn_grades_a_failed_submission_normally(capsys) -> None:
    _, out = check(capsys, SAMPLES / "role_chunk_counted", "--format", "prairielearn")
    doc = json.loads(out)
    assert doc["gradable"] is True and 0 < doc["score"] < 1


def test_junit_tells_error_from_failure(capsys, crashing_lab) -> None:
    _, out = check(capsys, SAMPLES / "role_chunk_counted", "--format", "junit")
    root = ET.fromstring(out.encode("utf-8"))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    error = cases["ttft.medians"].find("error")
    failure = cases["chunks.role_chunk_excluded"].find("failure")
    assert error is not None and error.get("type") == "grader_error"
    assert failure is not None and failure.get("type") == "check_failed"
    props = {p.get("name"): p.get("value") for p in root.find("testsuite/properties")}
    assert props["grader_error"] == "true"


def test_junit_not_gradable_is_an_error_of_its_own_kind(capsys, tmp_path) -> None:
    _, out = check(capsys, tmp_path / "nope", "--format", "junit")
    error = ET.fromstring(out.encode("utf-8")).find(".//testcase/error")
    assert error is not None and error.get("type") == "not_gradable"


def test_an_internal_error_still_gives_a_valid_result_saying_so(capsys, monkeypatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("grader.engine.grade.grade", broken)
    code = main(["check", str(CORRECT), "--format", "json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    jsonschema.validate(result, RESULT_SCHEMA)
    assert code == 3 and result["grader_error"] is True and result["gradable"] is False
    assert "boom" in result["format_errors"][0] and "internal error" in captured.err


def test_a_batch_with_a_crashed_check_is_3(crashing_lab, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    code = main(["batch", str(CORRECT), "--out", str(out), "--jobs", "1", "--no-progress"])
    assert code == 3
    assert json.loads((out / "results" / "correct.json").read_text("utf-8"))["grader_error"]


def test_a_batch_where_a_submission_could_not_be_graded_is_1(tmp_path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    out = tmp_path / "out"
    code = main(["batch", str(tmp_path / "empty"), "--out", str(out), "--no-progress"])
    assert code == 1
