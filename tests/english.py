"""Finding English prose in what a ja, ko or zh reader is shown (tests/test_no_english.py).

A finding is a run of two or more English words in a row (a phrase, not one term) that
is not code. Code is whatever the lab keeps as the program writes it, and a reader
copies rather than reads:

- a `backtick span`, a URL, a {placeholder} left unfilled;
- a word in capitals: a metavariable of the usage line (`DIR`, `CHECK_ID`) or an
  acronym (`SSE`, `KV`);
- a word with a dot, slash, underscore, digit or `=` in it: file names (`sse_raw.txt`),
  paths, check ids (`cache.hit_faster`), JSON keys (`prompt_n`), options (`--out`),
  numbers with units (`0.5 s`, `200 ms`);
- a quoted value (`"…"`, `「…」`, `“…”`, `'…'`): the submission's own text or a key's
  value, shown as it is;
- the words of `KEPT`, below, and a list of the lab's own names (`cache, cancel, log`);
- the student's own text: what a check found and its data (`student_strings`), and any
  run that is in the submission's files (a first sentence the rule expected, cut from
  the student's answer): it is English when the student wrote English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from html.parser import HTMLParser
from typing import Any
from xml.etree import ElementTree

KEPT = (
    # The server's own words, as its log prints them and the handout quotes them: a
    # student greps the log for them.
    "loading model",
    "cancel task",
    "prompt eval",
    "eval time",
    # Column names of Canvas's and Moodle's gradebooks, as a roster's header row has them.
    "SIS Login ID",
    "Email address",
    "ID number",
    "Username",
    # Names of programs, written as their makers write them; `grader` is the program a
    # student types, before its command (`grader check`), `chatcmpl` the prefix of the
    # id llama-server gives a response (`chatcmpl ID`).
    "grader",
    "llama-server",
    "llama.cpp",
    "voice-llm",
    "chatcmpl",
    # JSON's own literals.
    "true",
    "false",
    "null",
)
"""Words the lab keeps in English in every language, each for the reason by its group."""

_QUOTED = re.compile(r'"[^"\n]*"|「[^」]*」|“[^”]*”|‘[^’]*’|(?<!\w)\'[^\'\n]*\'(?!\w)')
_CODE = re.compile(r"`[^`]*`|https?://\S+|\{[^{}\s]*\}")
_TOKEN = r"[!-'*+\--9<-Z\\^-~]"
"""A character of a code word: printable ASCII but a space and `,;:()[]`, which end one."""
_CODE_WORD = re.compile(rf"(?<!{_TOKEN}){_TOKEN}*[./_=\d<>@#\\$%*|+~^-]{_TOKEN}*")
_CAPITALS = re.compile(r"(?<![A-Za-z0-9_'])[A-Z]{2,}(?![A-Za-z0-9_'])")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’]*(?:[ ,]{1,2}[A-Za-z][A-Za-z'’]*){1,}")


def squeezed(text: str) -> str:
    """`text` with each run of white space one space, as wrapping leaves it."""
    return re.sub(r"\s+", " ", text)


_KEPT = re.compile("|".join(rf"(?<![A-Za-z0-9_-]){re.escape(k)}(?![A-Za-z0-9_-])" for k in KEPT))


def english_runs(
    text: str, student: Sequence[str] = (), source: str = "", ids: Iterable[str] = ()
) -> list[str]:
    """Each run of two or more English words in `text` that is not code nor the
    student's (see above). `student` is what `student_strings` gathers, `source` the
    submission's files as `squeezed` gives them, `ids` the lab's names (its artifacts:
    `cache, cancel, log`), a list of which is no prose."""
    names = set(ids)
    prose = squeezed(text)
    for value in student:
        if value in prose:
            prose = prose.replace(value, " ")
    prose = _CODE.sub(" ", prose)
    prose = _QUOTED.sub(" ", prose)
    prose = _KEPT.sub(" ", prose)
    prose = _CODE_WORD.sub(" ", prose)
    prose = _CAPITALS.sub(" ", prose)
    return [
        run
        for run in (m.group() for m in _WORDS.finditer(prose))
        if run not in source and not set(re.split(r"[ ,]+", run)) <= names
    ]


def student_strings(result: Any) -> list[str]:
    """What a result quotes from the submission, longest first: every check's found
    value and the strings of its data, and the folder's path."""
    found: set[str] = {str(result.submission)}
    for check in result.checks:
        if check.found is not None:
            found |= set(_strings(check.found))
        found |= set(_strings(check.data))
    values = {squeezed(value).strip() for value in found}
    return sorted((v for v in values if len(v) > 2), key=len, reverse=True)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif value is not None and not isinstance(value, (bool, int, float)):
        yield str(value)


MACHINE_KEYS = {
    "id",
    "status",
    "message_id",
    "artifact",
    "file",
    "pointer",
    "sha256",
    "submission",
    "lab",
    "language",
    "schema_version",
    "grader_version",
    "rubric_version",
    "input_digest",
    "output_format",
    "visibility",
    "stdout_visibility",
    "tags",
    "found",
    "data",
    "number",
}
"""Keys whose values a program reads: ids, states, digests; or the submission's own
values (`expected`, `found`, `data`), which `student_strings` covers in prose."""


def json_texts(value: Any, key: str | None = None) -> Iterator[str]:
    """Every string of a JSON document a person reads: all but `MACHINE_KEYS`' values."""
    if key in MACHINE_KEYS:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from json_texts(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from json_texts(item, key)


def xml_texts(document: str) -> Iterator[str]:
    """The text and attribute values of an XML document (JUnit's), not its tag names."""
    for element in ElementTree.fromstring(document).iter():
        for name, value in element.attrib.items():
            if name not in {"classname", "name"} or element.tag != "testcase":
                yield value
        if element.text and element.text.strip():
            yield element.text


class _Text(HTMLParser):
    """The text of an HTML page a browser shows, and its `title`/`alt`/`aria-label`s."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        for name, value in attrs:
            if name in ("title", "alt", "aria-label") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def html_texts(page: str) -> list[str]:
    parser = _Text()
    parser.feed(page)
    return parser.parts
