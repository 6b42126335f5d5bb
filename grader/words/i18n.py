"""Message catalogs: every sentence the grader shows, by id, per language.

Catalogs are TOML files (`messages/<lang>.toml`) in the lab's package and in the
engine's, consulted in that order (a lab words its own checks and may reword any of
the engine's messages, which name no lab). Nested tables flatten to dotted ids
(`[step.check] run = "..."` is `step.check.run`). A missing id falls back to English,
then to the id itself, so a gap in a translation shows up as English, never as a crash.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from grader.words.package_data import package_file
from grader.words.problems import Param, Term, TitleOf
from grader.words.tomlfile import loads
from grader.words.visible import visible

if TYPE_CHECKING:
    from typing import Any, Protocol

    class WordsItself(Protocol):
        """A parameter that words itself in the catalog's language
        (`grader.words.worded.Worded`)."""

        def text(self, catalog: Catalog) -> str: ...


LANGUAGES = ("en", "ja", "ko", "zh")
FALLBACK = "en"


def flatten(
    table: Mapping[str, Any], prefix: str = "", flat: dict[str, str] | None = None
) -> dict[str, str]:
    """The catalog's tables as one dict of dotted ids: every value a string."""
    if flat is None:
        flat = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flatten(value, f"{prefix}{key}.", flat)
        else:
            flat[prefix + key] = value if isinstance(value, str) else str(value)
    return flat


@cache
def catalog_file(package: str, lang: str) -> dict[str, str]:
    """The flattened catalog `<package>/messages/<lang>.toml` ({} when absent)."""
    path = package_file(package, "messages", f"{lang}.toml")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return flatten(loads(handle.read()))


def format_value(value: object) -> str:
    """Numbers as people write them: 222.796, 1366, 0.5 (no float noise)."""
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)


class _Lenient(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Catalog:
    """Look up and fill messages for one language, with English as the fallback."""

    def __init__(self, lang: str, packages: tuple[str, ...]) -> None:
        self.lang = lang if lang in LANGUAGES else FALLBACK
        self._tables = [catalog_file(p, self.lang) for p in packages]
        self._fallback = [catalog_file(p, FALLBACK) for p in packages]

    def raw(self, key: str) -> str | None:
        for table in (*self._tables, *self._fallback):
            if key in table:
                return table[key]
        return None

    def _value(self, value: Param | WordsItself) -> str:
        if isinstance(value, Term):  # "string|null" reads "string / null"
            return " / ".join(self.raw(f"term.{part}") or part for part in value.split("|"))
        if isinstance(value, TitleOf):
            return self.raw(f"{value}.title") or str(value)
        if isinstance(value, Exception) and hasattr(value, "text"):
            return str(value.text(self))  # a `grader.words.worded.Worded` reason, in this language
        return format_value(value)

    def plural(
        self, key: str, count: int, params: Mapping[str, Param | WordsItself] | None = None
    ) -> str | None:
        """`text` of the form of `key` that agrees with `count` (see `_plural_key`)."""
        return self.text(key, {**(params or {}), "count": count})

    def form(self, key: str, count: int) -> str:
        """The id of the form of `key` that agrees with `count`: `<key>_one` for one thing
        when the catalog has it (see `_plural_key`), else `key`."""
        singular = _plural_key(key, count, self.lang)
        return singular if singular != key and self.raw(singular) is not None else key

    def text(
        self, key: str | None, params: Mapping[str, Param | WordsItself] | None = None
    ) -> str | None:
        """The message `key` filled with `params`; a message counting `{count}` (or `{n}`)
        things takes its singular form (`<key>_one`) when there is one thing."""
        if key is None:
            return None
        count = (params or {}).get("count", (params or {}).get("n"))
        if isinstance(count, int) and not isinstance(count, bool):
            key = self.form(key, count)
        template = self.raw(key)
        if template is None:
            return None
        # A value may come from the submission: one line, its controls shown as escapes.
        values = _Lenient({k: visible(self._value(v)) for k, v in (params or {}).items()})
        try:  # str.format_map: string.Formatter's rules, in C (a hundred messages a grade)
            return template.format_map(values)
        except (ValueError, IndexError, KeyError):
            return template


def _plural_key(key: str, count: int, lang: str) -> str:
    """English (the only catalog language with grammatical number) says "1 check",
    "2 checks": `<key>_one` holds the singular."""
    return f"{key}_one" if lang == "en" and count == 1 else key


def language_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The first supported language named by LC_ALL, LC_MESSAGES or LANG (POSIX order)."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:
            code = value.split(".")[0].split("_")[0].lower()
            return code if code in LANGUAGES else FALLBACK
    return FALLBACK
