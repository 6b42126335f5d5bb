"""The command line speaks the user's language: every help text, argparse's own words
and its errors, and `grader checks` with the rubric it is given."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from grader.cli.main import main
from grader.cli.parser import ARGPARSE_WORDS, HelpFormatter, Parser, reworded, speaking
from grader.words.i18n import LANGUAGES, Catalog
from grader.words.wrap import cells
from tests.conftest import ROOT

COMMANDS = ("check", "checks", "labs", "explain", "batch", "report", "export")
RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")
USAGE = {"en": "usage: ", "ja": "使い方: ", "ko": "사용법: ", "zh": "用法："}


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No locale of the machine running the tests leaks into what they expect."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("COLUMNS", "80")


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    assert exit_info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command_is_in_the_language_given_before_help(
    capsys: pytest.CaptureFixture[str], command: str, lang: str
) -> None:
    catalog = Catalog(lang, ("grader",))
    text = help_of(capsys, command, "--lang", lang)
    assert text.startswith(USAGE[lang])
    assert catalog.text(f"help.{command}.summary") is not None
    assert str(catalog.text("argparse.help")) in text
    for english in ("usage:", "positional arguments", "options:", "show this help"):
        assert english not in text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command_follows_a_lang_given_to_the_grader_itself(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert help_of(capsys, "--lang", "ja", command).startswith(f"使い方: grader {command}")


def test_a_folder_named_like_a_command_is_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert help_of(capsys, "check", "batch").startswith("usage: grader check")


def test_help_of_the_grader_itself_follows_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    text = help_of(capsys)
    assert text.startswith("사용법: grader")
    assert "'첫 토큰' 실습" in text  # the lab's title, from its own catalog
    assert "검사 하나를 설명합니다" in text  # the summary of `explain`


def test_lang_given_to_the_grader_itself_speaks_for_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert help_of(capsys, "--lang", "zh").startswith("用法：grader")
    assert main(["--lang", "ja", "checks"]) == 0
    assert "health.jsonがあり" in capsys.readouterr().out


def test_english_help_is_the_catalogs_english(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "check")
    assert text.startswith("usage: grader check")
    assert "the submission folder (default: /root/voice/llm)" in text
    assert "read server.log from PATH (default: server.log in DIR)" in text


def test_a_wrong_choice_is_exit_2_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = error_of(capsys, "check", "--lang", "ja", "--format", "yaml")
    assert "grader check: エラー: 引数--format: 選べない値です: 'yaml'（選べるのは" in err
    assert "invalid choice" not in err


def test_a_missing_argument_is_exit_2_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = error_of(capsys, "batch", "--lang", "zh")
    assert "grader batch：错误：缺少以下参数：PATH, --out" in err


def test_an_unknown_argument_is_exit_2_in_the_environments_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "ko_KR.UTF-8")
    err = error_of(capsys, "checks", "--verbose")
    assert "알 수 없는 인자: --verbose" in err


def test_what_a_type_check_says_is_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = error_of(capsys, "batch", "x", "--out", "y", "--jobs", "many", "--lang", "ja")
    assert "引数--jobs: 整数ではありません: many" in err


def test_help_lines_fit_the_terminal_in_columns(capsys: pytest.CaptureFixture[str]) -> None:
    for lang in ("ja", "zh"):
        for command in COMMANDS:
            text = help_of(capsys, command, "--lang", lang)
            wide = [line for line in text.splitlines() if cells(line) > 80]
            # (a choices list like {gradescope,json,...} can't break, as in English)
            assert [line for line in wide if "{" not in line] == [], wide


def test_wrapped_usage_lines_line_up_after_a_wide_prefix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second, *_ = help_of(capsys, "check", "--lang", "ja").splitlines()
    assert cells(first.partition("[")[0]) == len(second) - len(second.lstrip())


def test_every_argparse_word_has_its_placeholders_in_english() -> None:
    english = Catalog("en", ("grader",))
    for msgid, (key, specifiers) in ARGPARSE_WORDS.items():
        template = english.raw(f"argparse.{key}")
        assert template is not None, msgid
        assert all("{" + name + "}" in template for name in specifiers), msgid


SAMPLES = {
    "argument_name": "--format",
    "message": "expected one argument",
    "value": "'jsn'",
    "choices": "'json', 'text'",
    "type": "int",
    "parser_name": "'nosuch'",
    "option": "--fo",
    "matches": "--format, --force",
}
"""A value of each of argparse's placeholders, as argparse formats it."""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("msgid", [m for m in ARGPARSE_WORDS if "%" in m and "prog" not in m])
def test_every_argparse_error_is_read_back_into_the_catalogs_words(lang: str, msgid: str) -> None:
    catalog = Catalog(lang, ("grader",))
    english = msgid % SAMPLES if "%(" in msgid else msgid % ("2",)
    said = reworded(catalog, english)
    assert "{" not in said
    if lang != "en":
        assert said != english
    for value in (SAMPLES[name] for name in SAMPLES if f"%({name})" in msgid):
        if value != "expected one argument":
            assert value in said, (msgid, said)


