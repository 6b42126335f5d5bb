"""Text a submission controls reaches no output raw: control characters, direction
overrides and bytes that are not UTF-8 are shown as escapes, in every format."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.cli.main import main
from grader.render import FORMATS
from grader.words.visible import visible, visible_plain, visible_result
from tests.conftest import CORRECT, ROOT

# Clear the screen, home the cursor, draw a fake score, copy "evil" to the clipboard
# (OSC 52), hide everything after (SGR 8), and a fake score line of its own.
HOSTILE = "\x1b[2J\x1b[HScore: 71/71\x1b]52;c;ZXZpbA==\x07\x1b[8m\nScore: 71/71 \u009b2J\u202e"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
OUR_COLOURS = re.compile(r"\x1b\[\d+m")


def test_controls_become_readable_escapes() -> None:
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("bell\x07 del\x7f csi\x9b") == "bell\\x07 del\\x7f csi\\x9b"
    assert visible("one\ntwo\tthree\r") == "one\\ntwo\\tthree\\r"
    assert visible("one\ntwo\tthree", keep_newlines=True) == "one\ntwo\tthree"
    assert visible("evil\u202etxt") == "evil\\u202etxt"
    assert visible("sep\u2028x") == "sep\\u2028x"


def test_a_byte_that_was_not_utf8_is_shown_as_that_byte() -> None:
    assert visible(b"caf\xff".decode("utf-8", "surrogateescape")) == "caf\\xff"
    assert visible("\ud83d") == "\\ud83d"  # a lone surrogate from a JSON escape


def test_ordinary_text_is_returned_unchanged() -> None:
    text = "Zoë 日本語 한국어 中文 — ✓ `code` 3.5 ms"
    assert visible(text) is text


@pytest.fixture
def hostile_submission(tmp_path: Path) -> Path:
    folder = tmp_path / "sub"
    shutil.copytree(CORRECT, folder)
    sentence = json.loads((folder / "sentence.json").read_text("utf-8"))
    sentence["text"] = "Hello there. More."
    sentence["first_sentence"] = HOSTILE
    (folder / "sentence.json").write_text(json.dumps(sentence), "utf-8")
    return folder


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    return []


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_hostile_first_sentence_reaches_no_format_raw(
    fmt: str, hostile_submission: Path, capsys
) -> None:
    code = main(["check", str(hostile_submission), "--format", fmt, "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert RAW.search(out.replace("\n", "")) is None, repr(RAW.search(out))
    assert "\\x1b[2J" in out or "\\\\x1b[2J" in out  # shown, so the student sees it
    if fmt in ("json", "gradescope", "prairielearn"):
        assert not any(RAW.search(s.replace("\n", "")) for s in _strings(json.loads(out)))
    if fmt in ("junit", "junit-gitlab"):
        ET.fromstring(out.encode("utf-8"))


def test_the_fake_score_never_starts_a_line_of_the_text_report(
    hostile_submission: Path, capsys
) -> None:
    main(["check", str(hostile_submission), "--color", "always"])
    out = capsys.readouterr().out
    assert RAW.search(OUR_COLOURS.sub("", out).replace("\n", "")) is None
    lines = [OUR_COLOURS.sub("", line) for line in out.splitlines()]
    assert [line for line in lines if line.startswith("Score:")] == [lines[-1]]
    assert "Score: 71/71" not in lines[-1]


def test_every_string_of_a_result_is_made_visible(hostile_submission: Path) -> None:
    from checks import LAB
    from grader.engine.grade import grade
    from grader.engine.rubric import load_lab_rubric
    from tests.conftest import grade_folder  # noqa: F401  (the fixture's module)

    result = grade(LAB, str(hostile_submission), load_lab_rubric(LAB, None, "checks"))
    shown = visible_result(result)
    data = shown.to_dict()
    assert not any(RAW.search(s.replace("\n", "")) for s in _strings(data))
    rule = next(c for c in shown.checks if c.id == "sentence.first_sentence_rule")
    assert "\n" not in (rule.message or "") and "\\n" in (rule.message or "")


def test_one_walk_gives_the_visible_results_json_as_read_back(hostile_submission: Path) -> None:
    """`visible_plain` (the batch's one walk) is `visible_result(...).to_dict()`, with
    lists where the result held tuples: exactly what reading the written text gives."""
    from checks import LAB
    from grader.engine.grade import grade
    from grader.engine.result import json_text, schema_version_first
    from grader.engine.rubric import load_lab_rubric

    result = grade(LAB, str(hostile_submission), load_lab_rubric(LAB, None, "checks"))
    plain, as_read = visible_plain(result)
    data = schema_version_first(plain)
    assert as_read
    assert json_text(data) == visible_result(result).to_json()
    assert json.loads(json_text(data)) == data


def test_a_key_that_is_no_string_is_said_not_to_read_back_the_same(
    hostile_submission: Path,
) -> None:
    from dataclasses import replace

    from checks import LAB
    from grader.engine.grade import grade
    from grader.engine.rubric import load_lab_rubric

    result = grade(LAB, str(hostile_submission), load_lab_rubric(LAB, None, "checks"))
    odd = replace(result.checks[0], data={1: ("a\x1b", 2)})
    result = replace(result, checks=[odd, *result.checks[1:]])
    plain, as_read = visible_plain(result)
    assert not as_read
    assert plain["checks"][0]["data"] == {1: ["a\\x1b", 2]}


# ------------------------------------------------------------------ bytes that are not UTF-8


@pytest.fixture
def odd_folder(tmp_path: Path) -> bytes:
    """A copy of the correct submission in a folder whose name holds byte 0xFF."""
    folder = os.fsencode(tmp_path) + b"/caf\xff\x1b[2J"
    shutil.copytree(CORRECT, os.fsdecode(folder))
    return folder


def _grader(*args: bytes | str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    env = os.environ | {"PYTHONPATH": str(ROOT), "LC_ALL": "C", "PYTHONIOENCODING": ""}
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], capture_output=True, cwd=cwd, env=env
    )


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_folder_name_that_is_not_utf8_gives_valid_utf8(fmt: str, odd_folder: bytes) -> None:
    proc = _grader("check", odd_folder, "--format", fmt, "--color", "never")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("utf-8")  # strict: raises on any invalid byte
    assert RAW.search(text.replace("\n", "")) is None
    if fmt == "json":
        assert json.loads(text)["submission"].endswith("/caf\\xff\\x1b[2J")
    elif fmt in ("gradescope", "prairielearn"):
        json.loads(text)
    elif fmt in ("junit", "junit-gitlab"):
        ET.fromstring(proc.stdout)


def test_a_missing_folder_name_that_is_not_utf8_is_said_visibly(tmp_path: Path) -> None:
    proc = _grader("check", os.fsencode(tmp_path) + b"/nope\xff", "--format", "json")
    assert proc.returncode == 2
    assert "nope\\xff" in proc.stderr.decode("utf-8")
    assert "nope\\xff" in json.loads(proc.stdout.decode("utf-8"))["format_errors"][0]


def test_a_batch_over_folders_that_are_not_utf8_writes_valid_files(
    odd_folder: bytes, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = _grader("batch", os.path.dirname(odd_folder), "--out", str(out), "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8")
            if path.suffix == ".json":
                json.loads(text)
    results = list((out / "results").glob("*.json"))
    assert len(results) == 1
    assert json.loads(results[0].read_text("utf-8"))["submission"].endswith("caf\\xff\\x1b[2J")


def test_every_character_it_escapes_is_one_isprintable_refuses() -> None:
    """The fast path (a printable string is returned as it is) skips nothing unsafe."""
    import re

    from grader.words.visible import _UNSAFE, _UNSAFE_KEEP_LINES

    for characters in (_UNSAFE, _UNSAFE_KEEP_LINES):
        pattern = re.compile(characters)
        escaped = [chr(code) for code in range(0x110000) if pattern.match(chr(code))]
        assert len(escaped) > 2048  # the surrogates alone are 2,048
        assert not any(char.isprintable() for char in escaped)
