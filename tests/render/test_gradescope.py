"""The Gradescope renderer and `grader/platforms/gradescope/`, against Gradescope's spec.

The JSON Schema below is written from "Autograder Specifications"
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): "Output format" for
the keys and their types, "Controlling Test Case Visibility" for the visibility values,
"Test case status" for `status`, "Output String Formatting" for the formats. Every key
the spec lists is allowed and nothing else, so a misspelt or invented key fails.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.engine.result import Result
from grader.engine.rubric import parse_rubric
from grader.render import RenderOptions
from grader.render.gradescope import render
from tests.conftest import EXPECTED, REAL, ROOT, graded

VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
TEST = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "max_score": {"type": "number"},
        "status": {"enum": ["passed", "failed"]},
        "name": {"type": "string"},
        "name_format": FORMAT,
        "number": {"type": "string"},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "tags": {"type": "array", "items": {"type": "string"}},
        "visibility": VISIBILITY,
        "extra_data": {"type": "object"},
    },
}
GRADESCOPE_RESULTS = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    # The spec: top-level score "optional, but required if not on each test case";
    # this grader always gives it (it is the whole grade, tests included).
    "required": ["score", "tests"],
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": TEST},
        "leaderboard": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "value"],
                "properties": {
                    "name": {"type": "string"},
                    "value": {"type": ["number", "string"]},
                    "order": {"enum": ["asc", "desc"]},
                },
            },
        },
    },
}
# What this grader promises on top of the spec, for every test.
TEST_FIELDS = {
    "name",
    "name_format",
    "number",
    "score",
    "max_score",
    "status",
    "output",
    "output_format",
    "tags",
    "visibility",
}

RUN_AUTOGRADER = ROOT / "grader" / "platforms" / "gradescope" / "run_autograder"
SETUP = ROOT / "grader" / "platforms" / "gradescope" / "setup.sh"
OPTIONS = RenderOptions(catalog_for(LAB, "en"))


def results_of(result: Result) -> dict:
    return json.loads(render(result, OPTIONS))


def check_named(doc: dict, check_id: str) -> dict:
    return next(t for t in doc["tests"] if t["extra_data"]["id"] == check_id)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_sample_gives_results_valid_against_gradescopes_spec(name: str) -> None:
    doc = results_of(graded(name))
    jsonschema.validate(doc, GRADESCOPE_RESULTS)
    assert all(set(test) >= TEST_FIELDS for test in doc["tests"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sum_of_test_scores_is_the_score(name: str) -> None:
    doc = results_of(graded(name))
    assert sum(t["score"] for t in doc["tests"]) == pytest.approx(doc["score"])
    assert sum(t["max_score"] for t in doc["tests"]) == pytest.approx(graded(name).max_score)


def test_score_and_max_score_are_the_results() -> None:
    result = graded("no_close_on_cancel")
    doc = results_of(result)
    assert (doc["score"], doc["extra_data"]["max_score"]) == (result.score, result.max_score)
    assert result.score < result.max_score


def test_tests_are_the_checks_numbered_in_order_from_one() -> None:
    result = graded("role_chunk_counted")
    doc = results_of(result)
    assert [t["number"] for t in doc["tests"]] == [str(i) for i in range(1, 1 + len(result.checks))]
    assert [t["extra_data"]["id"] for t in doc["tests"]] == [c.id for c in result.checks]


def test_test_name_is_the_check_id_and_title() -> None:
    doc = results_of(graded("correct"))
    assert check_named(doc, "ttft.medians")["name"] == (
        "ttft.medians: ttft_p50 and total_p50 are medians of the five runs"
    )


def test_a_chinese_test_name_joins_id_and_title_with_a_full_width_colon() -> None:
    from grader.engine.grade import grade
    from grader.engine.rubric import load_lab_rubric

    result = grade(LAB, str(REAL / "correct"), load_lab_rubric(LAB, None, "checks"), lang="zh")
    doc = json.loads(render(result, RenderOptions(catalog_for(LAB, "zh"))))
    assert check_named(doc, "ttft.medians")["name"].startswith("ttft.medians：")


def test_failed_check_output_has_message_location_expected_found_and_hint() -> None:
    test = check_named(results_of(graded("cache_on_in_prefill")), "prefill.cache_off")
    assert (test["status"], test["score"], test["max_score"]) == ("failed", 0, 4)
    assert test["output_format"] == "text"
    lines = test["output"].splitlines()
    assert lines[0].startswith("prefill.json:4 (/0/prompt_n): For 0 docs prompt_n is 13")
    assert lines[1] == "expected: 34   found: 13"
    assert lines[2].startswith("what to do: ") and '"cache_prompt": false' in lines[2]


def test_passed_check_is_passed_with_full_points() -> None:
    test = check_named(results_of(graded("correct")), "cancel.slot_freed")
    assert (test["status"], test["score"], test["max_score"]) == ("passed", 4, 4)


def test_skipped_check_is_failed_with_its_reason() -> None:
    test = check_named(results_of(graded("derived/chunks_nan_time")), "chunks.match_sse")
    assert (test["status"], test["score"]) == ("failed", 0)
    assert test["extra_data"]["status"] == "skipped"
    assert "needs chunks.jsonl" in test["output"]


def test_errored_check_is_failed() -> None:
    result = graded("correct")
    broken = dataclasses.replace(result.checks[0], status="error", points=0.0, message="boom")
    doc = results_of(dataclasses.replace(result, checks=[broken, *result.checks[1:]]))
    assert doc["tests"][0]["status"] == "failed" and doc["tests"][0]["output"] == "boom"


def test_failed_check_worth_no_points_is_still_marked_failed() -> None:
    # Gradescope shows score == max_score as passing unless status says otherwise.
    result = graded("role_chunk_counted")
    checks = [
        dataclasses.replace(c, points=0.0, max_points=0.0) if c.status == "failed" else c
        for c in result.checks
    ]
    doc = results_of(dataclasses.replace(result, checks=checks))
    assert check_named(doc, "chunks.role_chunk_excluded")["status"] == "failed"


def test_tags_are_the_artifact_and_the_lab_step() -> None:
    doc = results_of(graded("correct"))
    assert check_named(doc, "prefill.cache_off")["tags"] == ["prefill"]
    assert check_named(doc, "log.cancel_task")["tags"][-1] == "log"
    assert all(t["tags"] for t in doc["tests"])


def test_every_test_is_visible() -> None:
    doc = results_of(graded("no_close_on_cancel"))
    assert {t["visibility"] for t in doc["tests"]} == {"visible"}


def test_test_names_and_outputs_are_plain_text() -> None:
    doc = results_of(graded("no_close_on_cancel"))
    assert {(t["name_format"], t["output_format"]) for t in doc["tests"]} == {("text", "text")}


# --- what the rubric tells Gradescope: visibility, stdout, the leaderboard -------------

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def rubric_with(old: str, new: str):
    assert old in RUBRIC_TEXT
    text = RUBRIC_TEXT.replace(old, new, 1)
    return parse_rubric(text, "r.toml", LAB.all_check_ids(), LAB.parameters(), LAB.name, LAB.limits)


def results_with(result: Result, rubric, lang: str = "en") -> dict:
    doc = json.loads(render(result, RenderOptions(catalog_for(LAB, lang), rubric=rubric, lab=LAB)))
    jsonschema.validate(doc, GRADESCOPE_RESULTS)
    return doc


HIDE_CANCEL = (
    '[checks."cancel.slot_freed"]\npoints = 4',
    '[checks."cancel.slot_freed"]\npoints = 4\nvisibility = "after_due_date"',
)


def test_a_check_shows_when_its_own_rubric_visibility_says() -> None:
    doc = results_with(graded("correct"), rubric_with(*HIDE_CANCEL))
    assert check_named(doc, "cancel.slot_freed")["visibility"] == "after_due_date"


def test_the_other_checks_take_the_rubrics_default_visibility() -> None:
    rubric = rubric_with(*HIDE_CANCEL)
    doc = results_with(graded("correct"), rubric)
    others = {t["visibility"] for t in doc["tests"] if t["extra_data"]["id"] != "cancel.slot_freed"}
    assert others == {"visible"}


def test_the_rubrics_default_visibility_is_the_results_and_every_tests() -> None:
    rubric = rubric_with('visibility = "visible"', 'visibility = "after_published"')
    doc = results_with(graded("correct"), rubric)
    assert doc["visibility"] == "after_published"
    assert {t["visibility"] for t in doc["tests"]} == {"after_published"}


def test_a_checks_own_visibility_overrides_a_hidden_default() -> None:
    rubric = rubric_with(*HIDE_CANCEL)
    rubric = dataclasses.replace(rubric, gradescope={**rubric.gradescope, "visibility": "hidden"})
    doc = results_with(graded("correct"), rubric)
    assert check_named(doc, "cancel.slot_freed")["visibility"] == "after_due_date"
    assert check_named(doc, "health.ok")["visibility"] == "hidden"


def test_stdout_is_hidden_from_students_by_default() -> None:
    assert results_of(graded("correct"))["stdout_visibility"] == "hidden"
    assert results_with(graded("correct"), rubric_with("", ""))["stdout_visibility"] == "hidden"


def test_stdout_visibility_comes_from_the_rubric() -> None:
    rubric = rubric_with('stdout_visibility = "hidden"', 'stdout_visibility = "visible"')
    assert results_with(graded("correct"), rubric)["stdout_visibility"] == "visible"


def test_no_leaderboard_unless_the_rubric_asks_for_one() -> None:
    assert "leaderboard" not in results_with(graded("correct"), rubric_with("", ""))
    assert "leaderboard" not in results_of(graded("correct"))


LEADERBOARD = ("leaderboard = false", "leaderboard = true")


def test_the_leaderboard_ranks_the_students_own_ttft_p50_lowest_first() -> None:
    result = graded("correct")
    doc = results_with(result, rubric_with(*LEADERBOARD))
    ttft = ROOT / "sample_submissions" / "correct" / "ttft.json"
    p50 = json.loads(ttft.read_text("utf-8"))["ttft_p50"]
    assert doc["leaderboard"] == [
        {"name": "Time to first token, median (ms)", "value": p50, "order": "asc"}
    ]


def test_the_leaderboard_column_is_named_in_the_results_language() -> None:
    doc = results_with(graded("correct"), rubric_with(*LEADERBOARD), lang="ja")
    japanese = catalog_for(LAB, "ja").text("leaderboard.ttft_p50")
    assert doc["leaderboard"][0]["name"] == japanese != "Time to first token, median (ms)"


def test_no_leaderboard_entry_from_a_median_the_grader_did_not_accept() -> None:
    result = graded("derived/ttft_mean_not_median")
    assert next(c for c in result.checks if c.id == "ttft.medians").status == "failed"
    assert "leaderboard" not in results_with(result, rubric_with(*LEADERBOARD))


def test_no_leaderboard_entry_from_a_median_the_log_did_not_confirm() -> None:
    result = graded("fabricated/stitched_runs")  # ttft.json's runs are not the log's
    medians = next(c for c in result.checks if c.id == "ttft.medians")
    # the runs share requests with other steps, which log.one_request_each finds first
    assert medians.status == "skipped"
    assert medians.cause in ("ttft.in_log", "log.one_request_each")
    assert "leaderboard" not in results_with(result, rubric_with(*LEADERBOARD))


def test_top_level_output_is_markdown_with_score_and_each_common_mistake_once() -> None:
    result = graded("role_chunk_counted")
    doc = results_of(result)
    assert doc["output_format"] == "md"
    score = f"{result.score:g}/{result.max_score:g}"
    assert doc["output"].startswith(
        f"**Score: {score}** — {result.summary.passed} passed, 1 failed"
    )
    mistake = next(c.explanation for c in result.checks if c.explanation)
    assert doc["output"].count("Common mistake 1:") == 1
    assert mistake.split(".")[0] in doc["output"]


def test_not_gradable_scores_0_with_the_reasons_in_output(capsys, tmp_path: Path) -> None:
    code = main(["check", str(tmp_path / "nope"), "--format", "gradescope"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, GRADESCOPE_RESULTS)
    assert code == 2
    assert doc["score"] == 0 and doc["tests"] == []
    assert "There is no folder" in doc["output"]
    assert doc["extra_data"]["gradable"] is False


def test_output_is_deterministic_and_has_no_execution_time() -> None:
    result = graded("derived/ttft_four_runs")
    assert render(result, OPTIONS) == render(result, OPTIONS)
    assert "execution_time" not in results_of(result)


# --- grader/platforms/gradescope/run_autograder, in a temporary /autograder ----------


def run_autograder(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = os.environ | {
        "AUTOGRADER_ROOT": str(root),
        "GRADER": f"{sys.executable} -m grader",
        "PYTHON": sys.executable,
        "PYTHONPATH": str(ROOT),
        **env,
    }
    return subprocess.run(
        ["bash", str(RUN_AUTOGRADER)],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def autograder_dir(tmp_path: Path, sample: str | None) -> Path:
    root = tmp_path / "autograder"
    (root / "results").mkdir(parents=True)
    if sample is not None:
        # a real capture that is no published sample: a student's own run
        shutil.copytree(REAL / sample, root / "submission")
    return root


def results_json(root: Path) -> dict:
    doc = json.loads((root / "results" / "results.json").read_text("utf-8"))
    jsonschema.validate(doc, GRADESCOPE_RESULTS)
    return doc


def test_run_autograder_grades_the_submission_into_results_json(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "role_chunk_counted")
    proc = run_autograder(root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = results_json(root)
    assert doc["score"] < doc["extra_data"]["max_score"]
    assert check_named(doc, "chunks.role_chunk_excluded")["status"] == "failed"


def test_run_autograder_tells_gradescope_what_the_rubric_says(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    text = RUBRIC_TEXT.replace(*HIDE_CANCEL).replace(*LEADERBOARD)
    text = text.replace('stdout_visibility = "hidden"', 'stdout_visibility = "after_due_date"')
    (tmp_path / "rubric.toml").write_text(text, "utf-8")
    assert run_autograder(root, GRADER_RUBRIC=str(tmp_path / "rubric.toml")).returncode == 0
    doc = results_json(root)
    assert check_named(doc, "cancel.slot_freed")["visibility"] == "after_due_date"
    assert doc["stdout_visibility"] == "after_due_date"
    assert [e["order"] for e in doc["leaderboard"]] == ["asc"]


def test_run_autograder_gives_full_marks_to_the_correct_sample(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    assert run_autograder(root).returncode == 0
    doc = results_json(root)
    assert doc["score"] == graded("correct").max_score
    assert {t["status"] for t in doc["tests"]} == {"passed"}


def test_run_autograder_without_a_submission_folder_writes_score_0(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, None)
    proc = run_autograder(root)
    assert proc.returncode == 0
    doc = results_json(root)
    assert doc["score"] == 0 and "There is no folder" in doc["output"]


def test_run_autograder_creates_the_results_folder(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    (root / "results").rmdir()
    assert run_autograder(root).returncode == 0
    assert results_json(root)["score"] == graded("correct").max_score


def test_run_autograder_writes_score_0_when_the_grader_cannot_run(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    proc = run_autograder(root, GRADER=str(tmp_path / "no-such-grader"))
    assert proc.returncode == 0
    doc = results_json(root)
    assert doc["score"] == 0 and doc["tests"] == []
    assert "exit status 127" in doc["output"] and "no-such-grader" in doc["output"]


def test_run_autograder_writes_score_0_with_the_error_when_grader_exits_2(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    proc = run_autograder(root, GRADER_RUBRIC=str(rubric))
    assert proc.returncode == 0
    doc = results_json(root)
    assert doc["score"] == 0 and "exit status 2" in doc["output"] and "no.such" in doc["output"]


def test_run_autograder_writes_score_0_when_the_grader_crashes(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    crash = tmp_path / "crash.py"  # exits 1, like an uncaught exception, and writes nothing
    crash.write_text('raise RuntimeError("it broke")\n', "utf-8")
    proc = run_autograder(root, GRADER=f"{sys.executable} {crash}")
    assert proc.returncode == 0
    doc = results_json(root)
    assert doc["score"] == 0 and "it broke" in doc["output"]


def test_run_autograder_does_not_keep_an_old_results_json(tmp_path: Path) -> None:
    root = autograder_dir(tmp_path, "correct")
    (root / "results" / "results.json").write_text('{"score": 71, "tests": []}', "utf-8")
    run_autograder(root, GRADER="false")
    assert results_json(root)["score"] == 0


def test_scripts_are_executable() -> None:
    assert os.access(RUN_AUTOGRADER, os.X_OK) and os.access(SETUP, os.X_OK)
