"""`grader explain CHECK_ID` tells a student, in their language, what a check proves, why
it matters to the voice assistant the lab builds and how to redo the step; the lab's
catalog holds those three texts for every check id, in every language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.cli.explain import PARTS
from grader.cli.main import main
from grader.engine.labs import load
from grader.words.i18n import LANGUAGES, catalog_file
from tests.conftest import REAL, ROOT

LAB = load("first-token")
CHECK_IDS = LAB.all_check_ids()
RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


@pytest.fixture(autouse=True)
def no_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """No locale of the machine running the tests chooses the language."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)


def explained(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["explain", *argv]) == 0
    return capsys.readouterr().out


def _squeezed(text: str) -> str:
    """The text without the spaces and line breaks that wrapping adds or moves."""
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_check_has_its_three_texts_in_every_language(lang: str) -> None:
    """In the language's own file, not borrowed from English by the catalog's fallback."""
    own = catalog_file(LAB.messages_package, lang)
    missing = [
        f"explain.{cid}.{part}"
        for cid in CHECK_IDS
        for part in PARTS
        if not own.get(f"explain.{cid}.{part}", "").strip()
    ]
    assert len(CHECK_IDS) > 40
    assert missing == []


def test_the_lab_explains_no_check_it_does_not_have() -> None:
    explained_ids = {key.split(".", 1)[1].rsplit(".", 1)[0] for key in _explain_keys("en")}
    assert explained_ids == set(CHECK_IDS)


def _explain_keys(lang: str) -> list[str]:
    return [k for k in catalog_file(LAB.messages_package, lang) if k.startswith("explain.")]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_explain_prints_the_three_texts_of_every_check(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    own = catalog_file(LAB.messages_package, lang)
    for cid in CHECK_IDS:
        out = _squeezed(explained(capsys, cid, "--lang", lang))
        for part in PARTS:
            assert _squeezed(own[f"explain.{cid}.{part}"]) in out, f"{cid}.{part}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_line_of_every_explanation_fits_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    from grader.words.wrap import cells

    monkeypatch.setenv("COLUMNS", "80")
    for cid in CHECK_IDS:
        wide = [x for x in explained(capsys, cid, "--lang", lang).splitlines() if cells(x) > 80]
        assert not wide, cid


def test_explain_lists_files_in_the_languages_punctuation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _squeezed(explained(capsys, "report.copies_sources", "--lang", "zh"))
    assert "读取：report.json、ttft.json、" in out


def test_explain_heads_each_text_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explained(capsys, "cache.hit_faster", "--lang", "ko")
    assert out.startswith("cache.hit_faster — 반복한 요청이 캐시를 재사용했다")
    for heading in ("무엇을 확인하나", "왜 중요한가", "단계를 다시 하는 법"):
        assert f"\n{heading}\n" in out


def test_explain_follows_the_environments_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    out = explained(capsys, "sse.role_chunk_first")
    assert "它证明什么" in out


def test_explain_names_the_points_files_and_prerequisites(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explained(capsys, "cache.hit_faster", "--lang", "en")
    assert "3 points · reads cache.json · waits for cache.first_is_miss, cache.in_log" in out


def test_explain_lists_the_rubric_thresholds_the_check_judges_by(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explained(capsys, "cache.hit_faster", "--lang", "en")
    assert "The rubric's thresholds for it\n  max_hit_fraction = 0.1\n  max_ttft_ratio = 0.5" in out


def test_explain_of_a_schema_check_gives_the_files_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explained(capsys, "ttft.schema", "--lang", "ja")
    assert "ttft.jsonの形式" in out
    assert "    runs: 配列、1個以上、各要素は次のオブジェクト:" in out
    assert "      ttft_ms: 数値、≥ 0" in out


def test_explain_of_a_file_without_a_schema_gives_no_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """server.log is text the lab reads line by line; its texts say so."""
    out = explained(capsys, "log.schema", "--lang", "en")
    assert "The format of" not in out
    assert "it is not JSON" in out


def test_an_unknown_id_is_exit_2_with_the_closest_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "cache.hit_fast", "--lang", "ja"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "cache.hit_faster" in captured.err
    assert "`grader checks`" in captured.err


def test_a_step_name_offers_the_checks_of_that_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "cancel", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    offered = re.search(r"did you mean ([^?]+)\?", err)
    assert offered is not None, err
    assert all(cid.startswith("cancel.") for cid in offered.group(1).split(", "))


def test_explain_shows_the_points_of_the_rubric_it_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    text = RUBRIC_TEXT.replace(
        '[checks."sse.in_log"]\npoints = 1', '[checks."sse.in_log"]\npoints = 1\nenabled = false'
    )
    rubric.write_text(text, "utf-8")
    out = explained(capsys, "sse.in_log", "--rubric", str(rubric), "--lang", "en")
    assert out.splitlines()[1].startswith("  disabled in this rubric · reads ")


def test_explain_refuses_a_bad_rubric_as_check_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    assert main(["explain", "cache.hit_faster", "--rubric", str(rubric), "--lang", "zh"]) == 2
    said = capsys.readouterr()
    assert main(["check", str(REAL / "correct"), "--rubric", str(rubric), "--lang", "zh"]) == 2
    assert said.out == "" and said.err == capsys.readouterr().err
