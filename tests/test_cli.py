"""The command-line contract: exit codes, formats, output file, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.cli.main import main
from tests.conftest import CORRECT, REAL, ROOT, SAMPLES

RESULT_SCHEMA = json.loads((ROOT / "grader" / "schemas" / "result.schema.json").read_text("utf-8"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_exit_0_when_every_check_passes(capsys) -> None:
    assert run(capsys, "check", str(CORRECT))[0] == 0


def test_exit_1_when_a_check_fails(capsys) -> None:
    assert run(capsys, "check", str(SAMPLES / "role_chunk_counted"))[0] == 1


def test_exit_2_when_the_folder_does_not_exist(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "check", str(tmp_path / "nope"))
    assert code == 2
    assert "There is no folder" in err


def test_exit_2_when_the_path_is_a_file(capsys) -> None:
    code, _, err = run(capsys, "check", str(CORRECT / "ttft.json"))
    assert code == 2
    assert "is not a folder" in err


def test_exit_2_on_bad_usage(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--format", "yaml"])
    assert exit_info.value.code == 2


def test_missing_default_folder_explains_how_to_grade_a_sample(capsys, monkeypatch) -> None:
    import dataclasses

    from checks import LAB
    from grader.engine import labs

    moved = dataclasses.replace(LAB, default_folder="/nonexistent/voice/llm")
    monkeypatch.setitem(labs._loaded, LAB.name, moved)
    code, _, err = run(capsys, "check")
    assert code == 2
    assert "grader check --sample correct" in err


def test_missing_default_folder_hint_is_in_the_students_language(capsys, monkeypatch) -> None:
    import dataclasses

    from checks import LAB
    from grader.engine import labs

    moved = dataclasses.replace(LAB, default_folder="/nonexistent/voice/llm")
    monkeypatch.setitem(labs._loaded, LAB.name, moved)
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    _, _, err = run(capsys, "check")
    assert "同梱のサンプルで試すには: grader check --sample correct" in err


def test_sample_option_grades_the_bundled_sample(capsys) -> None:
    code, out, _ = run(capsys, "check", "--sample", "correct", "--format", "json")
    assert code == 0 and json.loads(out)["submission"].endswith("sample_submissions/correct")


def test_sample_option_and_a_folder_together_are_bad_usage(capsys) -> None:
    code, _, err = run(capsys, "check", str(CORRECT), "--sample", "correct")
    assert code == 2 and "not both" in err


def test_json_result_is_valid_against_the_result_schema(capsys) -> None:
    _, out, _ = run(capsys, "check", str(SAMPLES / "no_close_on_cancel"), "--format", "json")
    jsonschema.validate(json.loads(out), RESULT_SCHEMA)


def test_json_result_for_an_ungradable_folder_says_gradable_false(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "check", str(tmp_path / "nope"), "--format", "json")
    result = json.loads(out)
    jsonschema.validate(result, RESULT_SCHEMA)
    assert code == 2 and result["gradable"] is False and result["format_errors"]


def test_json_result_reports_every_artifact_with_its_hash(capsys) -> None:
    _, out, _ = run(capsys, "check", str(CORRECT), "--format", "json")
    artifacts = {a["file"]: a for a in json.loads(out)["artifacts"]}
    data = (CORRECT / "ttft.json").read_bytes()
    import hashlib

    assert artifacts["ttft.json"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert artifacts["ttft.json"]["bytes"] == len(data)
    assert {a["status"] for a in artifacts.values()} == {"valid"}


def test_two_runs_give_the_same_bytes(capsys) -> None:
    first = run(capsys, "check", str(SAMPLES / "cache_on_in_prefill"), "--format", "json")[1]
    second = run(capsys, "check", str(SAMPLES / "cache_on_in_prefill"), "--format", "json")[1]
    assert first == second


def test_output_file_is_written_and_holds_the_result(capsys, tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    code, out, _ = run(capsys, "check", str(CORRECT), "--format", "json", "--output", str(target))
    assert code == 0 and out == ""
    assert (
        json.loads(target.read_text("utf-8"))["score"]
        == json.loads(target.read_text("utf-8"))["max_score"]
    )
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary left behind


def test_server_log_option_replaces_the_log_in_the_folder(
    capsys, submission: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "llama.log"
    (submission / "server.log").rename(outside)
    _, out, _ = run(
        capsys, "check", str(submission), "--format", "json", "--server-log", str(outside)
    )
    checks = {c["id"]: c["status"] for c in json.loads(out)["checks"]}
    assert checks["log.schema"] == "passed" and checks["log.cancel_task"] == "passed"


def test_text_report_shows_message_location_expected_found_and_hint(capsys) -> None:
    _, out, _ = run(capsys, "check", str(SAMPLES / "cache_on_in_prefill"), "--color", "never")
    assert "✗ prefill.cache_off" in out
    assert "prefill.json:4 (/0/prompt_n)" in out
    assert "expected: 34 · found: 13" in out
    assert '"cache_prompt": false' in out


def test_text_report_explains_each_common_mistake_once(capsys) -> None:
    _, out, _ = run(capsys, "check", str(SAMPLES / "no_close_on_cancel"), "--color", "never")
    assert out.count("Common mistake 3") == 1  # cancel_task and slot_freed share it


def test_text_report_has_no_colour_when_no_color_is_set(capsys, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = run(capsys, "check", str(SAMPLES / "role_chunk_counted"))
    assert "\033[" not in out


def test_colour_always_paints_the_marks(capsys) -> None:
    _, out, _ = run(capsys, "check", str(SAMPLES / "role_chunk_counted"), "--color", "always")
    assert "\033[31m✗\033[0m" in out


def test_bad_rubric_is_exit_2_with_the_check_named(capsys, tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    code, _, err = run(capsys, "check", str(CORRECT), "--rubric", str(rubric))
    assert code == 2 and "no.such" in err


def test_checks_command_lists_every_check_id(capsys) -> None:
    from checks import LAB

    code, out, _ = run(capsys, "checks")
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == LAB.all_check_ids()


def test_python_dash_m_grader_is_the_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(CORRECT), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gradable"] is True


def test_grading_writes_nothing_inside_the_submission(capsys, submission: Path) -> None:
    before = sorted((p.name, p.stat().st_mtime_ns) for p in submission.iterdir())
    run(capsys, "check", str(submission), "--format", "json")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in submission.iterdir()) == before


def test_an_internal_error_is_exit_3_not_a_traceback(capsys, monkeypatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("grader.engine.grade.grade", broken)
    code, out, err = run(capsys, "check", str(CORRECT))
    assert code == 3 and "internal error" in err and "boom" in err and out == ""
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("lang", "words"), [("ja", "得点"), ("ko", "점수"), ("zh", "得分"), ("en", "Score")]
)
def test_lang_prints_the_whole_report_in_that_language(capsys, lang: str, words: str) -> None:
    _, out, _ = run(
        capsys, "check", str(SAMPLES / "no_close_on_cancel"), "--lang", lang, "--color", "never"
    )
    assert words in out
    if lang != "en":
        assert "Common mistake" not in out and "Skipped" not in out


def test_language_defaults_from_the_environment(capsys, monkeypatch) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    _, out, _ = run(capsys, "check", str(SAMPLES / "role_chunk_counted"), "--color", "never")
    assert "점수" in out


def test_json_result_names_its_language(capsys) -> None:
    _, out, _ = run(capsys, "check", str(CORRECT), "--format", "json", "--lang", "zh")
    assert json.loads(out)["language"] == "zh"


def test_file_states_and_json_types_are_translated_too(capsys) -> None:
    _, out, _ = run(
        capsys,
        "check",
        str(SAMPLES / "hostile" / "true_for_number"),
        "--lang",
        "ja",
        "--color",
        "never",
    )
    assert "整数" in out and "真偽値" in out and "integer" not in out


def test_report_command_writes_a_class_page(capsys, tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    for name in ("correct", "no_close_on_cancel"):
        run(
            capsys,
            "check",
            str(SAMPLES / name),
            "--format",
            "json",
            "--output",
            str(tmp_path / "results" / f"{name}.json"),
        )
    code, _, _ = run(capsys, "report", str(tmp_path))
    assert code == 0 and "<svg" in (tmp_path / "report.html").read_text("utf-8")


def test_check_does_not_import_the_class_report() -> None:
    code = (
        "import sys; from grader.cli.main import main; main(['checks']); "
        "print(any(m in sys.modules for m in ('grader.class_report', 'grader.batch.run')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip().endswith("False")


def test_output_file_gets_the_usual_permissions(capsys, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        run(capsys, "check", str(CORRECT), "--format", "json", "--output", str(tmp_path / "r.json"))
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


def test_batch_command_grades_a_folder_of_submissions_with_a_class_page(
    capsys, tmp_path: Path
) -> None:
    import shutil

    for name in ("correct", "role_chunk_counted"):
        shutil.copytree(REAL / name, tmp_path / "class" / name)
    code, _, _ = run(
        capsys,
        "batch",
        str(tmp_path / "class"),
        "--out",
        str(tmp_path / "out"),
        "--jobs",
        "1",
        "--html",
        str(tmp_path / "out" / "report.html"),
    )
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "out" / "results").iterdir()) == [
        "correct.json",
        "role_chunk_counted.json",
    ]
    assert (tmp_path / "out" / "gradebook.csv").read_text("utf-8").startswith("id,source,score")
    page = (tmp_path / "out" / "report.html").read_text("utf-8")
    assert 'id="chart-prefill"' in page  # the lab's charts, from the results alone
    assert not (tmp_path / "out" / "physics.json").exists()


def test_the_command_runs_with_the_collector_on_and_what_it_imported_frozen(
    monkeypatch,
) -> None:
    """`console` pauses the garbage collector only while it reads the command line and
    imports the lab, and freezes what exists then: the grade itself is collected as
    usual, and never goes over the lab's objects."""
    import gc

    from grader.cli import main as cli

    seen = []
    monkeypatch.setattr(sys, "argv", ["grader", "check", str(CORRECT), "--format", "json"])
    monkeypatch.setattr(cli, "_run", lambda args, lab: seen.append(gc.isenabled()) or 0)
    try:
        assert cli.console() == 0
        assert seen == [True]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
