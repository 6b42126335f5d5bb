"""Class-wide integrity: pairs of students whose submissions are one run handed in twice.

Each submission is checked alone against its own server log; a copy of a classmate's
run passes that test, so the class is compared as a whole. The evidence is the lab's
(`PairSpec`): a file no two honest runs share byte for byte, an identifier unique to a
run, or more timings near-identical than chance gives a class of its size. A pair is a
reason to look, with its evidence, not a verdict; each of the two is told who the other
is.

Linear in the class for shared files and ids (buckets by value); for timings, one sorted
sweep per timing position, so only near neighbours are ever compared.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from grader.class_report.results import CheckRow, Student
from grader.class_report.spec import PairSpec


@dataclass(frozen=True)
class Pair:
    """Two students and what they share: files (artifact names), identifiers, and how
    many of how many compared timings are near-identical."""

    a: str
    b: str
    files: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    near: int = 0
    compared: int = 0
    by_timings: bool = False  # its near timings alone make it a pair (`near_needed`)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "files": list(self.files),
            "ids": list(self.ids),
            "near_timings": self.near,
            "compared_timings": self.compared,
        }


def _numbers(value: Any) -> list[float | None]:
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
    found: set[str] = set()
    for check_id, key in spec.ids:
        row = student.check(check_id)
        value = row.data.get(key) if row is not None else None
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                found.add(item)
    return found


def _near_counts(vectors: Sequence[Sequence[float | None]], near: float) -> Counter[int]:
    """Per pair of students, at how many positions their timings are within `near`; the
    pair of indexes `a < b` in `vectors` is the key `a * len(vectors) + b` (`pair_key`).

    An honest class has thousands of near pairs per position (chance puts a dozen
    classmates within 0.5% of each student), hundreds of thousands in a class of 2,000,
    so each position's pairs are made into one list of keys in one loop and counted by
    one `Counter.update`. A key is one int (`pair_key`; `unpair` reads it), not a tuple:
    no tuple made, hashed and kept per pair."""
    counts: Counter[int] = Counter()
    size = len(vectors)
    width = max((len(v) for v in vectors), default=0)
    for position in range(width):
        column = sorted(
            (v[position], number)
            for number, v in enumerate(vectors)
            if position < len(v) and v[position] is not None and v[position] > 0
        )
        values = [value for value, _ in column]
        numbers = [number for _, number in column]
        keys: list[int] = []
        last = len(values)
        for i, value in enumerate(values):
            end = i + 1
            while end < last and not values[end] - value > near * values[end]:
                end += 1
            own = numbers[i]
            for other in numbers[i + 1 : end]:  # `pair_key`, the smaller index first
                keys.append(other * size + own if other < own else own * size + other)
        counts.update(keys)
    return counts


FIT_PAIRS = 100
"""The fewest pairs a count of near timings needs for the class to measure how often
chance gives it (`near_needed`): a hundred pairs tell their share to about a tenth."""


def near_needed(near: Counter[int], size: int, positions: int, spec: PairSpec) -> int:
    """The fewest near-identical timings that make two students of this class a pair:
    more than `spec.max_near`, and so many that the class's honest pairs are expected to
    show at most `spec.chance` such pairs by chance; `positions + 1` (timings make no
    pair) when no count does.

    How often chance gives each count is read off the class itself: `near` holds every
    pair's count (those with none are the rest of the size * (size - 1) / 2 pairs). In an
    honest class the pairs at a count fall geometrically with it, each count about five
    times rarer than the one before (a class of 1,000 made by `bench/honest_class.py`:
    392,450 pairs at 0, 86,207, 17,059, 3,208, 489, 73 and 14 at 6). So the counts from 0
    up that the class has at least `FIT_PAIRS` pairs of give the ratio, the largest of
    their ratios (the heavier tail, the fewer honest students named), and the tail past
    them is that geometric series. This follows the class: students on pods alike in
    speed share more near timings, and the threshold rises with them. A run handed in
    twice is near at nearly every position, far past the threshold of any class.
    """
    floor = spec.max_near + 1
    pairs_at = Counter(near.values())
    pairs_at[0] = size * (size - 1) // 2 - len(near)
    measured = 0  # the counts 0 .. measured - 1 each have FIT_PAIRS pairs or more
    while pairs_at[measured] >= FIT_PAIRS:
        measured += 1
    if measured < 2:  # a small class: too few pairs to read chance from, and few to fear
        return floor
    ratio = max(pairs_at[k + 1] / pairs_at[k] for k in range(measured - 1))
    if ratio >= 1:  # every student near every other: timings tell nothing here
        return positions + 1
    last = measured - 1
    expected = pairs_at[last] * ratio / (1 - ratio)  # pairs at last + 1 or more
    needed = last + 1
    while expected > spec.chance and needed <= positions:
        expected *= ratio
        needed += 1
    return max(floor, needed)


def pair_key(a: int, b: int, size: int) -> int:
    """The key of the pair of indexes `a < b` among `size` students in `_near_counts`
    (its loop writes the same formula inline: a call per pair was its cost)."""
    return a * size + b


def unpair(key: int, size: int) -> tuple[int, int]:
    """The pair of indexes `pair_key` made `key` of."""
    return divmod(key, size)  # type: ignore[return-value]


@dataclass(frozen=True)
class Compared:
    """What `find_pairs` compares of one graded student: the sha256 of each of the spec's
    files it has, its identifiers and its timings. A few values, not the whole `Student`:
    a batch's worker makes it where the result is written, and only this travels to the
    batch (`grader.class_report.integrity.Evidence`)."""

    id: str
    files: tuple[tuple[str, str], ...]  # (artifact name, sha256), in the spec's order
    ids: tuple[str, ...]  # sorted
    timings: tuple[float | None, ...]  # `timings_of`


def compared_of(student: Student, spec: PairSpec) -> Compared:
    """What `find_pairs` compares of a graded student."""
    files = tuple((name, sha) for name in spec.files if (sha := student.digests.get(name)))
    return Compared(
        student.id, files, tuple(sorted(_ids_of(student, spec))), tuple(timings_of(student, spec))
    )


def find_pairs(students: Sequence[Student], spec: PairSpec | None) -> list[Pair]:
    """Every pair of graded students that share a file, an id, or too many timings,
    sorted by the pair's ids."""
    if spec is None:
        return []
    return pairs_and_needed([compared_of(s, spec) for s in students if s.gradable], spec)[0]


