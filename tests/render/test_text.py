"""The text report: one screen of 80 × 24, the useful part last, in every language.

Wrapping counts terminal columns (a CJK character takes two) and follows Japanese and
Chinese line-breaking rules; the report ends with what did not pass, what to do first
and the score, so the last screen a student sees is the one to act on.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.render import RenderOptions
from grader.render.text import render
from grader.words.i18n import Catalog
from grader.words.wrap import NO_LINE_END, NO_LINE_START, cells, wrap
from tests.conftest import EXPECTED, graded

LANGS = ("en", "ja", "ko", "zh")


def text_of(name: str, lang: str = "en", **options: object) -> str:
    result = graded(name)
    catalog = Catalog(lang, ("grader", "checks"))
    from grader.engine.grade import grade as _grade  # the result in the chosen language

    if lang != "en":
        from checks import LAB
        from grader.engine.rubric import load_lab_rubric
        from tests.conftest import SAMPLES

        result = _grade(LAB, str(SAMPLES / name), load_lab_rubric(LAB, None, "checks"), lang=lang)
    return render(result, RenderOptions(catalog, **options))  # type: ignore[arg-type]


# -- wrapping ------------------------------------------------------------------------------


def test_cjk_text_wraps_by_terminal_columns_not_characters() -> None:
    text = "読むのはやめたのに、接続を開いたままにしています。" * 8
    lines = wrap(text, 40)
    assert all(cells(line) <= 40 for line in lines)
    assert "".join(lines) == text


def test_english_wraps_at_spaces_and_never_breaks_a_word() -> None:
    text = "the quick brown fox jumps over the lazy dog " * 5
    lines = wrap(text, 30)
    assert all(len(line) <= 30 and not line.startswith(" ") for line in lines)
    assert " ".join(lines).split() == text.split()


def test_a_short_code_span_is_never_split() -> None:
    lines = wrap("サーバーはタスクをキャンセルせず、`cancel task`もログに出ませんでした。", 30)
    assert any("`cancel task`" in line for line in lines)


def test_no_japanese_line_starts_with_closing_punctuation() -> None:
    text = "あ" * 19 + "。次の文です、そして" + "い" * 18 + "」と言いました。"
    lines = wrap(text, 40)
    assert all(line[0] not in NO_LINE_START for line in lines)
    assert "".join(lines) == text


def test_no_line_ends_with_an_opening_bracket() -> None:
    lines = wrap("あ" * 19 + "「引用」です。", 40)
    assert all(line[-1] not in NO_LINE_END for line in lines)


def test_a_hanging_indent_leads_every_line_after_the_first() -> None:
    lines = wrap("word " * 30, 40, indent="    ", first="- ")
    assert lines[0].startswith("- word") and all(line.startswith("    w") for line in lines[1:])


def test_a_word_longer_than_the_line_is_cut_not_overflowing() -> None:
    lines = wrap("x" * 100, 40)
    assert [len(line) for line in lines] == [40, 40, 20]


@given(
    st.lists(
        st.sampled_from([*"ab 。、「」（）漢字かなー`\n", "word", "カタカナ", "`code`", "x" * 50]),
        max_size=80,
    ).map("".join),
    st.integers(min_value=8, max_value=100),
)
def test_no_wrapped_line_is_wider_than_the_terminal(text: str, width: int) -> None:
    assert all(cells(line) <= width for line in wrap(text, width))


def test_a_word_after_a_space_that_starts_with_a_dot_keeps_the_space() -> None:
    """`.tar` after a space closes no word: it wraps alone, never glued to the one before."""
    lines = wrap("或含一份或多份提交的 .zip / .tar.gz / .tgz / .tar 压缩包", 40)
    assert " ".join(lines).replace("  ", " ").count("/ .") == 3
    assert all("/." not in line for line in lines)


# -- one screen ----------------------------------------------------------------------------

NOT_PASSED = sorted(name for name, verdict in EXPECTED.items() if not verdict.get("full_marks"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_line_of_every_report_fits_80_columns(name: str, lang: str) -> None:
    text = text_of(name, lang)
    assert [line for line in text.splitlines() if cells(line) > 80] == []


@pytest.mark.parametrize("name", NOT_PASSED)
def test_the_last_screen_has_every_failure_and_the_score(name: str) -> None:
    result = graded(name)
    last = text_of(name).splitlines()[-24:]
    assert last[-1].startswith(f"Score: {result.score:g}/{result.max_score:g}")
    failed = [c.id for c in result.checks if c.status == "failed"]
    shown = "\n".join(last)
    assert [cid for cid in failed if f"✗ {cid}" not in shown] == []


@pytest.mark.parametrize("lang", ("ja", "zh"))
@pytest.mark.parametrize("name", NOT_PASSED)
def test_no_line_of_a_cjk_report_starts_with_closing_punctuation(name: str, lang: str) -> None:
    lines = [line.lstrip() for line in text_of(name, lang).splitlines() if line.strip()]
    assert [line for line in lines if line[0] in NO_LINE_START] == []


def test_the_report_ends_with_what_to_do_first() -> None:
    lines = text_of("no_close_on_cancel").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  First, "))
    assert first >= len(lines) - 4 and "Close the connection" in " ".join(lines[first:])


def test_checks_waiting_for_one_cause_are_one_paragraph() -> None:
    text = text_of("fabricated/hand_typed")
    assert re.search(r"^– 27 checks wait for log\.intact \(\d+ points\): ", text, re.M)
    assert text.count("Not counted") == 0


def test_a_broken_file_shows_its_problems_in_document_order_with_what_to_do() -> None:
    text = text_of("hostile/duplicate_keys")
    lines = [line for line in text.splitlines() if "cancel.json:" in line]
    numbers = [int(m.group(1)) for line in lines if (m := re.search(r"cancel\.json:(\d+)", line))]
    assert numbers == sorted(numbers) and numbers
    assert "→ Fix the JSON at that line" in text


def test_quiet_shows_only_what_did_not_pass() -> None:
    quiet = text_of("role_chunk_counted", quiet=True)
    assert "health ✓" not in quiet and "✗ chunks.role_chunk_excluded" in quiet


def test_verbose_lists_every_check_on_its_own_line() -> None:
    verbose = text_of("role_chunk_counted", verbose=True)
    for check in graded("role_chunk_counted").checks:
        assert re.search(rf"^[✓✗–!] {re.escape(check.id)} ", verbose, re.M), check.id


def test_a_common_mistake_is_explained_once() -> None:
    text = text_of("no_close_on_cancel")
    assert text.count("Common mistake 3") == 1


def test_the_width_follows_the_terminal() -> None:
    wide = text_of("cache_on_in_prefill", width=120).splitlines()
    narrow = text_of("cache_on_in_prefill", width=60).splitlines()
    assert max(cells(line) for line in narrow) <= 60 < max(cells(line) for line in wide)


def test_a_coloured_prefix_takes_only_the_columns_it_shows() -> None:
    painted = "\033[32m✓\033[0m check.id: "
    lines = wrap("word " * 40, 80, "    ", first=painted)
    assert cells(lines[0]) <= 80 and cells(lines[0]) > 75


@pytest.mark.parametrize("name", NOT_PASSED)
def test_colour_changes_no_line_break(name: str) -> None:
    plain, painted = text_of(name), text_of(name, color=True)
    assert re.sub(r"\033\[[0-9;]*m", "", painted) == plain


# -- a label and its value -------------------------------------------------------------------


def test_a_chinese_report_joins_a_label_and_its_value_with_a_full_width_colon() -> None:
    text = text_of("role_chunk_counted", "zh")
    assert "✗ chunks.role_chunk_excluded：" in text
    assert re.search(r"\n得分：\d+/\d+ — ", text)
    assert not re.search(r"(得分|预期|实际|怎么做): ", text)


def test_a_japanese_report_keeps_the_half_width_colon_and_space() -> None:
    """The ja orthography's own rule (tests/test_orthography_ja.py): `期待値: 686`."""
    text = text_of("role_chunk_counted", "ja")
    assert "✗ chunks.role_chunk_excluded: " in text
    assert re.search(r"\n得点: \d+/\d+ — ", text)


