"""`grader batch --lang L` writes every sentence a person reads in L: the gradebook's
error and note cells, summary.json's human fields, the progress bar and the last line;
ids, statuses and every other machine field stay as they are."""

from __future__ import annotations

import csv
import io
import json
import pickle
import shutil
from pathlib import Path

import pytest

from grader.batch.progress import Progress
from grader.cli.batch import main
from grader.reading.archives import ArchiveError, Special
from grader.words.i18n import Catalog
from grader.words.worded import Worded
from tests.conftest import CORRECT, hand_in_zips


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    """A good folder, an empty one, a zip with extra members and a zip that is none."""
    room = tmp_path / "class"
    shutil.copytree(CORRECT, room / "alice")
    (room / "empty").mkdir()
    hand_in_zips(room, CORRECT)
    return room


def batch(classroom: Path, out: Path, *args: str) -> int:
    return main([str(classroom), "--out", str(out), "--jobs", "1", *args])


def cells(out: Path) -> dict[str, dict[str, str]]:
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


def test_gradebook_cells_are_in_the_batch_language(classroom: Path, tmp_path: Path) -> None:
    assert batch(classroom, tmp_path / "out", "--lang", "ja") == 1
    rows = cells(tmp_path / "out")
    assert rows["empty"]["error"].startswith("ラボのファイルが見つかりません")
    assert rows["broken"]["error"].startswith(
        "アーカイブを受け付けられません: アーカイブを読めません"
    )
    assert rows["bob__bob"]["note"] == (
        "アーカイブ内のほかのファイル2個は取り出していません"
        "（bob/notes.txt, bob/link（シンボリックリンク））。"
    )
    assert rows["alice"]["gradable"] == "true" and rows["empty"]["gradable"] == "false"


def test_summary_says_why_an_archive_was_refused_in_the_batch_language(
    classroom: Path, tmp_path: Path
) -> None:
    batch(classroom, tmp_path / "out", "--lang", "ko")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    refused = next(a for a in summary["archives"] if a["archive"].endswith("broken.zip"))
    assert "압축 파일을 읽을 수 없습니다" in refused["error"]
    assert refused["extracted"] is False and refused["ids"] == ["broken"]


def test_the_last_line_is_in_the_batch_language(
    classroom: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch(classroom, tmp_path / "out", "--lang", "zh")
    assert "grader batch: 共 4 份提交" in capsys.readouterr().err


def test_one_submission_is_one_in_english(tmp_path: Path, capsys) -> None:
    assert main([str(CORRECT), "--out", str(tmp_path / "out"), "--jobs", "1", "--lang", "en"]) == 0
    assert "grader batch: 1 submission, 1 graded," in capsys.readouterr().err


def test_the_progress_bar_speaks_the_batch_language() -> None:
    catalog = Catalog("ja", ("grader",))
    stream = io.StringIO()
    ticks = iter(range(100))

    def say(key: str, **params: object) -> str:
        return str(catalog.text(key, params))  # type: ignore[arg-type]

    bar = Progress(2, stream, enabled=True, clock=lambda: float(next(ticks)), words=say)
    bar.advance(2)
    assert "2/2件" in stream.getvalue() and "残り" in stream.getvalue()
    assert "ETA" not in stream.getvalue()


def test_an_archive_refusal_is_english_as_a_string_and_worded_for_a_reader() -> None:
    error = ArchiveError("archive.members", count=7, cap=5)
    assert str(error) == "7 members, more than the cap of 5"
    assert error.text(Catalog("zh", ("grader",))) == "有 7 个成员，超过上限 5"
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, ArchiveError) and again.params == {"count": 7, "cap": 5}


def test_a_reason_inside_a_reason_is_worded_in_the_same_language() -> None:
    inner = Worded("archive.encrypted")
    outer = Worded("archive.member_failed", name="a/health.json", reason=inner)
    assert outer.text(Catalog("ja", ("grader",))) == (
        "アーカイブのメンバーa/health.jsonを取り出せません: 暗号化されています"
    )


def test_a_special_member_reads_as_english_and_is_reworded() -> None:
    link = Special("a/link", "symbolic link")
    assert link == "a/link (symbolic link)"
    catalog = Catalog("ko", ("grader",))

    def say(key: str, **params: object) -> str:
        return str(catalog.text(key, params))  # type: ignore[arg-type]

    assert link.words(say) == "a/link(심볼릭 링크)"
    assert pickle.loads(pickle.dumps(link)).kind == "symbolic link"
