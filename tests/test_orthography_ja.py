"""The Japanese catalogs follow one orthography, one rule at a time.

The rules are those of Japanese technical writing (the JTF style guide, Microsoft's
Japanese style guide) as a university lab writes its handouts: full-width brackets and
sentence punctuation in Japanese sentences, half-width letters and digits with no space
between them and the Japanese around them, the polite です/ます style, and the long
vowel mark as the current style guides write loanwords. They run over both ja catalogs,
the engine's (`grader/messages/ja.toml`) and the lab's (`checks/messages/ja.toml`),
because a student reads them side by side in one report.

A backtick code span or a {placeholder} is code, a file name or a value from the
submission: it is written as the program wants it, so every rule reads the text with
each of them replaced by a neutral Latin `X` (which keeps what stands next to what).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.words.i18n import flatten
from grader.words.tomlfile import loads
from grader.words.wrap import NO_LINE_END, NO_LINE_START

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = (ROOT / "grader" / "messages" / "ja.toml", ROOT / "checks" / "messages" / "ja.toml")

JAPANESE = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
"""Kana, kanji, and the ideographic and full-width punctuation and forms."""
JA = f"[{JAPANESE}]"
_CODE = re.compile(r"`[^`]*`|\{[^{}]*\}")
TAKE_LONG_VOWEL = ("フォルダ", "サーバ", "パラメータ", "エディタ", "ポインタ", "ユーザ", "ワーカ")
TAKE_LONG_VOWEL += ("プレースホルダ", "コンピュータ", "フィルタ", "ヘッダ", "バッファ", "マーカ")
"""Loanwords from -er, -or, -ar: written with a final ー."""
WRONG_LONG_VOWEL = (
    "メモリー",
    "ディレクトリー",
    "エントリー",
    "ライブラリー",
    "カテゴリー",
    "クエリー",
)
"""Loanwords from -ry, misspelt with a final ー."""


def _texts() -> dict[str, str]:
    """Every ja message by `package:id`, with its code spans and placeholders masked."""
    texts: dict[str, str] = {}
    for path in CATALOGS:
        package = path.parent.parent.name
        for key, text in flatten(loads(path.read_text("utf-8"))).items():
            texts[f"{package}:{key}"] = _CODE.sub("X", text)
    return texts


TEXTS = _texts()


def _offending(pattern: str | re.Pattern[str]) -> list[str]:
    found = []
    for key, text in TEXTS.items():
        for match in re.finditer(pattern, text):
            start, end = max(0, match.start() - 8), match.end() + 8
            found.append(f"{key}: …{text[start:end]}…")
    return found


def _none(found: list[str]) -> None:
    assert not found, "\n".join(found)


def test_the_catalogs_have_japanese_messages_to_check() -> None:
    """The rules below are worth something only if they read the real catalogs."""
    assert len(TEXTS) > 300
    assert sum(bool(re.search(JA, text)) for text in TEXTS.values()) > 300


def test_parentheses_in_japanese_text_are_full_width() -> None:
    """A parenthesis touching Japanese text, or holding any, is `（` `）`, never `(` `)`:
    `FIFO（名前付きパイプ）`, `（{line}行目）`. Code keeps its own: `stream(messages, …)`."""
    touching = _offending(f"{JA}[()]|[()]{JA}|\\([^()]*{JA}[^()]*\\)")
    _none(touching)


def test_quotations_in_japanese_text_use_corner_brackets() -> None:
    """A quoted word or value in a Japanese sentence is in `「」`: キー「{key}」, not
    キー"{key}". JSON's own double quotes belong in a code span: `"cache_prompt": false`."""
    _none(_offending(f'{JA}"|"{JA}|"[^"]*{JA}[^"]*"'))


def test_sentence_punctuation_after_japanese_is_full_width() -> None:
    """Japanese sentences end with `。`, pause with `、` and ask with `？`: no half-width
    `, . ! ? ;` right after Japanese text (a dot that starts a name, `.schema`, `.zip`, is
    no period), and no full-width comma or period `，．`."""
    _none(_offending(f"{JA}([,!?;]|\\.(?![A-Za-z0-9_]))|[，．]"))