def test_a_check_that_gives_only_what_it_found_shows_no_expected_null() -> None:

    result = graded("role_chunk_counted")
    checks = [
        dataclasses.replace(c, expected=None) if c.status == "failed" else c for c in result.checks
    ]
    text = render(
        dataclasses.replace(result, checks=checks), RenderOptions(Catalog("en", ("grader",)))
    )
    assert "found: " in text
    assert "expected: null" not in text and "expected" not in text


def test_korean_breaks_only_at_spaces() -> None:
    text = "이 검사는 서버 로그의 타이밍 블록과 학생이 적은 숫자를 비교합니다. " * 4
    lines = wrap(text, 30)
    words = text.split()
    assert [word for line in lines for word in line.split()] == words


def test_no_korean_message_is_broken_inside_a_word() -> None:
    """Every message of the Korean catalogs, wrapped narrow, keeps each word whole.

    A code span is one unit (it has spaces inside but never breaks), so it is replaced by
    a spaceless stand-in of its width; a run wider than the line must break and is left
    out."""
    from grader.words.i18n import flatten
    from grader.words.tomlfile import loads
    from tests.conftest import ROOT

    for package in ("grader", "checks"):
        table = loads((ROOT / package / "messages" / "ko.toml").read_text("utf-8"))
        for key, message in flatten(table).items():
            text = re.sub(r"`[^`\n]{1,40}`", lambda m: "x" * cells(m.group()), message)
            if all(cells(word) <= 40 for word in text.split()):
                wrapped = wrap(text, 40)
                assert [w for line in wrapped for w in line.split()] == text.split(), key


def test_a_word_starting_with_a_closing_mark_after_a_space_keeps_the_space() -> None:
    text = "see that file's .schema check"
    assert wrap(text, 20) == ["see that file's", ".schema check"]
