"""Hostile submissions built at run time (FIFOs, links, huge files) get their verdicts.

The committed hostile samples are graded by test_verdicts.py; these can't live in git.
Each is graded in a thread with a generous deadline so a hang fails the test instead of
stalling the suite; how fast each really is, is measured by `bench/`, not asserted here.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests import hostile_cases
from tests.conftest import CORRECT, ROOT, assert_verdict, check_of
from tests.verdicts import verdict


def graded_without_hanging(grade_folder, folder: Path):
    box: list[object] = []
    worker = threading.Thread(target=lambda: box.append(grade_folder(folder)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "grading hung"
    return box[0]


@pytest.mark.parametrize("name", sorted(hostile_cases.RUNTIME_CASES))
def test_runtime_hostile_case_gets_its_verdict(name: str, grade_folder, tmp_path: Path) -> None:
    _, mutation, must, may = hostile_cases.RUNTIME_CASES[name]
    # built from a capture that is no published sample: a copy of one is caught as such
    folder = hostile_cases.build(tmp_path / name, mutation, CORRECT)
    result = graded_without_hanging(grade_folder, folder)
    assert_verdict(result, verdict(must, may))
    for check_id in must:
        assert check_of(result, check_id).message  # a specific message, not just a status


def test_every_hostile_case_is_documented_in_the_readme() -> None:
    readme = (ROOT / "sample_submissions" / "hostile" / "README.md").read_text("utf-8")
    for name in [*hostile_cases.CASES, *hostile_cases.RUNTIME_CASES]:
        assert f"`{name}`" in readme
