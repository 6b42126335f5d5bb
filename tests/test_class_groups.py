"""Class-wide integrity: students who handed in one run are one group, honest ones none.

Each submission alone is checked against its own server log; a copy of a classmate's
run passes that test, so the class is compared as a whole (`grader.class_report.groups`,
with the lab's `PairSpec`): a shared measured file, a shared chatcmpl id, the run's
fingerprint (`checks.fingerprint`: kept however the copy is rescaled or re-encoded), or
more near-identical timings than chance gives a class of its size (and more than five).
Candidates are found through buckets of those values, never by comparing every pair, and
a run handed in by many is one finding, not their pairs.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import shutil
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from checks.class_report import CLASS_REPORT
from checks.fingerprint import Block, run_keys
from grader.class_report.groups import find_groups, sampled_near
from grader.class_report.integrity import evidence_of, integrity_cells, integrity_of
from grader.class_report.pairs import Compared, compared_of, near_needed_of
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


def groups_of(students: list[Student], spec=SPEC):
    return find_groups([compared_of(s, spec) for s in students if s.gradable], spec)[0]


@pytest.fixture(scope="module")
def honest_class(rubric) -> list[Student]:
    from checks import LAB
    from grader.engine.grade import grade

    return [
        student_of(f"{f.parent.name}/{f.name}", json.loads(grade(LAB, str(f), rubric).to_json()))
        for f in INDEPENDENT
    ]


def test_independent_real_runs_form_no_group(honest_class) -> None:
    assert groups_of(honest_class) == []


def test_independent_real_runs_share_few_near_identical_timings(honest_class) -> None:
    graded = [compared_of(s, SPEC) for s in honest_class]
    counts, scale = sampled_near(graded, SPEC.near)
    assert scale == 1.0 and max(counts) <= SPEC.max_near - 2  # a margin of 2 at least


def test_two_students_with_one_run_are_a_group_sharing_every_file_and_the_id(
    grade_folder, tmp_path
) -> None:
    shutil.copytree(REAL / "correct", tmp_path / "bob")
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, tmp_path / "bob", "bob")
    (group,) = groups_of([alice, bob])
    assert group.members == ("alice", "bob")
    assert set(group.files) == set(SPEC.files)
    assert len(group.ids) == 1 and group.ids[0].startswith("chatcmpl-")


def test_sharing_one_measured_file_is_enough(grade_folder, tmp_path) -> None:
    shutil.copytree(REAL / "role_chunk_counted", tmp_path / "bob")
    shutil.copy(REAL / "correct" / "cache.json", tmp_path / "bob" / "cache.json")
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, tmp_path / "bob", "bob")
    (group,) = groups_of([alice, bob])
    assert group.files == ("cache",) and group.ids == ()


def test_files_honest_runs_share_do_not_make_a_group(grade_folder) -> None:
    """health.json and the lab's sse.py are byte for byte the same in honest runs."""
    alice = student(grade_folder, REAL / "correct", "alice")
    bob = student(grade_folder, REAL / "no_close_on_cancel", "bob")
    assert [alice.digests[a] == bob.digests[a] for a in ("health", "sse_py")] == [True, True]
    assert groups_of([alice, bob]) == []


def test_classmates_sharing_one_run_rescaled_and_reencoded_are_one_group(
    grade_folder, tmp_path
) -> None:
    """Three students hand in one run, each with every time x1.012 from the last, new
    ids, re-indented files and the log's last line dropped: no file or id is shared, the
    run's fingerprint is."""
    from tests.test_run_fingerprint import forge

    students = [
        student(grade_folder, forge(REAL / "correct", tmp_path / f"s{n}", 1.012**n, n), f"s{n}")
        for n in range(1, 4)
    ]
    (group,) = groups_of(students)
    assert group.members == ("s1", "s2", "s3")
    assert group.files == () and group.ids == () and group.keys_shared >= SPEC.min_keys


def with_timings(sid: str, values: list[float]) -> Student:
    row = CheckRow("ttft.in_log", "t", "passed", 1, 1, data={"ttft_ms": values})
    return Student(sid, True, 1, 1, checks=(row,))


