"""Simplified Chinese is written as Chinese: the typographic rules of both zh catalogs.

The rules are those of careful Chinese technical writing (the issue's example is
`report.json 的数值与来源文件一致`):

- no space between two Chinese characters, nor beside Chinese (full-width) punctuation;
- exactly one space between a Chinese character and a Latin word, a number or code;
- full-width punctuation （），：；。？！ in Chinese sentences, never the ASCII marks;
- Chinese words quoted with “ ”, ASCII quotes kept for the literal values of JSON.

A rule applies to what the student reads, so each message is checked as it is shown:
a backtick span and a literal in ASCII double quotes count as code (one Latin word), and
a {placeholder} counts as what fills it. Most are filled with names, numbers or code
(Latin); the few filled with words of a zh catalog (a file's state, a JSON type, a
rubric's expectation) are filled here with those words, listed in `FILLED_BY`.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.words.i18n import flatten
from grader.words.tomlfile import loads

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "checks")

HAN = r"[\u3400-\u4dbf\u4e00-\u9fff]"
FULL_WIDTH = "，。：；、？！（）“”‘’《》【】"
LATIN = "X"
"""What an ordinary placeholder, a backtick span or an ASCII-quoted literal reads as."""

FILLED_BY: dict[str, dict[str, tuple[str, ...]]] = {
    "grader:engine.skipped.artifact": {
        "status": ("grader:term.missing", "grader:term.invalid", "grader:term.refused")
    },
    "grader:file.not_regular": {
        "kind": ("grader:term.directory", "grader:term.fifo", "grader:term.socket")
    },
    "grader:schema.type": {
        "expected": ("grader:term.integer", "grader:term.null"),
        "found_type": ("grader:term.string", "grader:term.null"),
    },
    "grader:fault.cant_write": {"reason": ("grader:fault.disk_full", "grader:fault.other")},
    "grader:batch.stopped": {"reason": ("grader:fault.cant_write",)},
    "grader:rubric.not_text": {"found": ("grader:rubric.found",)},
    "grader:rubric.not_a_table": {"found": ("grader:rubric.found",)},
    "grader:rubric.wrong_value": {
        "expected": (
            "grader:rubric.spec.number",
            "grader:rubric.spec.boolean",
            "grader:rubric.spec.list",
        ),
        "found": ("grader:rubric.found",),
    },
    "grader:rubric.found": {"kind": ("grader:rubric.kind.string",)},
    "grader:rubric.spec.list": {"item": ("grader:rubric.spec.integer",)},
    "grader:rubric.unknown_limit": {"suggestion": ("grader:rubric.did_you_mean",)},
    "grader:rubric.unknown_param": {"suggestion": ("grader:rubric.did_you_mean",)},
    "grader:rubric.unknown_setting": {"suggestion": ("grader:rubric.did_you_mean",)},
    "checks:log.plausible.log_rate": {"kind": ("checks:term.prefill", "checks:term.decode")},
    "checks:log.intact.arithmetic": {
        "which": ("checks:term.prompt_eval", "checks:term.eval"),
        "unit": ("checks:term.ms_per_token", "checks:term.tokens_per_second"),
    },
    "checks:log.intact.unprefixed": {"what": ("checks:term.log_launch", "checks:term.log_cancel")},
    "checks:log.intact.after_end": {
        "what": ("checks:term.log_tasktiming", "checks:term.log_release")
    },
}
"""Placeholders filled with words of a zh catalog, by message id: the ids of those words."""


def _catalogs() -> dict[str, str]:
    merged: dict[str, str] = {}
    for package in PACKAGES:
        path = ROOT / package / "messages" / "zh.toml"
        merged |= {f"{package}:{k}": v for k, v in flatten(loads(path.read_text("utf-8"))).items()}
    return merged


MESSAGES = _catalogs()


def _fill(template: str, choice: dict[str, str]) -> str:
    """`template` with each placeholder replaced by `choice[name]`, else by a Latin word."""
    out = []
    for literal, name, _, _ in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            out.append(choice.get(name, LATIN))
    return "".join(out)


def _shown(text: str) -> str:
    """Backtick spans, ASCII-quoted literals and calls (`conn.close()`) read as one Latin
    word each."""
    call = r"[A-Za-z_][A-Za-z0-9_.]*\([^()\u3400-\u9fff]*\)"
    return re.sub(rf'`[^`]*`|"[^"]*"|{call}', LATIN, text)


def _renderings(key: str) -> list[str]:
    """Every way the message `key` can read, as far as its Chinese-valued placeholders go."""
    fillers = FILLED_BY.get(key, {})
    names = sorted(fillers)
    out = []
    for values in itertools.product(*(fillers[n] for n in names)):
        choice = {n: _renderings(v)[0] for n, v in zip(names, values, strict=True)}
        out.append(_fill(MESSAGES[key], choice))
    return out


def stray_spaces(text: str) -> list[str]:
    """Spaces between two Chinese characters or beside full-width punctuation."""
    shown = _shown(text)
    between = re.findall(f"{HAN} +{HAN}", shown)
    beside = re.findall(f"[{FULL_WIDTH}] +\\S|\\S +[{FULL_WIDTH}]", shown)
    return between + beside


def latin_spacing(text: str) -> list[str]:
    """A Chinese character touching a Latin letter, a digit or code, or two spaces between."""
    shown = _shown(text)
    touching = re.findall(f"{HAN}[A-Za-z0-9]|[A-Za-z0-9]{HAN}", shown)
    wide = re.findall(f"{HAN}  +[A-Za-z0-9]|[A-Za-z0-9]  +{HAN}", shown)
    return touching + wide


def ascii_punctuation(text: str) -> list[str]:
    """ASCII , ; : ? ! ( ) . where a Chinese sentence needs its full-width form: beside a
    Chinese character, or (? and !) ending a Chinese sentence after a Latin word."""
    shown = _shown(text)
    if not re.search(HAN, shown):
        return []
    return (
        re.findall(f"{HAN} ?[,;:?!]|[,;:?!] ?{HAN}", shown)
        + re.findall(f"{HAN} ?\\(|\\( ?{HAN}|{HAN} ?\\)|\\) ?{HAN}", shown)
        + re.findall(f"{HAN}\\.(?!\\w)", shown)
        + re.findall(f"\\w[?!](?=$|[{FULL_WIDTH}])", shown)
    )


def ascii_quoted_chinese(text: str) -> list[str]:
    """Chinese words between ASCII double quotes instead of “ ”."""
    return [q for q in re.findall(r'"[^"]*"', text) if re.search(HAN, q)]


Rule = Callable[[str], list[str]]


def _violations(rule: Rule) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key in MESSAGES:
        for text in _renderings(key):
            bad = rule(text)
            if bad:
                found.setdefault(key, []).extend(bad)
    return found


def test_every_filled_placeholder_names_a_message_and_a_placeholder_of_it() -> None:
    """FILLED_BY must follow the catalogs: a renamed id would silently check nothing."""
    for key, fillers in FILLED_BY.items():
        assert key in MESSAGES, key
        names = {n for _, n, _, _ in string.Formatter().parse(MESSAGES[key]) if n}
        for name, sources in fillers.items():
            assert name in names, (key, name)
            assert all(source in MESSAGES for source in sources), (key, sources)


def test_no_space_between_chinese_characters_or_beside_chinese_punctuation() -> None:
    """`任务 启动` and `磁盘已满。 results/` are stray spaces: Chinese runs on unbroken, and a
    full-width mark carries its own spacing."""
    assert _violations(stray_spaces) == {}


def test_one_space_between_chinese_and_latin_words_numbers_or_code() -> None:
    """`report.json 的数值`, `第 2 步`, `1 个槽位`: one space, the same everywhere (never
    `第2步`, never two spaces). A placeholder filled with a Chinese word takes none:
    `应该是{expected}` reads `应该是整数`."""
    assert _violations(latin_spacing) == {}


def test_chinese_sentences_use_full_width_punctuation() -> None:
    """`{source}：不是有效的 TOML 文件`, `命名管道（FIFO）`: ASCII marks beside Chinese words
    are a half-width sentence in a Chinese one. (ASCII punctuation inside code and JSON
    literals, `"cache_prompt": false`, stays.)"""
    assert _violations(ascii_punctuation) == {}


def test_chinese_words_are_quoted_with_chinese_quotes() -> None:
    """`“数数”的提示词`: ASCII double quotes are for the literal values of JSON
    (`status 是 "ok"`), never around Chinese words."""
    found = {k: q for k, v in MESSAGES.items() if (q := ascii_quoted_chinese(v))}
    assert found == {}


@pytest.mark.parametrize(
    ("rule", "wrong", "right"),
    [
        (stray_spaces, "第 {line} 行（ 任务 启动）", "第 {line} 行（任务启动）"),
        (stray_spaces, "无法写入 X。 results/ 中的", "无法写入 X。results/ 中的"),
        (latin_spacing, "请重做第2步", "请重做第 2 步"),
        (latin_spacing, "report.json的数值", "report.json 的数值"),
        (latin_spacing, "`stream`是 async 函数", "`stream` 是 async 函数"),
        (latin_spacing, "有  3 个问题", "有 3 个问题"),
        (ascii_punctuation, "{source}:不是有效的 TOML", "{source}：不是有效的 TOML"),
        (ascii_punctuation, "FIFO(命名管道)", "命名管道（FIFO）"),
        (ascii_punctuation, "请报告这个问题.", "请报告这个问题。"),
        (ascii_punctuation, "是不是 {name}?", "是不是 {name}？"),
        (ascii_quoted_chinese, 'status 是 "就绪"', 'status 是 "ok"'),
    ],
)
def test_each_rule_catches_what_it_names_and_passes_its_correction(
    rule: Rule,
    wrong: str,
    right: str,
) -> None:
    assert rule(_fill(wrong, {})) != []
    assert rule(_fill(right, {})) == []
