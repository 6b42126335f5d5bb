"""Nobody dropped (issue 26): every first-level folder that holds a submission gets a
row, whatever its name, and `--out` / `--output` can never mix the grader's outputs
with what it grades."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from grader.cli.batch import main as batch_main
from grader.cli.main import main as cli_main
from tests.conftest import CORRECT, max_score

FULL = max_score()


def batch(*args: str) -> int:
    return batch_main([*args, "--no-progress"])


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def test_a_folder_named_with_a_leading_dot_gets_a_row(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    for name in (".alice", "...x", "bob"):
        shutil.copytree(CORRECT, root / name)
    (root / ".git" / "objects").mkdir(parents=True)  # a tool's folder, no lab files
    assert batch(str(root), "--out", str(out)) == 0
    found = {Path(r["source"]).name: r for r in rows(out)}
    assert sorted(found) == ["...x", ".alice", "bob"]
    assert all(float(r["score"]) == FULL for r in found.values())
    assert found[".alice"]["id"].startswith("_alice-")  # lossy name: hashed, never `alice`


@pytest.mark.parametrize("inside", ["", "alice", "alice/out", "sec/out", "carol"])
def test_out_equal_to_or_inside_a_graded_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inside: str
) -> None:
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    shutil.copytree(CORRECT, root / "sec" / "bob")
    shutil.copytree(CORRECT, root / "carol" / "llm")  # an upload of llm/: carol's too
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    out = root / inside if inside else root
    assert batch(str(root), "--out", str(out)) == 2
    assert "overlaps the graded folder" in capsys.readouterr().err
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # nothing written


def test_out_above_a_graded_folder_is_refused(tmp_path: Path, capsys) -> None:
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    assert batch(str(root / "alice"), "--out", str(tmp_path)) == 2
    assert "overlaps the graded folder" in capsys.readouterr().err


def test_out_as_a_folder_of_its_own_inside_path_is_still_allowed(tmp_path: Path) -> None:
    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    assert batch(str(root), "--out", str(root / "out")) == 0
    assert batch(str(root), "--out", str(root / "out")) == 0  # and again, over its outputs
    assert [r["id"] for r in rows(root / "out")] == ["alice"]


@pytest.mark.parametrize("target", ["ttft.json", "report.json", "."])
def test_check_output_inside_the_submission_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    alice = tmp_path / "alice"
    shutil.copytree(CORRECT, alice)
    before = {p.name: p.read_bytes() for p in alice.iterdir() if p.is_file()}
    code = cli_main(["check", str(alice), "--format", "json", "--output", str(alice / target)])
    assert code == 2
    assert "never writes there" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in alice.iterdir() if p.is_file()} == before


def test_check_output_onto_the_server_log_it_grades_is_refused(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    shutil.copytree(CORRECT, alice)
    log = tmp_path / "server.log"
    shutil.move(alice / "server.log", log)
    code = cli_main(["check", str(alice), "--server-log", str(log), "--output", str(log)])
    assert code == 2 and log.read_bytes().startswith(b"")
    assert (alice / "ttft.json").is_file()
