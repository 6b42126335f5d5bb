"""Each translation follows its glossary: one word for each of the lab's terms.

`checks/messages/glossary/<lang>.toml` holds, per term, the English words that name it
(`en`, regular expressions matched case-insensitively against the English message),
the words this language uses for it (`use`: one of them must appear in the translation
of every message whose English names the term) and the words it must not use (`avoid`:
found in no message of that language, in either catalog). A message whose translation
rightly says it another way is listed in the term's `except`, by id.

The glossary covers both catalogs, the engine's (`grader/messages`) and the lab's
(`checks/messages`), because a student reads them side by side in one report.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from grader.words.i18n import flatten
from grader.words.tomlfile import loads

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "checks")
TRANSLATIONS = ("ja", "ko", "zh")


def _messages(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for package in PACKAGES:
        path = ROOT / package / "messages" / f"{lang}.toml"
        merged |= {f"{package}:{k}": v for k, v in flatten(loads(path.read_text("utf-8"))).items()}
    return merged


def _glossary(lang: str) -> dict[str, dict[str, Any]]:
    path = ROOT / "checks" / "messages" / "glossary" / f"{lang}.toml"
    return loads(path.read_text("utf-8"))


def _without_code(text: str) -> str:
    """Backtick spans and {placeholders} are code and file names, never translated."""
    return re.sub(r"`[^`]*`|\{[^{}]*\}", " ", text)


TERMS = [
    pytest.param(lang, term, id=f"{lang}-{term}")
    for lang in TRANSLATIONS
    for term in _glossary(lang)
]


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_glossary_entries_are_well_formed(lang: str) -> None:
    for term, entry in _glossary(lang).items():
        assert set(entry) <= {"en", "use", "avoid", "except", "note"}, term
        assert entry.get("en") and entry.get("use"), f"{term}: needs `en` and `use`"
        for pattern in entry["en"]:
            re.compile(pattern)


@pytest.mark.parametrize(("lang", "term"), TERMS)
def test_every_message_naming_the_term_uses_the_glossary_word(lang: str, term: str) -> None:
    entry = _glossary(lang)[term]
    english, translated = _messages("en"), _messages(lang)
    exceptions = set(entry.get("except", ()))
    names_it = re.compile("|".join(entry["en"]), re.IGNORECASE)
    missing = [
        key
        for key, text in english.items()
        if key in translated
        and key not in exceptions
        and names_it.search(_without_code(text))
        and not any(word in translated[key] for word in entry["use"])
    ]
    assert missing == [], f"{term}: say {entry['use']} in {missing}"


@pytest.mark.parametrize(("lang", "term"), TERMS)
def test_no_message_uses_a_word_the_glossary_avoids(lang: str, term: str) -> None:
    entry = _glossary(lang)[term]
    found = [
        f"{key}: {word}"
        for key, text in _messages(lang).items()
        for word in entry.get("avoid", ())
        if word in _without_code(text)
    ]
    assert found == [], f"{term}: use {entry['use']}, not {found}"
