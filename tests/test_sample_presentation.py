"""`grader check --sample NAME`: the report names the sample whole, says what it shows
(its lesson, from the lab's catalog, in every language) and that it is a public sample
that scores nothing of its own when handed in; a folder's long path keeps its end."""

from __future__ import annotations

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.engine.samples import sample_names
from grader.words.i18n import LANGUAGES
from grader.words.wrap import cells
from tests.conftest import max_score

NAMES = sample_names(LAB)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_bundled_sample_has_a_lesson_in_every_language(lang: str) -> None:
    catalog = catalog_for(LAB, lang)
    assert [n for n in NAMES if not catalog.raw(f"samples.{n}")] == []


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args, "--color", "never"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_longest_sample_name_is_shown_whole_at_80_columns(capsys) -> None:
    longest = max(NAMES, key=len)
    _, out, _ = report(capsys, "--sample", longest)
    first = out.splitlines()[0]
    assert f'"{longest}"' in first and cells(first) <= 80


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_report_says_what_the_sample_shows_and_that_it_is_public(capsys, lang: str) -> None:
    catalog = catalog_for(LAB, lang)
    _, out, _ = report(capsys, "--sample", "no_close_on_cancel", "--lang", lang)
    head = "".join(line.strip() for line in out.split("\n\n")[0].splitlines())
    lesson = catalog.raw("samples.no_close_on_cancel") or ""
    assert "".join(lesson.split()) in "".join(head.split())
    public = catalog.text("render.sample_public", {"sample": "no_close_on_cancel"}) or ""
    assert "".join(public.split()) in "".join(head.split())


def test_the_sample_keeps_its_real_verdict(capsys) -> None:
    code, out, _ = report(capsys, "--sample", "cache_on_in_prefill")
    assert code == 1 and f"Score: {max_score() - 4:g}/{max_score():g}" in out


def test_a_machine_format_gets_the_public_sample_note_on_stderr(capsys) -> None:
    _, out, err = report(capsys, "--sample", "correct", "--format", "json")
    assert out.startswith("{") and 'public sample "correct"' in err


def test_a_long_folder_path_keeps_its_end_in_the_header(capsys, tmp_path) -> None:
    import shutil

    from tests.conftest import REAL

    folder = tmp_path / ("very-long-folder-name-" * 4) / "alice-final-submission"
    shutil.copytree(REAL / "correct", folder)
    _, out, _ = report(capsys, str(folder))
    first = out.splitlines()[0]
    assert first.endswith("/alice-final-submission") and "…" in first and cells(first) <= 80


# --------------------------------------------------------------- a missing file's hint


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_file_of_the_lab_says_how_the_lab_makes_it(lang: str) -> None:
    catalog = catalog_for(LAB, lang)
    assert [a.name for a in LAB.artifacts if not catalog.raw(f"engine.missing_hint.{a.name}")] == []


def test_a_missing_server_log_says_how_to_save_it(capsys, tmp_path) -> None:
    import shutil

    from tests.conftest import REAL

    shutil.copytree(REAL / "correct", tmp_path / "run")
    (tmp_path / "run" / "server.log").unlink()
    code = main(["check", str(tmp_path / "run"), "--format", "json"])
    import json

    log = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["id"] == "log.schema")
    assert code == 1 and "voice-llm log > server.log" in log["hint"]


def test_a_file_saved_under_a_near_name_keeps_the_hint_to_rename_it(capsys, tmp_path) -> None:
    import json
    import shutil

    from tests.conftest import REAL

    shutil.copytree(REAL / "correct", tmp_path / "run")
    (tmp_path / "run" / "server.log").rename(tmp_path / "run" / "sever.log")
    main(["check", str(tmp_path / "run"), "--format", "json"])
    log = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["id"] == "log.schema")
    assert "sever.log" in log["message"] and "voice-llm log" in log["hint"]
