"""Class-wide integrity: two students who handed in one run are found, honest ones are not.

Each submission alone is checked against its own server log; a copy of a classmate's
run passes that test, so the class is compared as a whole (`grader.class_report.pairs`,
with the lab's `PairSpec`): a shared measured file, a shared chatcmpl id, or more
near-identical timings than chance gives a class of its size (and more than five).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from checks.class_report import CLASS_REPORT
from grader.class_report.pairs import Compared, find_pairs, near_needed, pairs_and_needed, partners
from grader.class_report.results import CheckRow, Student, student_of
from tests.conftest import REAL, SAMPLES

SPEC = CLASS_REPORT.pairs
INDEPENDENT = [
    *(REAL / p.name for p in sorted(REAL.iterdir()) if p.is_dir()),
    *(
        p
        for p in sorted(SAMPLES.iterdir())
        if p.is_dir() and p.name not in ("derived", "hostile", "fabricated")
    ),
]


def student(grade_folder, folder: Path, sid: str) -> Student:
    return student_of(sid, json.loads(grade_folder(folder).to_json()))


@pytest.fixture(scope="module")
def honest_class(rubric) -> list[Student]:
    from checks import LAB
    from grader.grade import grade

    return [
        student_of(f"{f.parent.name}/{f.name}", json.loads(grade(LAB, str(f), rubric).to_json()))
        for f in INDEPENDENT
    ]


def test_independent_real_runs_make_no_pair(honest_class) -> None:
    assert find_pairs(honest_class, SPEC) == []


def test_independent_real_runs_share_few_near_identical_timings(honest_class) -> None:
    from grader.class_report.pairs import _near_counts, timings_of

    counts = _near_counts([timings_of(s, SPEC) for s in honest_class], SPEC.near)
    assert max(counts.values(), default=0) <= SPEC.max_near - 2  # a margin of 2 at least


def test_near_timings_are_counted_once_per_pair_and_position_whichever_is_larger() -> None:
    from grader.class_report.pairs import _near_counts, pair_key

    vectors = [[1.0, 2.0, None], [1.004, 2.0, 3.0], [5.0, 2.0, 2.999], [0.999, 9.0, 0.0]]
    expected = {(0, 1): 2, (0, 2): 1, (1, 2): 2, (0, 3): 1, (1, 3): 1}
    assert _near_counts(vectors, 0.005) == {pair_key(a, b, 4): n for (a, b), n in expected.items()}


def test_two_students_with_one_run_are_a_pair_sharing_every_file_and_the_id(
    grade_folder, tmp_path
) -> None:
    shutil.copytree(REAL / "correct", tmp_path / "bob")
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, tmp_path / "bob", "bob")
    (pair,) = find_pairs([alice, bob], SPEC)
    assert (pair.a, pair.b) == ("alice", "bob")
    assert set(pair.files) == set(SPEC.files)
    assert len(pair.ids) == 1 and pair.ids[0].startswith("chatcmpl-")


def test_sharing_one_measured_file_is_enough(grade_folder, tmp_path) -> None:
    shutil.copytree(REAL / "role_chunk_counted", tmp_path / "bob")
    shutil.copy(REAL / "correct" / "cache.json", tmp_path / "bob" / "cache.json")
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, tmp_path / "bob", "bob")
    (pair,) = find_pairs([alice, bob], SPEC)
    assert pair.files == ("cache",) and pair.ids == ()


def test_files_honest_runs_share_do_not_make_a_pair(grade_folder) -> None:
    """health.json and the lab's sse.py are byte for byte the same in honest runs."""
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, REAL / "no_close_on_cancel", "bob")
    assert [alice.digests[a] == bob.digests[a] for a in ("health", "sse_py")] == [True, True]
    assert find_pairs([alice, bob], SPEC) == []


def with_timings(sid: str, values: list[float]) -> Student:
    row = CheckRow("ttft.in_log", "t", "passed", 1, 1, data={"ttft_ms": values})
    return Student(sid, True, 1, 1, checks=(row,))


def test_more_than_five_near_identical_timings_make_a_pair() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    a = with_timings("a", base)
    b = with_timings("b", [v * 1.004 for v in base[:6]] + [v * 1.2 for v in base[6:]])
    (pair,) = find_pairs([a, b], dataclasses.replace(SPEC, timings=(("ttft.in_log", "ttft_ms"),)))
    assert (pair.near, pair.compared, pair.files) == (6, 8, ())


def test_five_near_identical_timings_are_not_a_pair() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    a = with_timings("a", base)
    b = with_timings("b", [v * 1.004 for v in base[:5]] + [v * 1.2 for v in base[5:]])
    spec = dataclasses.replace(SPEC, timings=(("ttft.in_log", "ttft_ms"),))
    assert find_pairs([a, b], spec) == []


