"""The Markdown renderer, rendered by cmark-gfm: the parser GitHub itself uses.

Rendering to HTML and reading the text back proves what a reader sees: the table has one
row per check, the cells hold exactly the titles (pipes, backticks, asterisks and angle
brackets shown as typed, never turned into markup or extra cells), and every finding
is listed with what to do.
"""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.render import RenderOptions
from grader.render.markdown import EMOJI, code, inline, render
from tests.conftest import EXPECTED, graded

OPTIONS = RenderOptions(catalog_for(LAB, "en"))
# Text that Markdown would act on in every way a title or message could trip it.
NASTY = "a | b *c* _d_ <b>x</b> [l](u) `code|x` \\ & ` ~~s~~ # 1. ttft_p50 &amp;"
NASTY_SHOWN = "a | b *c* _d_ <b>x</b> [l](u) code|x \\ & ` ~~s~~ # 1. ttft_p50 &amp;"


class _Html(HTMLParser):
    """The table's cells as text, the paragraphs and list items, the code spans."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.blocks: list[str] = []
        self.codes: list[str] = []
        self.tags: set[str] = set()
        self._cell: list[str] | None = None
        self._block: list[str] | None = None
        self._code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag in ("p", "li", "h2", "h3"):
            self._block = []
        elif tag == "code":
            self._code = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag in ("p", "li", "h2", "h3") and self._block is not None:
            self.blocks.append("".join(self._block))
            self._block = None
        elif tag == "code" and self._code is not None:
            self.codes.append("".join(self._code))
            self._code = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._block, self._code):
            if part is not None:
                part.append(data)


def html_of(markdown: str) -> _Html:
    parser = _Html()
    parser.feed(cmarkgfm.github_flavored_markdown_to_html(markdown))
    return parser


def shown(text: str) -> str:
    """What a reader sees of catalog prose: code-span backticks are not shown."""
    return text.replace("`", "")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_table_has_one_row_per_check_with_status_id_points_and_title(name: str) -> None:
    result = graded(name)
    rows = html_of(render(result, OPTIONS)).rows
    assert rows[0] == ["", "Check", "Points", "Title"]
    assert rows[1:] == [
        [
            EMOJI[c.status],
            c.id,
            f"{c.points:g}/{c.max_points:g}",
            shown(c.title),
        ]
        for c in result.checks
    ]


def test_heading_gives_the_score() -> None:
    text = render(graded("no_close_on_cancel"), OPTIONS)
    result = graded("no_close_on_cancel")
    assert text.startswith(f"## first-token — Score: {result.score:g}/{result.max_score:g}\n")
    counts = result.summary
    assert f"{counts.passed} passed, {counts.failed} failed, 0 skipped, 0 errors" in text


def test_status_emoji_for_each_status() -> None:
    assert EMOJI == {"passed": "✅", "failed": "❌", "skipped": "⏭️", "error": "⚠️"}


def test_what_to_fix_lists_each_failure_with_message_location_expected_found_and_hint() -> None:
    result = graded("cache_on_in_prefill")
    text = render(result, OPTIONS)
    blocks = html_of(text).blocks
    check = next(c for c in result.checks if c.status == "failed")
    fix = text.index("## What to fix")
    assert text.index("prefill.cache_off", fix) > fix
    assert shown(check.message or "") in blocks
    assert "at: prefill.json:4 (/0/prompt_n)" in blocks
    assert "expected: 34 · found: 13" in blocks
    assert f"what to do: {shown(check.hint or '')}" in blocks


def test_every_unpassed_check_is_in_what_to_fix_and_no_passed_one() -> None:
    result = graded("derived/chunks_nan_time")
    text = render(result, OPTIONS)
    section = text[text.index("## What to fix") :]
    headings = [line for line in section.splitlines() if line.startswith("### ")]
    assert [h.split("`")[1] for h in headings] == [
        c.id for c in result.checks if c.status != "passed"
    ]


def test_no_what_to_fix_when_everything_passed() -> None:
    assert "What to fix" not in render(graded("correct"), OPTIONS)


def test_common_mistakes_are_explained_once_each() -> None:
    result = graded("no_close_on_cancel")
    blocks = html_of(render(result, OPTIONS)).blocks
    explanations = [c.explanation for c in result.checks if c.explanation]
    assert explanations
    for text in explanations:
        assert blocks.count(shown(text)) == 1
    assert "Common mistakes found" in blocks


def test_pipes_in_table_cells_are_escaped_and_shown() -> None:
    result = graded("role_chunk_counted")
    odd = dataclasses.replace(result.checks[0], title=NASTY)
    text = render(dataclasses.replace(result, checks=[odd, *result.checks[1:]]), OPTIONS)
    row = next(line for line in text.splitlines() if line.startswith(f"| {EMOJI['passed']}"))
    assert "a \\| b" in row and "`code\\|x`" in row
    html = html_of(text)
    assert html.rows[1] == [EMOJI["passed"], result.checks[0].id, "1/1", NASTY_SHOWN]
    assert len({len(r) for r in html.rows}) == 1  # no row got an extra cell


def test_markup_in_text_is_shown_as_typed_not_rendered() -> None:
    result = graded("role_chunk_counted")
    checks = [
        dataclasses.replace(c, message=NASTY, hint=NASTY) if c.status == "failed" else c
        for c in result.checks
    ]
    html = html_of(render(dataclasses.replace(result, checks=checks), OPTIONS))
    assert NASTY_SHOWN in html.blocks
    assert f"what to do: {NASTY_SHOWN}" in html.blocks
    assert html.tags.isdisjoint({"b", "em", "strong", "a", "del", "h1"})


def test_values_with_backticks_are_one_code_span() -> None:
    result = graded("role_chunk_counted")
    checks = [
        dataclasses.replace(c, expected="a``b`", found="|x| ") if c.status == "failed" else c
        for c in result.checks
    ]
    html = html_of(render(dataclasses.replace(result, checks=checks), OPTIONS))
    assert "a``b`" in html.codes and "|x| " in html.codes


def test_code_uses_a_longer_fence_than_any_backtick_run_inside() -> None:
    assert code("a``b") == "```a``b```"
    assert code("`x") == "`` `x ``"
    assert code("") == "` `"
    assert code("p|q", table=True) == "`p\\|q`"


def test_inline_escapes_what_would_start_a_block() -> None:
    assert inline("# not a heading") == "\\# not a heading"
    assert inline("- not a list") == "\\- not a list"
    assert inline("12. not a list") == "12\\. not a list"
    assert html_of(inline("> not a quote")).tags == {"p"}


def test_line_breaks_in_cells_do_not_break_the_row() -> None:
    result = graded("correct")
    odd = dataclasses.replace(result.checks[0], title="two\nlines")
    html = html_of(render(dataclasses.replace(result, checks=[odd, *result.checks[1:]]), OPTIONS))
    assert html.rows[1][3] == "two lines" and len(html.rows) == 1 + len(result.checks)


def test_not_gradable_lists_the_reasons(capsys, tmp_path: Path) -> None:
    code_ = main(["check", str(tmp_path / "nope"), "--format", "markdown"])
    text = capsys.readouterr().out
    assert code_ == 2
    assert text.startswith("## first-token — Not graded\n")
    assert any("There is no folder" in block for block in html_of(text).blocks)


def test_output_is_deterministic() -> None:
    result = graded("derived/sse_py_syntax_error")
    assert render(result, OPTIONS) == render(result, OPTIONS)
