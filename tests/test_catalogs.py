"""The translated message catalogs match the English ones, one behaviour at a time.

For each package with a catalog (the engine's `grader`, the lab's `checks`) and each
translation (ja, ko, zh): the file parses, it has exactly English's ids, every message
names exactly English's placeholders, every message formats the way the app formats it,
and no title, hint or explanation was left as an English copy.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

import pytest

from grader.words.i18n import Catalog, flatten
from grader.words.tomlfile import loads

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "checks")
TRANSLATIONS = ("ja", "ko", "zh")
CASES = [pytest.param(p, lang, id=f"{p}-{lang}") for p in PACKAGES for lang in TRANSLATIONS]

TRANSLATED_PARTS = ("title", "hint", "explain")
"""Ids ending in one of these hold prose a student must read in their own language."""

_CODE_ONLY = re.compile(r"(?:`[^`]*`|\{[^{}]*\}|[\W\d_])*")
"""Backtick spans, {braces} and punctuation only: nothing there to translate."""


def _path(package: str, lang: str) -> Path:
    return ROOT / package / "messages" / f"{lang}.toml"


def _table(package: str, lang: str) -> dict[str, Any]:
    return loads(_path(package, lang).read_text("utf-8"))


def _flat(package: str, lang: str) -> dict[str, str]:
    return flatten(_table(package, lang))


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_catalog_parses_as_toml(package: str, lang: str) -> None:
    path = _path(package, lang)
    assert path.is_file(), f"{path} is missing"
    assert isinstance(_table(package, lang), dict)


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_catalog_has_exactly_the_english_ids(package: str, lang: str) -> None:
    """(Except English's singular forms, `<id>_one`: the others have no grammatical number.)"""
    english, translated = _flat(package, "en"), _flat(package, lang)
    english = {k: v for k, v in english.items() if not k.endswith("_one")}
    missing = sorted(english.keys() - translated.keys())
    extra = sorted(translated.keys() - english.keys())
    assert not missing and not extra, f"missing: {missing}; extra: {extra}"


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_every_message_has_the_english_placeholders(package: str, lang: str) -> None:
    english, translated = _flat(package, "en"), _flat(package, lang)
    wrong = {
        key: {"en": sorted(_placeholders(text)), lang: sorted(_placeholders(translated[key]))}
        for key, text in english.items()
        if key in translated and _placeholders(text) != _placeholders(translated[key])
    }
    assert not wrong, wrong


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_every_message_formats_with_dummy_values(package: str, lang: str) -> None:
    catalog = Catalog(lang, (package,))
    translated = _flat(package, lang)
    for key, template in translated.items():
        assert catalog.raw(key) == template, f"{key}: the app does not read {lang}.toml"
        params = dict.fromkeys(_placeholders(template), "X")
        assert isinstance(catalog.text(key, params), str), key


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_every_named_placeholder_is_filled(package: str, lang: str) -> None:
    catalog = Catalog(lang, (package,))
    unfilled = {}
    for key, template in _flat(package, lang).items():
        names = {n for n in _placeholders(template) if n.isidentifier()}
        text = catalog.text(key, dict.fromkeys(names, "X")) or ""
        left = sorted(n for n in names if "{" + n + "}" in text)
        if left:
            unfilled[key] = left
    assert not unfilled, unfilled


@pytest.mark.parametrize(("package", "lang"), CASES)
def test_no_title_hint_or_explanation_is_an_english_copy(package: str, lang: str) -> None:
    english, translated = _flat(package, "en"), _flat(package, lang)
    copies = sorted(
        key
        for key, text in translated.items()
        if key.rsplit(".", 1)[-1] in TRANSLATED_PARTS
        and text == english.get(key)
        and not _CODE_ONLY.fullmatch(text)
    )
    assert not copies, f"left in English: {copies}"


NEVER_ONE = {
    "grader:engine.several_submissions",  # several: two or more
    "grader:batch.note_duplicate",  # in the archive twice or more
    "grader:archive.members",  # more than the cap
    "grader:report.many",  # a mark that stands for several students
}
"""English messages that count things but never one of them."""


@pytest.mark.parametrize("package", PACKAGES)
def test_every_english_count_of_things_has_its_singular(package: str) -> None:
    """A message that counts `{count}` or `{n}` things ("{n} submissions") has the
    singular form `<id>_one` the catalog picks for one ("1 submission", not "1
    submissions")."""
    english = _flat(package, "en")
    counting = re.compile(r"\{(?:count|n)\} [a-z]+s\b")
    missing = [
        key
        for key, text in english.items()
        if not key.endswith("_one")
        and counting.search(text)
        and f"{key}_one" not in english
        and f"{package}:{key}" not in NEVER_ONE
    ]
    assert missing == []


@pytest.mark.parametrize("package", PACKAGES)
@pytest.mark.parametrize("lang", ("en", *TRANSLATIONS))
def test_every_message_fills_as_string_formatter_fills_it(package: str, lang: str) -> None:
    """`Catalog.text` fills with `str.format_map` (no `string` import on a check): the same
    text `string.Formatter` gives, every placeholder given or none."""
    from grader.words.i18n import _Lenient

    catalog = Catalog(lang, (package,))
    for key, template in _flat(package, lang).items():
        for given in ({}, dict.fromkeys(_placeholders(template), "X")):
            try:
                expected = string.Formatter().vformat(template, (), _Lenient(given))
            except (ValueError, IndexError, KeyError):
                expected = template
            assert catalog.text(key, given) == expected, key