def test_an_argument_error_has_its_message_read_back_too() -> None:
    said = reworded(Catalog("ja", ("grader",)), "argument --format: expected one argument")
    assert said == "引数--format: 値が1つ必要です"


def test_a_value_that_looks_like_argparse_words_stays_the_users() -> None:
    message = "argument --format: invalid choice: \"x' (choose from 'y\" (choose from 'json')"
    said = reworded(Catalog("ja", ("grader",)), message)
    assert said == "引数--format: 選べない値です: \"x' (choose from 'y\"（選べるのは'json'）"


def test_a_message_argparse_did_not_make_stays_as_it_is() -> None:
    message = "整数ではありません: abc"  # a `type=` function's, said in the catalog's words
    assert reworded(Catalog("ja", ("grader",)), message) == message


def test_argparse_itself_is_left_as_it_is() -> None:
    before = dict(vars(argparse))
    with speaking(Catalog("ja", ("grader",))):
        parser = Parser(prog="grader", formatter_class=HelpFormatter)
        assert parser.format_usage().startswith("使い方: ")
    assert dict(vars(argparse)) == before
    assert Parser(prog="grader").format_usage().startswith("usage: ")


# -- grader checks -------------------------------------------------------------------------


def rows(out: str) -> dict[str, list[str]]:
    return {line.split("\t")[0]: line.split("\t")[1:] for line in out.splitlines()}


def test_checks_gives_titles_in_the_chosen_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--lang", "zh"]) == 0
    listed = rows(capsys.readouterr().out)
    assert listed["cache.hit_faster"] == ["3", "重复的请求复用了缓存"]
    assert listed["ttft.schema"][1] == "ttft.json 存在且格式正确"


def test_checks_shows_the_points_of_the_rubric_it_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    text = RUBRIC_TEXT.replace(
        '[checks."cache.hit_faster"]\npoints = 3', '[checks."cache.hit_faster"]\npoints = 7'
    )
    text = text.replace(
        '[checks."sse.in_log"]\npoints = 1', '[checks."sse.in_log"]\npoints = 1\nenabled = false'
    )
    rubric.write_text(text, "utf-8")
    assert main(["checks", "--rubric", str(rubric), "--lang", "en"]) == 0
    listed = rows(capsys.readouterr().out)
    assert listed["cache.hit_faster"][0] == "7"
    assert listed["sse.in_log"] == [
        "-",
        "sse_raw.txt is a response this server logged (disabled in this rubric)",
    ]


def test_checks_refuses_a_bad_rubric_as_check_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('lab = "first-token"\nversion = "1"\n[checks."no.such"]\npoints = 1\n')
    assert main(["checks", "--rubric", str(rubric), "--lang", "ja"]) == 2
    check_err = capsys.readouterr().err
    assert main(["check", "--rubric", str(rubric), "--lang", "ja", str(tmp_path)]) == 2
    assert capsys.readouterr().err == check_err
    assert "no.such" in check_err


@pytest.mark.parametrize("command", COMMANDS)
def test_section_headings_end_with_the_languages_colon(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    lines = help_of(capsys, command, "--lang", "zh").splitlines()
    assert "选项：" in lines
    assert not [line for line in lines if line.endswith(":") and not line.startswith(" ")]


@pytest.mark.parametrize("columns", [None, "", "0", "-3", "wide", "57", "200"])
def test_help_is_as_wide_as_argparse_would_make_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`terminal_columns` reads the width as argparse's `shutil.get_terminal_size` does."""
    import shutil

    from grader.cli.parser import terminal_columns

    monkeypatch.delenv("COLUMNS", raising=False)
    if columns is not None:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
