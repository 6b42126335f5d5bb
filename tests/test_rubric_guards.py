"""Every rubric parse failure is the instructor's, exit 2 naming the problem, never an
internal error (issue 26); a rubric Notepad saved with a byte-order mark is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from checks import LAB
from grader.cli.main import main as cli_main
from grader.engine.rubric import RubricError, load_lab_rubric
from tests.conftest import CORRECT, ROOT

RUBRIC = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "rubric.toml"
    path.write_text(text, "utf-8")
    return str(path)


def nested(tmp_path: Path) -> str:
    return write(tmp_path, RUBRIC + "\n[x]\ny = " + "[" * 3000 + "]" * 3000 + "\n")


def digits(tmp_path: Path) -> str:
    return write(tmp_path, RUBRIC.replace("version = ", "big = " + "9" * 5000 + "\nversion = ", 1))


@pytest.mark.parametrize(
    ("make", "words"),
    [(nested, "nested too deeply"), (digits, "4300 digits")],
)
def test_a_rubric_python_cannot_read_is_exit_2_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, words: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(RubricError) as refused:
        load_lab_rubric(LAB, path)
    assert refused.value.message_id == "rubric.not_toml"
    assert cli_main(["check", str(CORRECT), "--rubric", path, "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "not valid TOML" in err and words in err and "internal error" not in err


def test_a_deep_rubric_is_refused_at_any_stack_depth(tmp_path: Path) -> None:
    path = nested(tmp_path)

    def deeper(frames: int) -> None:
        if frames:
            return deeper(frames - 1)
        with pytest.raises(RubricError):
            load_lab_rubric(LAB, path)
        return None

    deeper(600)


def test_a_rubric_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "\ufeff" + RUBRIC)
    assert load_lab_rubric(LAB, path).version == load_lab_rubric(LAB).version
    assert cli_main(["check", str(CORRECT), "--rubric", path, "--format", "json"]) == 0
