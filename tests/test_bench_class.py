"""The benchmark's class (`bench/honest_class.py`) is no laundering tool: every student it
makes is known as the published run it came from, and a class of them is one group per
run; graded as the project's tests grade their own captures (with a registry that does
not know the bases), every student gets the verdict of its real base, shares no file's
bytes and no response id with any other, and raises no flag."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench.honest_class import copy_group, make_class
from checks import LAB
from checks.class_report import CLASS_REPORT
from grader.class_report.flags import integrity_flags
from grader.class_report.groups import find_groups
from grader.class_report.pairs import compared_of
from grader.class_report.results import Student, student_from
from grader.engine.grade import grade
from grader.engine.rubric import load_lab_rubric
from tests.conftest import REAL, check_of

COUNT = 15  # three students of each real capture


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_class(tmp_path_factory.mktemp("class"), COUNT)


@pytest.fixture(scope="module")
def graded(klass: list[Path]) -> list[Student]:
    rubric = load_lab_rubric(LAB, None)
    return [student_from(s.name, grade(LAB, str(s), rubric)) for s in klass]


def _not_passed(student: Student) -> list[str]:
    return [c.id for c in student.checks if c.status != "passed"]


def test_every_student_gets_the_verdict_of_the_run_it_came_from(graded: list[Student]) -> None:
    rubric = load_lab_rubric(LAB, None)
    bases = {
        base.name: [c.id for c in grade(LAB, str(base), rubric).checks if c.status != "passed"]
        for base in REAL.iterdir()
        if base.is_dir()
    }
    got = {s.id: _not_passed(s) for s in graded}
    assert got == {s.id: bases[s.id.rsplit("-", 1)[0]] for s in graded}


def test_no_student_is_flagged(graded: list[Student]) -> None:
    assert [(s.id, f) for s, f in integrity_flags(graded, CLASS_REPORT) if f] == []


def _groups(students: list[Student]):
    spec = CLASS_REPORT.pairs
    return find_groups([compared_of(s, spec) for s in students], spec)[0]


def test_no_two_students_share_a_file_or_a_response_id(graded: list[Student]) -> None:
    assert [g for g in _groups(graded) if g.files or g.ids] == []


def test_the_students_of_one_real_run_are_one_group_by_its_fingerprint(
    graded: list[Student],
) -> None:
    by_base: dict[str, set[str]] = {}
    for s in graded:
        by_base.setdefault(s.id.rsplit("-", 1)[0], set()).add(s.id)
    assert sorted(set(g.members) for g in _groups(graded)) == sorted(by_base.values())


def test_every_generated_student_is_known_as_the_published_run_it_came_from(
    full_run_registry, klass: list[Path]
) -> None:
    """A base that is one of the lab's reference captures is noted as that run (and the
    class report flags it strongly); any other is a published run, and fails."""
    rubric = load_lab_rubric(LAB, None)
    known = {"submission.original.reused_run", "submission.original.reference_run"}
    for folder in klass:
        check = check_of(grade(LAB, str(folder), rubric), "submission.original")
        assert check.message_id in known, folder.name


def test_copies_of_one_run_rescaled_1_2_percent_apart_are_one_group(tmp_path: Path) -> None:
    copies = copy_group(tmp_path, 6)
    rubric = load_lab_rubric(LAB, None)
    students = [student_from(c.name, grade(LAB, str(c), rubric)) for c in copies]
    assert [s.score for s in students] == [s.max_score for s in students]
    (group,) = _groups(students)
    assert len(group.members) == 6 and group.files == () and group.ids == ()


def test_no_two_students_share_the_bytes_of_any_file(klass: list[Path]) -> None:
    for spec in LAB.artifacts:
        digests = {hashlib.sha256((s / spec.filename).read_bytes()).hexdigest() for s in klass}
        assert len(digests) == COUNT, spec.filename


def test_the_same_seed_makes_the_same_class(tmp_path: Path, klass: list[Path]) -> None:
    again = make_class(tmp_path, 2)
    for one, other in zip(again, klass, strict=False):
        for spec in LAB.artifacts:
            assert (one / spec.filename).read_bytes() == (other / spec.filename).read_bytes()
