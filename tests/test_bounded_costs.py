"""Costs bounded by a cap the README states (issue 26): the roster's dialect is read in
one pass of its header line, its cells are capped, a result's texts are capped where a
page or an export reads them, and `--jobs` never starts more workers than cores."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import grader.batch.run as batch_module
from grader.class_report.results import TEXT_CAP, read_results, result_files
from grader.cli.batch import main as batch_main
from grader.cli.main import main as cli_main
from grader.export.roster import ROSTER_CELL_CHARS, RosterError, delimiter_of, parse_roster
from tests.conftest import CORRECT


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("costs")
    shutil.copytree(CORRECT, root / "class" / "alice")
    out = root / "out"
    assert batch_main([str(root / "class"), "--out", str(out), "--no-progress"]) == 0
    return out


def test_a_roster_of_quotes_and_commas_is_read_in_linear_time() -> None:
    """`csv.Sniffer` took 18-27 s on 61 KB of `,"a`."""
    data = ("submission\n" + ',"a' * 20_000 + "\n").encode()
    started = time.perf_counter()
    roster = parse_roster(data)
    assert time.perf_counter() - started < 1.0
    assert roster.columns == ("submission",)


@pytest.mark.parametrize(
    ("header", "delimiter"),
    [
        ("Student,ID,SIS Login ID", ","),
        ("First name;Last name;Email address", ";"),
        ("a\tb\tc", "\t"),
        ('"Doe, Jane";x;y', ";"),  # a comma inside quotes is no delimiter
        ("submission", ","),
    ],
)
def test_the_delimiter_is_the_one_the_header_line_uses(header: str, delimiter: str) -> None:
    assert delimiter_of(header + "\nrow\n") == delimiter


@pytest.mark.parametrize("length", [ROSTER_CELL_CHARS + 1, 200_000])
def test_a_roster_cell_over_the_cap_is_refused_with_its_line(length: int) -> None:
    data = ("submission,name\nalice,Alice\nbob," + "x" * length + "\n").encode()
    with pytest.raises(RosterError) as refused:
        parse_roster(data)
    assert refused.value.message_id == "export.roster_cell_too_long"
    assert refused.value.params["line"] == 3


def test_a_200000_character_roster_cell_is_exit_2_with_a_sentence(
    batch_out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,name\nalice," + "x" * 200_000 + "\n", "utf-8")
    args = ["export", str(batch_out), "--to", "canvas", "--roster", str(roster)]
    assert cli_main([*args, "--output", str(tmp_path / "c.csv"), "--lang", "en"]) == 2
    assert "line 2 of the roster has a cell of more than" in capsys.readouterr().err


def test_a_48_mb_message_reaches_no_page_or_export(batch_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(batch_out, out)
    path = out / "results" / "alice.json"
    data = json.loads(path.read_text("utf-8"))
    check = data["checks"][1]
    data["score"] -= check["points"]
    check.update(status="failed", points=0, message="A" * 48_000_000, hint="B" * 100_000)
    path.write_text(json.dumps(data), "utf-8")

    ((_, result, _),) = result_files(out)
    assert result is not None
    assert len(result.checks[1].message or "") == TEXT_CAP
    assert (result.checks[1].message or "").endswith("…")
    students, _ = read_results(out)
    assert len(students[0].checks[1].message or "") == TEXT_CAP
    page = tmp_path / "page.html"
    assert cli_main(["report", str(out), "--html", str(page)]) == 0
    assert page.stat().st_size < 1_000_000  # was 104 MB
    feedback = tmp_path / "feedback"
    assert cli_main(["export", str(out), "--feedback", str(feedback)]) == 0
    assert sum(p.stat().st_size for p in feedback.rglob("*") if p.is_file()) < 1_000_000


def test_jobs_is_capped_at_the_cores(
    batch_out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    real = batch_module.Workers

    def counting(jobs: int, *args: Any, **kwargs: Any) -> Any:
        started.append(jobs)
        return real(jobs, *args, **kwargs)

    monkeypatch.setattr(batch_module, "Workers", counting)
    monkeypatch.setattr(batch_module, "cores", lambda: 2)
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    batch_module.run([str(root)], str(tmp_path / "out"), jobs=160)
    assert started == [2]
