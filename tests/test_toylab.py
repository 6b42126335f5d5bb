"""The engine against a lab of its own (tests/toylab): nothing of the first-token lab.

The toy has one artifact (answer.json, with its own schema), two checks (the second
after the first), a rubric with its own limit, an English catalog and one report
section. Grading it, skipping, limits, catalogs, schemas, the batch and the class
report all work the same: a second lab is a second package.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader import class_report as cr
from grader.batch.run import run as run_batch
from grader.engine.grade import grade
from grader.engine.rubric import RubricError, load_lab_rubric, parse_rubric
from tests.conftest import ROOT
from tests.toylab import LAB

RUBRIC = (ROOT / "tests" / "toylab" / "rubric.toml").read_text("utf-8")


def answer(folder: Path, answer: object = 42, seconds: object = 3.5, **extra: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    document = {"question": "6 x 7", "answer": answer, "seconds": seconds, **extra}
    (folder / "answer.json").write_text(json.dumps(document), "utf-8")
    return folder


def graded(folder: Path, text: str = RUBRIC, **kwargs: object):
    rubric = parse_rubric(
        text, "r.toml", LAB.all_check_ids(), LAB.parameters(), LAB.name, LAB.limits
    )
    return grade(LAB, str(folder), rubric, **kwargs)  # type: ignore[arg-type]


def statuses(result) -> dict[str, str]:
    return {c.id: c.status for c in result.checks}


def test_a_right_answer_gets_full_marks_with_the_labs_words(tmp_path: Path) -> None:
    result = graded(answer(tmp_path / "s"))
    assert (result.lab, result.score, result.max_score) == ("toy", 4.0, 4.0)
    assert list(statuses(result)) == ["answer.schema", "answer.correct", "answer.quick"]
    schema = result.checks[0]
    assert (
        schema.message == "answer.json is a well-formed answer."
    )  # the lab's, before the engine's
    assert schema.data == {"seconds": 3.5}  # what the lab measures travels in the result
    assert result.checks[2].message == "Answered in 3.5 s."


def test_a_wrong_answer_fails_and_what_builds_on_it_is_skipped(tmp_path: Path) -> None:
    result = graded(answer(tmp_path / "s", answer=41, seconds=99))
    assert statuses(result) == {
        "answer.schema": "passed",
        "answer.correct": "failed",
        "answer.quick": "skipped",  # after answer.correct: its premise failed
    }
    wrong = result.checks[1]
    assert wrong.message == 'For "6 x 7" the answer is 42, not 41.' and wrong.hint == "Think again."
    assert (wrong.expected, wrong.found, wrong.location.pointer) == (42, 41, "/answer")
    assert result.checks[2].message_id == "engine.skipped.check"
    assert "answer.correct" in (result.checks[2].message or "")


def test_the_labs_own_schema_judges_its_file(tmp_path: Path) -> None:
    result = graded(answer(tmp_path / "s", answer="forty-two", colour="blue"))
    assert statuses(result)["answer.schema"] == "failed"
    problems = [p.message_id for p in result.artifacts[0].problems]
    assert problems == ["schema.additionalProperties", "schema.type"]  # shallow first
    assert set(statuses(result).values()) == {"failed", "skipped"}
    assert LAB.schemas.names() == ["answer"] and LAB.schemas.refusal("answer") is None


def test_the_labs_own_limit_is_set_in_its_rubric(tmp_path: Path) -> None:
    folder = answer(tmp_path / "s")
    tight = RUBRIC.replace('version = "1"', 'version = "1"\n[limits]\nanswer_bytes = 10')
    result = graded(folder, tight)
    assert result.artifacts[0].problems[0].message_id == "file.too_big"
    with pytest.raises(RubricError, match="answer_bytes"):  # a typo names the real limit
        graded(folder, RUBRIC.replace('version = "1"', 'version = "1"\n[limits]\nanswer_byte = 1'))


def test_a_file_over_a_limit_is_told_the_engines_hint_for_its_size(tmp_path: Path) -> None:
    tight = RUBRIC.replace('version = "1"', 'version = "1"\n[limits]\nanswer_bytes = 10')
    schema = graded(answer(tmp_path / "s"), tight).checks[0]
    assert schema.hint is not None and schema.hint.startswith("A run of the lab makes no file")


def test_a_rubric_is_for_one_lab(tmp_path: Path) -> None:
    first_token = (ROOT / "checks" / "rubric.toml").read_text("utf-8")
    with pytest.raises(RubricError, match='for the lab "first-token", not for "toy"'):
        graded(tmp_path, first_token)
    assert load_lab_rubric(LAB).lab == "toy"


def test_a_language_the_lab_lacks_falls_back_to_english(tmp_path: Path) -> None:
    result = graded(answer(tmp_path / "s", answer=1), lang="ja")
    assert result.language == "ja"
    assert result.checks[1].title == "The answer is right"  # the toy has English only
    assert result.checks[0].message == "answer.jsonは正しい形式です。"  # the engine's Japanese


def test_grading_the_toy_imports_nothing_of_the_first_token_lab(tmp_path: Path) -> None:
    folder = answer(tmp_path / "s")
    code = (
        "import sys; from tests.toylab import LAB; from grader.engine.grade import grade; "
        "from grader.engine.rubric import load_lab_rubric; "
        f"r = grade(LAB, {str(folder)!r}, load_lab_rubric(LAB)); "
        "print(r.score, sorted(m for m in sys.modules if m == 'checks' or m.startswith('checks.')))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert run.stdout.strip() == "4.0 []"


def test_a_batch_of_the_toy_and_its_class_report(tmp_path: Path) -> None:
    answer(tmp_path / "class" / "alice")
    answer(tmp_path / "class" / "bob", answer=41)
    answer(tmp_path / "class" / "carol", seconds=60)
    report = run_batch([str(tmp_path / "class")], str(tmp_path / "out"), lab_ref="tests.toylab:LAB")
    assert [(r.id, r.score) for r in report.rows] == [("alice", 4.0), ("bob", 1.0), ("carol", 3.0)]
    book = (tmp_path / "out" / "gradebook.csv").read_text("utf-8").splitlines()
    assert book[0].endswith(",answer.schema,answer.correct,answer.quick")
    page = cr.render_report(cr.load_class(tmp_path / "out"), "en", LAB)
    assert '<section id="answers"><h2>Answers of the class</h2>' in page
    assert '<a href="#answers">' in page and "3 answers with their time." in page
    assert "answered too slowly" in page  # the toy's own integrity flag
    assert "physics" not in page and "chart-prefill" not in page


def test_a_lab_without_a_report_spec_still_gets_the_generic_page(tmp_path: Path) -> None:
    plain = dataclasses.replace(LAB, class_report=None)
    result = graded(answer(tmp_path / "s"))
    student = cr.student_of("s", json.loads(result.to_json()))
    page = cr.render_report(cr.ClassData((student,)), "en", plain)
    assert 'id="chart-scores"' in page and '<section id="answers">' not in page


def test_the_report_of_one_lab_lists_another_labs_results_apart(tmp_path: Path, rubric) -> None:
    """A results folder holding another lab's result too: the page is the toy's, and the
    stray result is listed as unreadable with the reason, not drawn as a toy student."""
    from checks import LAB as FIRST_TOKEN

    run_batch(
        [str(answer(tmp_path / "class" / "alice"))],
        str(tmp_path / "out"),
        lab_ref="tests.toylab:LAB",
    )
    stray = grade(FIRST_TOKEN, str(ROOT / "sample_submissions" / "correct"), rubric)
    (tmp_path / "out" / "results" / "zed.json").write_text(stray.to_json(), "utf-8")
    (tmp_path / "out" / "summary.json").unlink()  # results gathered by hand: all are read
    data = cr.load_class(tmp_path / "out", LAB.name)
    assert [s.id for s in data.students] == ["alice"]
    assert [(u.name, u.reason) for u in data.unreadable] == [
        ("zed.json", "a result of the lab 'first-token'")
    ]