TTFT_ONLY = dataclasses.replace(SPEC, timings=(("ttft.in_log", "ttft_ms"),))


def test_more_than_five_near_identical_timings_make_a_group() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    a = with_timings("a", base)
    b = with_timings("b", [v * 1.004 for v in base[:6]] + [v * 1.2 for v in base[6:]])
    (group,) = groups_of([a, b], TTFT_ONLY)
    assert (group.near, group.compared, group.files) == (6, 8, ())


def test_five_near_identical_timings_are_not_a_group() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    a = with_timings("a", base)
    b = with_timings("b", [v * 1.004 for v in base[:5]] + [v * 1.2 for v in base[5:]])
    assert groups_of([a, b], TTFT_ONLY) == []


def test_each_student_of_a_group_is_told_its_group_not_every_classmate() -> None:
    base = [100.0 * (i + 1) for i in range(8)]
    students = [with_timings(sid, base) for sid in ("a", "b", "c")]
    spec = dataclasses.replace(CLASS_REPORT, pairs=TTFT_ONLY)
    found = integrity_of([evidence_of(s, spec) for s in students], spec)
    (group,) = found["groups"]
    assert group["members"] == ["a", "b", "c"]
    assert integrity_cells(found) == dict.fromkeys("abc", f"same_run:{group['id']}")


def test_a_student_who_could_not_be_graded_is_in_no_group() -> None:
    a = with_timings("a", [1.0] * 8)
    b = dataclasses.replace(with_timings("b", [1.0] * 8), gradable=False)
    assert groups_of([a, b], TTFT_ONLY) == []


# -- many copies of one run: one group, found through buckets ---------------------------


@cache
def _blocks_and_times() -> tuple[list[Block], list[float]]:
    from checks.fingerprint import blocks_of
    from checks.formats.llama_log import scan_log

    log = scan_log((REAL / "correct" / "server.log").read_text("utf-8"))
    lines = (REAL / "correct" / "chunks.jsonl").read_text("utf-8").splitlines()
    return blocks_of(log), [json.loads(line)["t_ms"] for line in lines]


def _rescaled_copy(sid: str, factor: float) -> Compared:
    """A student handing in the real run `correct` with every time x `factor` (the
    log's two decimals, chunks.jsonl's three), new bytes and a new id."""
    blocks, times = _blocks_and_times()
    scaled = [(pn, round(pm * factor, 2), en, round(em * factor, 2)) for pn, pm, en, em in blocks]
    keys = run_keys(scaled, [round(t * factor, 3) for t in times])
    files = tuple((name, f"{sid}-{name}") for name in SPEC.files)
    timings = tuple(round(pm * factor, 2) for _, pm, _, _ in blocks)
    return Compared(sid, files, (f"chatcmpl-{sid}",), timings, tuple(sorted(keys)))


def test_eight_students_sharing_one_run_each_rescaled_1_2_percent_apart_are_one_group() -> None:
    students = [_rescaled_copy(f"s{n}", 1.012**n) for n in range(8)]
    (group,), _ = find_groups(students, SPEC)
    assert len(group.members) == 8


def test_a_thousand_copies_of_one_run_are_one_group_among_honest_students() -> None:
    copies = [_rescaled_copy(f"c{n:04d}", 0.6 * 1.012 ** (n % 90) + n * 1e-4) for n in range(1_000)]
    honest = _pod_class(500)
    groups, _ = find_groups([*copies, *honest], SPEC)
    assert [len(g.members) for g in groups] == [1_000]
    assert groups[0].id == "g1" and groups[0].keys_shared >= SPEC.min_keys


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


def test_a_large_honest_class_makes_no_group_of_its_near_timings() -> None:
    """1,500 honest students: some 1.1 million pairs, of which chance brings dozens
    within 0.5 % at six of 22 timings (the old fixed threshold listed them)."""
    students = _pod_class(1_500)
    found, needed = find_groups(students, SPEC)
    assert found == [] and needed > SPEC.max_near + 1