def test_a_colon_is_half_width_and_followed_by_a_space() -> None:
    """The label before a detail takes `: ` as the renderer writes its own (`期待値: 686`,
    `{check.id}: …`): no full-width `：`, and a space after a colon that ends Japanese text."""
    _none(_offending(f"：|{JA}:(?! |$)"))


def test_no_space_between_japanese_and_half_width_text() -> None:
    """Half-width words and numbers sit right against the Japanese around them
    (`prompt_nが1366です`, `ドキュメント4個`, `提出{n}件`), as the lab's handouts write them.
    A space stays where it belongs to the half-width side: after a colon (`: `), around the
    separator `·`, and around an operator or arrow (`<=`, `→`)."""
    kept = "·<>=+→↑≤≥"
    spaced = re.compile(f"(?<=[^{kept}:]) (?={JA})|(?<={JA}) (?=[^{kept}])")
    _none(_offending(spaced))


def test_letters_digits_and_spaces_are_half_width() -> None:
    """Latin letters and digits are half-width (`UTF-8`, `4096`, not `ＵＴＦ－８`, `４０９６`);
    no ideographic space: the terminal aligns and wraps half-width text."""
    _none(_offending("[Ａ-Ｚａ-ｚ０-９\u3000]"))


def test_no_line_starts_with_closing_punctuation() -> None:
    """Kinsoku: no line of a message (nor the message) starts with a mark Japanese
    typography never puts first (`。`, `、`, `）`, `」`, `ー`…, the set the wrapper keeps
    off a line's start), so a hard line break in a catalog can't make one either."""
    starts = [
        f"{key}: {line[:12]}…"
        for key, text in TEXTS.items()
        for line in text.split("\n")
        if line.strip() and line.lstrip()[0] in NO_LINE_START
    ]
    _none(starts)


def test_no_line_ends_with_an_opening_bracket() -> None:
    """Kinsoku: no line of a message ends with an opening bracket (`（`, `「`…)."""
    ends = [
        f"{key}: …{line[-12:]}"
        for key, text in TEXTS.items()
        for line in text.split("\n")
        if line.strip() and line.rstrip()[-1] in NO_LINE_END
    ]
    _none(ends)


_POLITE = re.compile(
    "(です|ます|ません|ました|でした|ください|ですか|ませんか|でしょう|ましょう)[？]?$"
)


def _predicate(sentence: str) -> str:
    """The part of a sentence whose ending shows its style: without a trailing
    parenthetical (`…してください（Xはそうしています）`) or closing brackets, and, when it
    ends in a value, the clause before that value's colon (`読み込めません: X`)."""
    sentence = re.sub("（[^（）]*）$", "", sentence.strip()).rstrip("）」』 ")
    sentence = re.sub(f"(?<={JA})X$", "", sentence)  # a suffix: `ありません{suggestion}`
    if re.search("[A-Za-z0-9_X]$", sentence) and ": " in sentence:
        sentence = sentence.rsplit(": ", 1)[0]
    return sentence


def test_sentences_end_in_the_polite_form() -> None:
    """Every sentence ending in `。` is in the polite style, です・ます, as a teacher writes
    to students: `…保存してください。`, `…ありません。`. Titles, labels and the integrity
    flags are headings, not sentences: they end in no `。`."""
    plain = [
        f"{key}: …{_predicate(sentence)[-16:]}。"
        for key, text in TEXTS.items()
        for sentence in text.split("。")[:-1]
        if not _POLITE.search(_predicate(sentence))
    ]
    _none(plain)


@pytest.mark.parametrize("word", TAKE_LONG_VOWEL)
def test_loanwords_ending_in_er_or_ar_take_the_long_vowel_mark(word: str) -> None:
    """An English -er, -or or -ar ending is written with `ー` (フォルダー, サーバー,
    パラメーター), as the Microsoft style guide and the lab's handouts write them."""
    _none(_offending(f"{word}(?!ー)"))


@pytest.mark.parametrize("word", WRONG_LONG_VOWEL)
def test_loanwords_ending_in_y_take_no_long_vowel_mark(word: str) -> None:
    """An English -ry ending takes no `ー` (メモリ, エントリ, ディレクトリ), by the same guide."""
    _none(_offending(word))