def positions_of(graded: Sequence[Compared]) -> int:
    """How many timings the students are compared at (the most any of them has)."""
    return max((len(one.timings) for one in graded), default=0)


def pairs_and_needed(graded: Sequence[Compared], spec: PairSpec) -> tuple[list[Pair], int]:
    """`find_pairs` of the graded students, as `compared_of` gives them, and how many
    near timings made a pair in this class (`near_needed`)."""
    shared_files: dict[tuple[str, str], set[str]] = defaultdict(set)
    shared_ids: dict[tuple[str, str], set[str]] = defaultdict(set)
    buckets: dict[tuple[str, str], list[str]] = defaultdict(list)
    for student in graded:
        for name, sha in student.files:
            buckets[("file", name + "\0" + sha)].append(student.id)
        for ident in student.ids:
            buckets[("id", ident)].append(student.id)
    for (kind, value), members in buckets.items():
        for a, b in combinations(sorted(set(members)), 2):
            target = shared_files if kind == "file" else shared_ids
            target[(a, b)].add(value.split("\0")[0] if kind == "file" else value)
    vectors = {s.id: s.timings for s in graded}
    names = sorted(vectors)  # a pair (a, b) of names, a < b, is (number[a], number[b])
    number = {name: index for index, name in enumerate(names)}
    size = len(names)
    near = _near_counts([vectors[name] for name in names], spec.near)
    needed = near_needed(near, size, positions_of(graded), spec)
    many = {unpair(key, size) for key, n in near.items() if n >= needed}
    keys = set(shared_files) | set(shared_ids) | {(names[a], names[b]) for a, b in many}
    pairs = []
    for a, b in sorted(keys):
        compared = sum(
            x is not None and y is not None for x, y in zip(vectors[a], vectors[b], strict=False)
        )
        count = near.get(pair_key(number[a], number[b], size), 0)
        pairs.append(
            Pair(
                a,
                b,
                tuple(sorted(shared_files.get((a, b), ()))),
                tuple(sorted(shared_ids.get((a, b), ()))),
                count,
                compared,
                count >= needed,
            )
        )
    return pairs, needed


def partners(pairs: Iterable[Pair]) -> dict[str, list[Pair]]:
    """Student id -> the pairs the student is in."""
    out: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        out[pair.a].append(pair)
        out[pair.b].append(pair)
    return dict(out)
