"""One reader of result JSON: `Result.from_dict` (and `from_json`, `read_result`), which
validates against the result schema before it builds anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.batch import rows as batch_rows
from grader.engine.result import NotAResult, Result, read_result
from grader.words.visible import visible_result
from tests.conftest import EXPECTED, SAMPLES, graded


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_result_reads_back_as_itself(name: str) -> None:
    written = visible_result(graded(name))
    assert Result.from_dict(json.loads(written.to_json())) == written
    assert Result.from_json(written.to_json()) == written


def test_reading_a_good_result_imports_no_jsonschema(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "r.json"
    path.write_text(visible_result(graded("correct")).to_json(), "utf-8")
    code = (
        "import sys; from grader.engine.result import read_result; "
        f"read_result({str(path)!r}); print('jsonschema' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "not strict JSON"),
        ('{"a": NaN}', "not strict JSON"),
        ('{"gradable": true, "gradable": false}', "not strict JSON"),
        ("[]", "should be a object"),
    ],
)
def test_what_is_not_a_result_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(NotAResult, match=reason):
        Result.from_json(text)


def test_a_file_is_read_under_a_cap_and_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b"\xff{}")
    with pytest.raises(NotAResult, match="UTF-8"):
        read_result(str(path))
    path.write_text(visible_result(graded("correct")).to_json(), "utf-8")
    with pytest.raises(NotAResult, match="larger than"):
        read_result(str(path), max_bytes=100)
    assert read_result(str(path)).score == graded("correct").score


def test_resume_reads_a_result_only_when_it_is_one(tmp_path: Path) -> None:
    result = visible_result(graded("correct"))
    (tmp_path / "a.json").write_text(result.to_json(), "utf-8")
    row = batch_rows.read_back(str(tmp_path), "a", result.submission, result.input_digest, None)
    assert row is not None and row.score == result.score
    broken = json.loads(result.to_json())
    broken["checks"][0]["status"] = "fine"
    (tmp_path / "a.json").write_text(json.dumps(broken), "utf-8")
    assert (
        batch_rows.read_back(str(tmp_path), "a", result.submission, result.input_digest, None)
        is None
    )
    assert str(SAMPLES / "correct") == graded("correct").submission