def test_a_run_handed_in_again_is_found_in_a_large_class() -> None:
    students = _pod_class(1_500)
    copied = [_copy(students[3], "z-copy", 22)]
    found, _ = find_groups([*students, *copied], SPEC)
    assert [(g.members, g.near) for g in found] == [(("s00003", "z-copy"), 22)]


def test_the_near_timings_needed_rise_with_the_class() -> None:
    students = _pod_class(2_000)
    needed = [find_groups(students[:size], SPEC)[1] for size in (20, 200, 2_000)]
    assert needed[0] == SPEC.max_near + 1  # too few pairs to read chance from: the floor
    assert needed[0] <= needed[1] < needed[2]


def test_the_tail_of_chance_is_the_geometric_series_of_the_class_own_counts() -> None:
    """160 students, 12,720 pairs: 10,240 at none, 2,000 at one, 400 at two, 80 at three
    (too few to measure): the ratio is 0.2 (the largest of 0.195 and 0.2), so 400 * 0.2 /
    0.8 = 100 pairs are expected at three or more, 20 at four, ... 0.032 at eight, the
    first count chance is expected to give fewer than 0.05 pairs of."""
    counts = Counter({0: 10_240, 1: 2_000, 2: 400, 3: 80})
    assert near_needed_of(counts, 1.0, 22, SPEC) == 8
    assert near_needed_of(counts, 1.0, 7, SPEC) == 8  # no count up to 7 does: no link


def test_a_sample_of_the_pairs_stands_for_the_whole_class() -> None:
    """The same counts from a sample of a tenth of the class's pairs: ten times the tail,
    1,000 pairs expected at three or more, ... 0.0128 at ten."""
    counts = Counter({0: 10_240, 1: 2_000, 2: 400, 3: 80})
    assert near_needed_of(counts, 10.0, 22, SPEC) == 10


def test_timings_every_student_shares_make_no_pair() -> None:
    """More pairs at one near timing than at none: chance explains any number."""
    counts = Counter({0: 135, 1: 300})
    assert near_needed_of(counts, 1.0, 22, SPEC) == 23  # 435 pairs: 135 at none, 300 at one


# -- computed once: the batch stores the groups, the report reads them -------------------


def test_the_report_reads_the_groups_the_batch_stored_for_its_results(tmp_path) -> None:
    from grader.class_report.page import load_class
    from grader.cli.batch import main as batch_main

    classroom = tmp_path / "class"
    for name in ("alice", "dave"):
        shutil.copytree(REAL / "correct", classroom / name)
    shutil.copytree(REAL / "no_close_on_cancel", classroom / "bob")
    out = tmp_path / "out"
    batch_main([str(classroom), "--out", str(out), "--jobs", "1"])
    stored = load_class(out).integrity
    assert stored is not None and [g["members"] for g in stored["groups"]] == [["alice", "dave"]]


def test_the_report_finds_the_groups_itself_when_the_results_changed_since(tmp_path) -> None:
    from grader.class_report.page import load_class
    from grader.cli.batch import main as batch_main

    classroom = tmp_path / "class"
    shutil.copytree(REAL / "correct", classroom / "alice")
    shutil.copytree(REAL / "no_close_on_cancel", classroom / "bob")
    out = tmp_path / "out"
    batch_main([str(classroom), "--out", str(out), "--jobs", "1"])
    (out / "results" / "bob.json").unlink()
    assert load_class(out).integrity is None


def test_a_large_class_is_never_compared_pair_by_pair(monkeypatch) -> None:
    """3,000 students (4.5 million pairs): the timings of at most the sample's pairs and a
    few per student are compared."""
    import grader.class_report.groups as groups

    calls = 0
    near = groups._near

    def counted(a, b, within):
        nonlocal calls
        calls += 1
        return near(a, b, within)

    monkeypatch.setattr(groups, "_near", counted)
    students = [*_pod_class(2_000), *(_rescaled_copy(f"c{n:04d}", 1.012**n) for n in range(1_000))]
    found, _ = find_groups(students, SPEC)
    assert [len(g.members) for g in found] == [1_000]
    assert calls <= groups.SAMPLE_PAIRS + 10 * len(students)
