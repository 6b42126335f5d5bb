"""A plain command line is read from the commands' tables exactly as argparse reads it.

`grader.cli_commands.read` spares a cold `grader check` argparse; its contract is to
answer only where it answers as the argparse parser `grader.cli` builds from the same
tables, and to leave every other command line (help, errors, abbreviations) to argparse.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import cli
from grader.cli_commands import Command, arg, read
from grader.cli_parser import english, speaking

LAB = cli._chosen_lab([])
NAMES = ("check", "checks", "labs", "explain", "batch", "report")


def _quick(argv: list[str]) -> dict[str, Any] | None:
    args = cli._quick_read(argv, LAB)
    return None if args is None else vars(args)


def _argparse(argv: list[str]) -> dict[str, Any] | None:
    """What the `grader` parser makes of `argv`; None when it refuses it or exits (help,
    version)."""
    catalog = english()
    out = io.StringIO()
    with speaking(catalog), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            return vars(cli._parser(argv, LAB, catalog).parse_args(argv))
        except SystemExit:
            return None


def _flags() -> list[str]:
    found = {flag for a in cli.ROOT_ARGS for flag in a.flags}
    for name in cli._QUICK:
        found |= {flag for a in cli._command(name, LAB).args for flag in a.flags if flag[0] == "-"}
    return sorted(found)


TOKENS = st.sampled_from(
    [
        *NAMES,
        *_flags(),
        "json",
        "text",
        "jsn",
        "ja",
        "xx",
        "never",
        "always",
        "sub",
        "a b",
        "",
        "-",
        "--",
        "-1",
        "-x",
        "-vq",
        "-h",
        "--help",
        "--form",
        "--verb",
        "--format=json",
        "--format=",
        "--lang=ko",
        "--output=out.json",
        "--verbose=1",
        "--unknown",
        "log.intact",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=7))
def test_read_answers_only_as_argparse_does(argv: list[str]) -> None:
    quick = _quick(argv)
    if quick is not None:
        assert quick == _argparse(argv)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["check", "checks", "explain", "labs"]),
    st.lists(
        st.sampled_from(
            [
                ["sub"],
                ["log.intact"],
                ["--format", "json"],
                ["--format=markdown"],
                ["--lang", "ja"],
                ["--color=never"],
                ["-v"],
                ["--quiet"],
                ["--rubric", "r.toml"],
                ["--output", "o.json"],
                ["--server-log", "x.log"],
                ["--lab", "first-token"],
                ["--sample", "correct"],
                ["--also", "json:a.json"],
                ["--also=junit:b.xml"],
                ["--check", "log.intact"],
                ["--step", "cancel"],
            ]
        ),
        max_size=4,
        unique_by=lambda part: part[0].partition("=")[0],  # each flag once: see below
    ),
    st.sampled_from([[], ["--lang", "zh"], ["--lang=ko"]]),
)
def test_read_of_plain_command_lines_is_argparses(
    command: str, parts: list[list[str]], before: list[str]
) -> None:
    """Declared flags, each once, and values in any order and form: whenever argparse
    accepts such a line, `read` answers it too, and the same. (A flag given twice is
    left to argparse, which keeps the last: `read` need not know that rule.)"""
    argv = [*before, command, *(token for part in parts for token in part)]
    expected = _argparse(argv)
    if expected is not None:
        assert _quick(argv) == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "sub", "--format", "json"],
        ["check"],
        ["--lang", "ja", "check", "sub", "-q"],
        ["check", "--format=junit", "--output", "out.xml", "sub"],
        ["check", "sub", "--also", "json:a.json", "--also=junit:b.xml", "--step", "cancel"],
        ["checks", "--rubric", "r.toml"],
        ["explain", "log.intact", "--lang", "ko"],
        ["labs"],
    ],
)
def test_the_platforms_and_students_command_lines_are_read_without_argparse(
    argv: list[str],
) -> None:
    assert _quick(argv) is not None
    assert _quick(argv) == _argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--help"],
        ["--version"],
        ["check", "--form", "json"],  # an abbreviation: argparse's to accept
        ["check", "--format", "jsn"],  # an error, said by argparse in the user's words
        ["check", "-v", "-q"],
        ["check", "a", "b"],
        ["check", "--output", "-o.json"],
        ["check", "--", "sub"],
        ["check", "--format", "json", "--format", "text"],
        ["explain"],  # its CHECK_ID is required
        ["batch", "folder"],  # a heavy command: argparse comes with its module
        [],
    ],
)
def test_a_command_line_that_is_not_plain_is_left_to_argparse(argv: list[str]) -> None:
    assert _quick(argv) is None


def test_a_command_with_an_argument_read_cannot_interpret_is_never_read() -> None:
    command = Command("count", "help.count", (arg("--jobs", type=int, help="help.jobs"),))
    assert read(["count", "--jobs", "2"], cli.ROOT_ARGS, {"count": command}, "command") is None
