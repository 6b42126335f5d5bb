"""While grading, an audit hook refuses network, processes, writes and outside reads."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from checks import LAB
from grader.engine import Check, Lab, check
from grader.grade import grade
from grader.rubric import parse_rubric
from grader.sandbox import SandboxViolation, confined
from tests.conftest import CORRECT, ROOT, check_of

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def grade_with(extra: Check, folder: Path = CORRECT):
    lab = Lab(LAB.name, LAB.artifacts, (*LAB.checks, extra), LAB.rubric_file, LAB.messages_package)
    text = RUBRIC_TEXT + f'\n[checks."{extra.id}"]\npoints = 1\n'
    return grade(lab, str(folder), parse_rubric(text, "r.toml", lab.all_check_ids()))


@check("demo.connect", reads=())
def connects(ctx):
    socket.create_connection(("127.0.0.1", 8080), timeout=0.1)


@check("demo.subprocess", reads=())
def runs_a_process(ctx):
    subprocess.run(["true"], check=False)


@check("demo.outside_read", reads=())
def reads_outside(ctx):
    Path("/etc/hostname").read_text()


@check("demo.write", reads=())
def writes(ctx):
    (CORRECT / "planted.txt").write_text("x")


@pytest.mark.parametrize(
    ("demo", "words"),
    [
        (connects, "network"),
        (runs_a_process, "processes"),
        (reads_outside, "reading outside"),
        (writes, "writing"),
    ],
)
def test_forbidden_operation_in_a_check_is_an_error_and_grading_goes_on(
    demo: Check, words: str
) -> None:
    result = grade_with(demo)
    outcome = check_of(result, demo.id)
    assert outcome.status == "error"
    assert words in (outcome.message or "")
    assert check_of(result, "ttft.medians").status == "passed"
    assert not (CORRECT / "planted.txt").exists()


def test_importing_a_module_from_the_submission_is_refused(submission: Path) -> None:
    (submission / "planted_module.py").write_text("RAN = True\n", "utf-8")

    @check("demo.import", reads=())
    def imports(ctx):
        import sys

        sys.path.insert(0, str(submission))
        try:
            __import__("planted_module")
        finally:
            sys.path.remove(str(submission))

    assert check_of(grade_with(imports, submission), "demo.import").status == "error"


def test_reading_the_submission_and_package_data_is_allowed() -> None:
    assert (
        check_of(grade_with(check("demo.ok", reads=())(lambda ctx: None)), "demo.ok").status
        == "passed"
    )


def test_the_sandbox_is_off_outside_grading() -> None:
    with confined(str(CORRECT)), pytest.raises(SandboxViolation):
        socket.socket()
    socket.socket().close()  # after the block: allowed again


def test_grading_from_inside_the_submission_folder_reads_sse_py_as_a_tree(monkeypatch) -> None:
    monkeypatch.chdir(CORRECT)
    result = grade(LAB, ".", parse_rubric(RUBRIC_TEXT, "r.toml", LAB.all_check_ids()))
    assert check_of(result, "sse_py.static").status == "passed"
