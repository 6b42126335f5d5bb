"""The benchmark's class (`bench/honest_class.py`) is honest: every generated student gets
the verdict of the real run it came from and no integrity flag, shares no file's bytes and
no response id with any other student, and pairs with a classmate only where chance puts
more than 5 of their 22 timings within 0.5% of each other (as it can for two honest
runs of one lab: about one pair of students in 40,000 at 2,000 students)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench.honest_class import make_class
from checks import LAB
from checks.class_report import CLASS_REPORT
from grader.class_report.flags import integrity_flags
from grader.class_report.pairs import find_pairs
from grader.class_report.results import Student, student_from
from grader.grade import grade
from grader.rubric import load_lab_rubric
from tests.conftest import REAL

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


def test_no_two_students_share_a_file_or_a_response_id(graded: list[Student]) -> None:
    pairs = find_pairs(graded, CLASS_REPORT.pairs)
    assert [p for p in pairs if p.files or p.ids] == []


def test_timings_pair_two_students_only_by_rare_chance(graded: list[Student]) -> None:
    pairs = find_pairs(graded, CLASS_REPORT.pairs)
    assert len(pairs) <= 0.02 * COUNT * (COUNT - 1) / 2


def test_no_two_students_share_the_bytes_of_any_file(klass: list[Path]) -> None:
    for spec in LAB.artifacts:
        digests = {hashlib.sha256((s / spec.filename).read_bytes()).hexdigest() for s in klass}
        assert len(digests) == COUNT, spec.filename


def test_the_same_seed_makes_the_same_class(tmp_path: Path, klass: list[Path]) -> None:
    again = make_class(tmp_path, 2)
    for one, other in zip(again, klass, strict=False):
        for spec in LAB.artifacts:
            assert (one / spec.filename).read_bytes() == (other / spec.filename).read_bytes()
