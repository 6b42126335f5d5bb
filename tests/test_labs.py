"""Labs are plugins: found through the `grader.labs` entry points, chosen with `--lab`,
validated when they are built."""

from __future__ import annotations

import dataclasses
import importlib.metadata

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine import labs
from grader.engine.api import check
from grader.engine.lab import Lab, Leaderboard
from grader.engine.params import Flag
from tests.conftest import CORRECT


def test_the_installed_labs_are_importlib_metadatas_entry_points() -> None:
    expected = {(e.name, e.value) for e in importlib.metadata.entry_points(group=labs.GROUP)}
    assert {(e.name, e.value) for e in labs.installed()} == expected
    assert ("first-token", "checks:LAB") in expected


def test_an_installed_lab_names_its_distribution_normalized() -> None:
    (point,) = labs.installed()
    assert point.distribution == "firsttoken_grader"


def test_the_only_installed_lab_is_the_default() -> None:
    assert [p.name for p in labs.installed()] == ["first-token"]
    assert labs.choose() is LAB and labs.load("first-token") is LAB
    assert labs.load("checks:LAB") is LAB  # a reference, installed or not


def test_several_labs_need_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    two = [labs.EntryPoint("a", "x:LAB", "x"), labs.EntryPoint("b", "y:LAB", "y")]
    monkeypatch.setattr(labs, "_installed", two)
    with pytest.raises(labs.LabError) as info:
        labs.choose()
    assert info.value.message_id == "lab.several" and "a, b" in str(info.value)
    monkeypatch.setattr(labs, "_installed", [])
    with pytest.raises(labs.LabError, match="no lab is installed"):
        labs.choose()


def test_results_name_their_lab_when_several_are_installed(monkeypatch) -> None:
    points = [labs.EntryPoint("first-token", "checks:LAB", "x"), labs.EntryPoint("b", "y:L", "y")]
    monkeypatch.setattr(labs, "_installed", points)
    assert labs.choose(hint="first-token") is LAB
    with pytest.raises(labs.LabError):
        labs.choose(hint="not-installed")


@pytest.mark.parametrize(
    ("name", "message_id"),
    [
        ("no-such-lab", "lab.unknown"),
        ("no_such_module:LAB", "lab.broken"),
        ("checks:SCHEMAS", "lab.not_a_lab"),
    ],
)
def test_a_lab_that_is_not_there_says_why(name: str, message_id: str) -> None:
    with pytest.raises(labs.LabError) as info:
        labs.load(name)
    assert info.value.message_id == message_id


def test_an_entry_point_must_give_the_lab_of_its_name(monkeypatch) -> None:
    monkeypatch.setattr(labs, "_installed", [labs.EntryPoint("other", "checks:LAB", "x")])
    with pytest.raises(labs.LabError) as info:
        labs.load("other")
    assert info.value.message_id == "lab.wrong_name" and "first-token" in str(info.value)


def test_grader_labs_lists_the_installed_labs(capsys) -> None:
    assert main(["labs"]) == 0
    name, title, value = capsys.readouterr().out.strip().split("\t")
    assert (name, value) == ("first-token", "checks:LAB") and title == LAB.title


def test_every_command_takes_lab(capsys, tmp_path) -> None:
    assert main(["check", str(CORRECT), "--lab", "first-token", "--color", "never"]) == 0
    assert main(["checks", "--lab=first-token"]) == 0
    assert "health.ok" in capsys.readouterr().out
    assert main(["check", str(CORRECT), "--lab", "nope"]) == 2
    assert "no lab named nope" in capsys.readouterr().err
    batch = ["batch", str(CORRECT), "--out", str(tmp_path / "out"), "--lab", "nope"]
    assert main(batch) == 2 and "no lab named nope" in capsys.readouterr().err
    assert main([*batch[:-1], "first-token", "--jobs", "1", "--no-progress"]) == 0
    report = ["report", str(tmp_path / "out"), "--lab", "first-token"]
    assert main(report) == 0 and (tmp_path / "out" / "report.html").is_file()


def test_the_labs_options_come_from_the_lab(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    help_text = capsys.readouterr().out
    assert "--server-log" in help_text and LAB.default_folder in help_text


# --------------------------------------------------------------------------- declaring


def _noop(ctx: object) -> None:
    return None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda: {"checks": (*LAB.checks, check("x.y", reads=("nothing",))(_noop))}, "nothing"),
        (lambda: {"checks": (*LAB.checks, LAB.checks[0])}, "declared twice"),
        (lambda: {"artifacts": (*LAB.artifacts, LAB.artifacts[0])}, "declared twice"),
        (lambda: {"checks": (check("x.y", reads=(), after=("x.z",))(_noop),)}, "prerequisite"),
        (lambda: {"limits": {"file_bytes": 1}}, "engine's"),
        (lambda: {"path_options": {"nope": "--nope"}}, "path option"),
        (
            lambda: {"checks": (check("x.y", reads=(), params={"visibility": Flag()})(_noop),)},
            "rubric key of its own",
        ),
        (lambda: {"leaderboard": (Leaderboard("l.x", "no.such_check", "x"),)}, "leaderboard"),
        (lambda: {"leaderboard": (Leaderboard("l.x", "ttft.medians", "x", "up"),)}, "leaderboard"),
        (
            lambda: {
                "artifacts": (dataclasses.replace(LAB.artifacts[0], max_bytes="no_cap"),),
                "checks": (),
            },
            "no_cap",
        ),
    ],
)
def test_a_misdeclared_lab_fails_when_it_is_built(change, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        dataclasses.replace(LAB, **change())


def test_a_lab_is_a_lab_value() -> None:
    assert isinstance(LAB, Lab) and LAB.messages_package == LAB.package == "checks"
    assert LAB.default_limits()["log_lines"] == LAB.limits["log_lines"]
