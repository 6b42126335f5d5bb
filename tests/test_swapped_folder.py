"""A folder swapped for a symbolic link while it is graded is never followed (issue 26):
the submission's files are read relative to one descriptor of its folder, taken once,
and the folders below the one named are opened without following a link."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from checks import LAB
from grader.engine import grade as grade_module
from grader.engine.grade import NotGradable, grade
from grader.engine.rubric import load_lab_rubric
from grader.reading import loading
from grader.reading.files import open_folder
from tests.conftest import CORRECT, REAL

pytestmark = pytest.mark.skipif(
    os.open not in os.supports_dir_fd, reason="needs descriptors of folders (POSIX)"
)


def digests(result) -> dict[str, str | None]:
    return {a.name: a.sha256 for a in result.artifacts}


def swap(folder: Path, target: Path) -> None:
    os.rename(folder, folder.parent.parent / "moved")
    os.symlink(target, folder)


def test_a_folder_swapped_for_a_link_mid_grade_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submission = tmp_path / "sub"
    shutil.copytree(CORRECT, submission / "llm")
    outside = tmp_path / "outside"
    shutil.copytree(REAL / "role_chunk_counted", outside)
    rubric = load_lab_rubric(LAB)
    honest = digests(grade(LAB, str(submission), rubric))

    real_read_file = loading.read_file
    swapped: list[bool] = []

    def swapping(*args, **kwargs):  # after the first file: llm/ becomes a link outside
        got = real_read_file(*args, **kwargs)
        if not swapped:
            swapped.append(True)
            # another process's doing, as the attack is: a thread is not confined
            swapper = threading.Thread(target=swap, args=(submission / "llm", outside))
            swapper.start()
            swapper.join()
        return got

    monkeypatch.setattr(loading, "read_file", swapping)
    result = grade(LAB, str(submission), rubric)
    assert swapped and (submission / "llm").is_symlink()
    assert digests(result) == honest  # every file from the folder that was opened
    assert not result.grader_error


def test_a_folder_below_swapped_for_a_link_before_reading_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submission = tmp_path / "sub"
    shutil.copytree(CORRECT, submission / "llm")
    real_find = grade_module.find_files

    def then_swap(*args, **kwargs):  # the search found llm/; then it becomes a link
        found = real_find(*args, **kwargs)
        shutil.move(submission / "llm", tmp_path / "moved")
        os.symlink(tmp_path / "moved", submission / "llm")
        return found

    monkeypatch.setattr(grade_module, "find_files", then_swap)
    with pytest.raises(NotGradable) as refused:
        grade(LAB, str(submission), load_lab_rubric(LAB))
    assert refused.value.problem.message_id == "engine.unreadable_folder"


def test_open_folder_follows_the_named_folder_but_no_link_below_it(tmp_path: Path) -> None:
    (tmp_path / "real" / "inner").mkdir(parents=True)
    os.symlink(tmp_path / "real", tmp_path / "named")  # what the user typed: followed
    fd = open_folder(str(tmp_path / "named"), ("inner",))
    assert fd is not None
    os.close(fd)
    os.symlink(tmp_path / "real" / "inner", tmp_path / "real" / "link")
    with pytest.raises(OSError):
        open_folder(str(tmp_path / "named"), ("link",))


def test_a_batch_students_folder_swapped_for_a_link_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the search as a folder, made a link before it is graded: the batch walks
    from its PATH without following it, and the row says the folder can't be read."""
    from grader.batch.run import run

    root = tmp_path / "class"
    shutil.copytree(CORRECT, root / "alice")
    outside = tmp_path / "outside"
    shutil.copytree(CORRECT, outside)
    real_grade = grade_module.grade

    def swapped_first(lab, folder, rubric, **kwargs):
        if Path(folder).name == "alice" and not Path(folder).is_symlink():
            os.rename(folder, tmp_path / "moved")
            os.symlink(outside, folder)
        return real_grade(lab, folder, rubric, **kwargs)

    monkeypatch.setattr(grade_module, "grade", swapped_first)
    report = run([str(root)], str(tmp_path / "out"), jobs=1)
    (row,) = report.rows
    assert not row.gradable and row.score is None
