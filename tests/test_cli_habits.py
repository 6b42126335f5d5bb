"""The habits users bring from the tools they know (check50, check-jsonschema, pytest):
`-V`, a suggestion for a misspelt option, `grader checks` as a table on a terminal and
tab-separated in a pipe, and diagnostics wrapped to the terminal in every language.

A terminal is a real pseudo-terminal of the given size (`pty`), as a user's would be."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

from checks import LAB
from grader import __version__
from grader.words.i18n import LANGUAGES
from grader.words.wrap import cells
from tests.conftest import ROOT, max_score


def on_terminal(*args: str, columns: int = 60) -> str:
    """What `grader ARGS` shows on a terminal `columns` wide (stdout and stderr both)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", *args],
        stdin=follower, stdout=follower, stderr=follower, cwd=ROOT, env=env,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def piped(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=ROOT, env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_is_one_flag_away(flag: str) -> None:
    proc = piped(flag)
    assert proc.returncode == 0 and proc.stdout.strip() == f"grader {__version__}"


@pytest.mark.parametrize(
    ("args", "wrong", "meant"),
    [
        (("check", "--formt", "json"), "--formt", "--format"),
        (("checks", "--rubirc", "r.toml"), "--rubirc", "--rubric"),
        (("check", "--samlpe=correct"), "--samlpe", "--sample"),
    ],
)
def test_a_misspelt_option_gets_the_one_meant(
    args: tuple[str, ...], wrong: str, meant: str
) -> None:
    proc = piped(*args)
    assert proc.returncode == 2
    assert f"there is no option {wrong}; did you mean {meant}?" in proc.stderr
    assert proc.stderr.startswith(f"usage: grader {args[0]} ")  # the command's usage only


def test_the_suggestion_is_in_the_users_language() -> None:
    proc = piped("check", "--formt", "json", "--lang", "ja")
    assert "--formatのことですか" in proc.stderr


def test_an_abbreviation_argparse_takes_is_no_misspelling() -> None:
    proc = piped("check", "tests/data/real/correct", "--form", "json")
    assert proc.returncode == 0 and proc.stdout.startswith("{")


def test_grader_checks_is_tab_separated_in_a_pipe() -> None:
    lines = piped("checks").stdout.splitlines()
    assert all(len(line.split("\t")) == 3 for line in lines)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_grader_checks_is_an_aligned_table_on_a_terminal(lang: str) -> None:
    lines = on_terminal("checks", "--lang", lang, columns=70).splitlines()
    assert all(cells(line) < 70 for line in lines) and "\t" not in "".join(lines)
    heads = [line for line in lines if not line.startswith(" ")]
    starts = {re.match(r"\S+ +\S+  ", head).end() for head in heads}  # id, points: ASCII
    assert len(heads) > 30 and len(starts) == 1  # every title starts in the same column


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_diagnostic_is_wrapped_to_the_terminal_in_every_language(lang: str) -> None:
    text = on_terminal("check", "--sample", "corect", "--lang", lang, columns=50)
    lines = [line for line in text.splitlines() if line]
    assert len(lines) > 2 and all(cells(line) < 50 for line in lines)
    assert lines[0].startswith("grader: ") and all(line.startswith("  ") for line in lines[1:])


def test_a_diagnostic_stays_on_one_line_in_a_pipe() -> None:
    proc = piped("check", "--sample", "corect", "--lang", "zh")
    assert proc.stderr.count("\n") == 1


def test_a_diagnostic_with_a_path_wider_than_the_terminal_keeps_the_path_whole(tmp_path) -> None:
    folder = tmp_path / ("a-long-folder-name-" * 4) / "missing"
    text = on_terminal("check", str(folder), "--lang", "zh", columns=50)
    assert str(folder) in text.replace("\n", "") and str(folder) in text


def test_another_word_is_no_misspelling() -> None:
    proc = piped("checks", "--verbose")
    assert proc.returncode == 2 and "did you mean" not in proc.stderr


# --------------------------------------------------------------- several outputs, subsets

REAL_RUN = "tests/data/real/no_close_on_cancel"


def test_also_writes_each_format_into_its_file_as_format_would_print_it(tmp_path) -> None:
    proc = piped("check", REAL_RUN, "--also", f"json:{tmp_path}/r.json",
                 "--also", f"junit:{tmp_path}/r.xml")  # fmt: skip
    assert proc.returncode == 1 and proc.stdout.startswith("first-token · ")  # text, as asked
    assert (tmp_path / "r.json").read_text("utf-8") == piped(
        "check", REAL_RUN, "--format", "json"
    ).stdout
    assert (tmp_path / "r.xml").read_text("utf-8") == piped(
        "check", REAL_RUN, "--format", "junit"
    ).stdout


def test_also_without_a_format_and_a_file_is_refused_before_grading() -> None:
    proc = piped("check", REAL_RUN, "--also", "jsn:r.json")
    assert proc.returncode == 2 and "FORMAT:FILE" in proc.stderr and proc.stdout == ""


def test_a_step_is_graded_alone_and_the_rest_is_said() -> None:
    import json

    proc = piped("check", REAL_RUN, "--step", "cancel", "--format", "json")
    doc = json.loads(proc.stdout)
    assert {c["id"].split(".")[0] for c in doc["checks"]} == {"cancel"}
    assert doc["max_score"] == sum(c["max_points"] for c in doc["checks"]) < max_score()
    rest = len(LAB.all_check_ids()) - len(doc["checks"])
    assert f"the other {rest} checks are left out of this score" in proc.stderr
    assert proc.returncode == 1  # cancel.slot_freed fails in this run


def test_the_subsets_status_is_its_own_checks() -> None:
    proc = piped("check", REAL_RUN, "--check", "health.ok,ttft.medians", "-q")
    assert proc.returncode == 0 and "Score: 3/3" in proc.stdout


def test_a_subsets_json_is_a_valid_result() -> None:
    import json

    import jsonschema

    schema = json.loads((ROOT / "grader" / "schemas" / "result.schema.json").read_text("utf-8"))
    doc = json.loads(piped("check", REAL_RUN, "--step", "prefill", "--format", "json").stdout)
    jsonschema.validate(doc, schema)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--step", "cance"), "did you mean cancel?"),
        (("--check", "log.intat"), "did you mean log.intact?"),
    ],
)
def test_an_unknown_step_or_check_is_refused_with_the_nearest(
    args: tuple[str, ...], said: str
) -> None:
    proc = piped("check", REAL_RUN, *args)
    assert proc.returncode == 2 and said in proc.stderr
