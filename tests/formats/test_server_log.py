"""The `server.log` artifact's parser: the scan, and the problems it reports of the file."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from checks import LAB
from checks.formats.server_log import server_log
from grader.reading.limits import Limits

LIMITS = Limits().with_lab_defaults(LAB.limits)


def problems_of(text: str) -> list[str]:
    return [p.message_id for p in server_log()(text, "server.log", LIMITS).problems]


def test_an_empty_log_is_reported_empty() -> None:
    assert problems_of("") == ["log.empty"]


def test_a_log_of_blank_lines_is_reported_empty() -> None:
    assert problems_of(" \n\t\n\u3000\n") == ["log.empty"]


def test_a_log_with_a_line_is_not_reported_empty() -> None:
    assert problems_of("0.00.002.023 I srv  llama_server: initializing ...\n") == []


@given(st.text(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\u2028\u3000ax")))
def test_emptiness_is_what_stripping_the_text_would_say(text: str) -> None:
    # the parser asks `isspace` instead of stripping (a copy of a near-cap log)
    assert ("log.empty" in problems_of(text)) == (not text.strip())
