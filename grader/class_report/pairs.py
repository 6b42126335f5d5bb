"""What the class's integrity comparison reads of each student (`Compared`), and how many
near timings chance gives a class (`near_needed_of`); the groups themselves are
`grader.class_report.groups`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from grader.class_report.results import CheckRow, Student
from grader.class_report.spec import PairSpec


def _numbers(value: object) -> list[float | None]:
    items = value if isinstance(value, list) else [value]
    return [
        float(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        else None
        for v in items
    ]


def timings_of(student: Student, spec: PairSpec) -> list[float | None]:
    """The student's recorded timings, in the spec's order (None where absent)."""
    rows: dict[str, CheckRow] = {}
    for row in student.checks:  # each check found once, not searched for each timing
        rows.setdefault(row.id, row)  # the first of an id, as `Student.check` finds it
    out: list[float | None] = []
    for check_id, key in spec.timings:
        found = rows.get(check_id)
        out.extend(_numbers(found.data.get(key)) if found is not None else [None])
    return out


def _ids_of(student: Student, spec: PairSpec) -> set[str]:
    return _strings_of(student, spec.ids)


def _strings_of(student: Student, where: Sequence[tuple[str, str]]) -> set[str]:
    """The strings a student's checks recorded at (check id, data key) `where`."""
    found: set[str] = set()
    for check_id, key in where:
        row = student.check(check_id)
        value = row.data.get(key) if row is not None else None
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                found.add(item)
    return found


FIT_PAIRS = 100
"""The fewest pairs a count of near timings needs for the class to measure how often
chance gives it (`near_needed_of`): a hundred pairs tell their share to about a tenth."""


def near_needed_of(pairs_at: Counter[int], scale: float, positions: int, spec: PairSpec) -> int:
    """The fewest near-identical timings that make two students of this class one run:
    more than `spec.max_near`, and so many that the class's honest pairs are expected to
    show at most `spec.chance` such pairs by chance; `positions + 1` (timings make no
    link) when no count does.

    `pairs_at` holds how many of the pairs looked at have each count of near timings
    (`grader.class_report.groups.sampled_near`: every pair of a small class, a fixed
    sample of a large one), each standing for `scale` pairs of the class. In an honest
    class the pairs at a count fall geometrically with it, each count about five times
    rarer than the one before (a class of 1,000 made by `bench/honest_class.py`: 392,450
    pairs at 0, 86,207, 17,059, 3,208, 489, 73 and 14 at 6). So the counts from 0 up that
    have at least `FIT_PAIRS` pairs looked at give the ratio, the largest of their ratios
    (the heavier tail, the fewer honest students named), and the tail past them is that
    geometric series, scaled to the whole class. This follows the class: students on pods
    alike in speed share more near timings, and the threshold rises with them. A run
    handed in twice is near at nearly every position, far past the threshold of any class.
    """
    floor = spec.max_near + 1
    measured = 0  # the counts 0 .. measured - 1 each have FIT_PAIRS pairs or more
    while pairs_at[measured] >= FIT_PAIRS:
        measured += 1
    if measured < 2:  # a small class: too few pairs to read chance from, and few to fear
        return floor
    ratio = max(pairs_at[k + 1] / pairs_at[k] for k in range(measured - 1))
    if ratio >= 1:  # every student near every other: timings tell nothing here
        return positions + 1
    last = measured - 1
    expected = pairs_at[last] * scale * ratio / (1 - ratio)  # pairs at last + 1 or more
    needed = last + 1
    while expected > spec.chance and needed <= positions:
        expected *= ratio
        needed += 1
    return max(floor, needed)


@dataclass(frozen=True)
class Compared:
    """What `grader.class_report.groups.find_groups` compares of one graded student: the
    sha256 of each of the spec's files it has, its identifiers, its timings and its run's
    fingerprint keys. A few values, not the whole `Student`:
    a batch's worker makes it where the result is written, and only this travels to the
    batch (`grader.class_report.integrity.Evidence`)."""

    id: str
    files: tuple[tuple[str, str], ...]  # (artifact name, sha256), in the spec's order
    ids: tuple[str, ...]  # sorted
    timings: tuple[float | None, ...]  # `timings_of`
    keys: tuple[str, ...] = ()  # the run's fingerprint keys (`PairSpec.keys`), sorted


def compared_of(student: Student, spec: PairSpec) -> Compared:
    """What `find_groups` compares of a graded student."""
    files = tuple((name, sha) for name in spec.files if (sha := student.digests.get(name)))
    return Compared(
        student.id,
        files,
        tuple(sorted(_ids_of(student, spec))),
        tuple(timings_of(student, spec)),
        tuple(sorted(_strings_of(student, spec.keys))),
    )


def positions_of(graded: Sequence[Compared]) -> int:
    """How many timings the students are compared at (the most any of them has)."""
    return max((len(one.timings) for one in graded), default=0)