def test_each_student_of_a_pair_is_told_who_the_other_is() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    students = [with_timings(sid, base) for sid in ("a", "b", "c")]
    spec = dataclasses.replace(SPEC, timings=(("ttft.in_log", "ttft_ms"),))
    found = partners(find_pairs(students, spec))
    assert sorted((p.a, p.b) for p in found["b"]) == [("a", "b"), ("b", "c")]


def test_a_student_who_could_not_be_graded_is_in_no_pair() -> None:
    a = with_timings("a", [1.0] * 8)
    b = dataclasses.replace(with_timings("b", [1.0] * 8), gradable=False)
    spec = dataclasses.replace(SPEC, timings=(("ttft.in_log", "ttft_ms"),))
    assert find_pairs([a, b], spec) == []


# -- near timings in a large class: what chance gives is read off the class itself -------


def _pod_class(size: int, seed: int = 7) -> list[Compared]:
    """`size` honest students as `bench/honest_class.py` models them, without grading:
    22 timings of the real run, each scaled by the student's pod (prompt and decoding
    apart, [0.7, 1.7]) and by its own moment ([0.85, 1.18]), log-uniform."""
    rng = random.Random(seed)
    base = [200.0 + 97.0 * i for i in range(22)]

    def factor(low: float, high: float) -> float:
        return math.exp(rng.uniform(math.log(low), math.log(high)))

    students = []
    for number in range(size):
        pod = (factor(0.7, 1.7), factor(0.7, 1.7))
        timings = tuple(v * pod[i % 2] * factor(0.85, 1.18) for i, v in enumerate(base))
        students.append(Compared(f"s{number:05d}", (), (), timings))
    return students


def _copy(of: Compared, sid: str, near: int) -> Compared:
    """A run handed in again as `sid`: its first `near` timings within 0.2 %, the rest
    redone (20 % off)."""
    timings = tuple(v * (1.002 if i < near else 1.2) for i, v in enumerate(of.timings))  # type: ignore[operator]
    return Compared(sid, (), (), timings)


def test_a_large_honest_class_makes_no_pair_of_its_near_timings() -> None:
    """1,500 honest students: some 1.1 million pairs, of which chance brings dozens
    within 0.5 % at six of 22 timings (the old fixed threshold listed them)."""
    students = _pod_class(1_500)
    found, needed = pairs_and_needed(students, SPEC)
    assert found == [] and needed > SPEC.max_near + 1


def test_a_run_handed_in_again_is_found_in_a_large_class() -> None:
    students = _pod_class(1_500)
    copied = [_copy(students[3], "z-copy", 22), _copy(students[9], "z-half", 15)]
    found, needed = pairs_and_needed([*students, *copied], SPEC)
    assert [(p.a, p.b, p.near, p.by_timings) for p in found] == [
        ("s00003", "z-copy", 22, True),
        ("s00009", "z-half", 15, True),
    ]
    assert needed <= 15


def test_the_near_timings_needed_rise_with_the_class() -> None:
    students = _pod_class(2_000)
    needed = [pairs_and_needed(students[:size], SPEC)[1] for size in (20, 200, 2_000)]
    assert needed[0] == SPEC.max_near + 1  # too few pairs to read chance from: the floor
    assert needed[0] <= needed[1] < needed[2]


def test_the_tail_of_chance_is_the_geometric_series_of_the_class_own_counts() -> None:
    """160 students, 12,720 pairs: 10,240 at none, 2,000 at one, 400 at two, 80 at three
    (too few to measure): the ratio is 0.2 (the largest of 0.195 and 0.2), so 400 * 0.2 /
    0.8 = 100 pairs are expected at three or more, 20 at four, ... 0.032 at eight, the
    first count chance is expected to give fewer than 0.05 pairs of."""
    counts = Counter(dict.fromkeys(range(2_000), 1))
    counts.update(dict.fromkeys(range(2_000, 2_400), 2))
    counts.update(dict.fromkeys(range(2_400, 2_480), 3))
    assert near_needed(counts, 160, 22, SPEC) == 8
    assert near_needed(counts, 160, 7, SPEC) == 8  # no count up to 7 does: timings make no pair


def test_timings_every_student_shares_make_no_pair() -> None:
    """More pairs at one near timing than at none: chance explains any number."""
    counts = Counter(dict.fromkeys(range(300), 1))
    assert near_needed(counts, 30, 22, SPEC) == 23  # 435 pairs: 135 at none, 300 at one
