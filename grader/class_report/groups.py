"""Class-wide integrity in linear time: the groups of students who handed in one run.

Each submission is checked alone against its own server log; a copy of a classmate's
run passes that test, so the class is compared as a whole. The evidence is the lab's
(`PairSpec`): a file no two honest runs share byte for byte, an identifier unique to a
run, the run's fingerprint keys (opaque strings the lab records: two runs sharing
`min_keys` of them are one run, however rescaled or re-encoded), or more timings
near-identical than chance gives a class of its size.

No pair of students is ever compared unless they already share something: every
student's evidence is put into buckets (a file's sha256, an id, a fingerprint key, a
timing band's cell on a logarithmic grid), and only the members of a bucket are compared,
each with the bucket's first member (a few more when that one is not theirs). Students
linked that way are one group: one finding with its members and evidence, however many
share the run (1,000 copies are one group, not 499,500 pairs). The work and the output
grow with the class, not its square.

How many near timings make a link is read off the class itself (`near_needed_of`), from a
fixed sample of its pairs (`SAMPLE_PAIRS`), not from all of them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.class_report.pairs import Compared, near_needed_of
from grader.class_report.spec import PairSpec

SAMPLE_PAIRS = 60_000
"""Pairs of students whose near timings measure what chance gives this class: a class of
up to 347 students has fewer pairs, all counted; a larger one a fixed, seeded sample."""
TIMING_BAND = 2
"""Timing positions in one bucket key: a copy's near-identical timings share every band."""
REPRESENTATIVES = 3
"""Members of a bucket each member is compared with, at most (the first, then the first
of those it did not match, ...): a bucket of 1,000 copies costs 999 comparisons."""


@dataclass(frozen=True)
class Group:
    """Students who handed in one run, and the evidence that links them: files shared
    byte for byte (artifact names), identifiers, the fewest fingerprint keys a member
    shares with the one it was linked to (of how many it has), and the most near
    timings of a link (of how many compared)."""

    id: str
    members: tuple[str, ...]
    files: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    keys_shared: int = 0
    keys: int = 0
    near: int = 0
    compared: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "members": list(self.members),
            "files": list(self.files),
            "ids": list(self.ids),
            "keys_shared": self.keys_shared,
            "keys": self.keys,
            "near_timings": self.near,
            "compared_timings": self.compared,
        }

    @classmethod
    def from_dict(cls, value: dict[str, Any]) -> Group:
        return cls(
            str(value["id"]),
            tuple(value["members"]),
            tuple(value.get("files", ())),
            tuple(value.get("ids", ())),
            int(value.get("keys_shared", 0)),
            int(value.get("keys", 0)),
            int(value.get("near_timings", 0)),
            int(value.get("compared_timings", 0)),
        )


def _near(a: Sequence[float | None], b: Sequence[float | None], near: float) -> tuple[int, int]:
    """At how many positions two students' timings are within `near` (relative to the
    larger), of how many both have."""
    hits = compared = 0
    for x, y in zip(a, b, strict=False):
        if x is None or y is None:
            continue
        compared += 1
        if x > 0 and y > 0 and abs(x - y) <= near * max(x, y):
            hits += 1
    return hits, compared


def sampled_near(graded: Sequence[Compared], near: float) -> tuple[Counter[int], float]:
    """How many sampled pairs have each count of near timings, and how many pairs of the
    class each sampled one stands for. All pairs when there are `SAMPLE_PAIRS` or fewer,
    else that many, drawn with a seed fixed by the class's size (same class, same answer)."""
    size = len(graded)
    total = size * (size - 1) // 2
    vectors = [one.timings for one in graded]
    counts: Counter[int] = Counter()
    if total <= SAMPLE_PAIRS:
        for a in range(size):
            for b in range(a + 1, size):
                counts[_near(vectors[a], vectors[b], near)[0]] += 1
        return counts, 1.0
    rng = random.Random(size)
    for _ in range(SAMPLE_PAIRS):
        a = rng.randrange(size)
        b = rng.randrange(size - 1)
        b += b >= a
        counts[_near(vectors[a], vectors[b], near)[0]] += 1
    return counts, total / SAMPLE_PAIRS


def _timing_tokens(timings: Sequence[float | None], near: float) -> list[tuple[int, ...]]:
    """The timing buckets of a student: each band of `TIMING_BAND` positions, its values'
    cells on a logarithmic grid twice `near` wide, on two grids half a cell apart (a tuple
    of ints: its first position, its grid, its cells)."""
    step = math.log1p(2 * near)
    tokens = []
    for start in range(0, len(timings) - TIMING_BAND + 1, TIMING_BAND):
        band = timings[start : start + TIMING_BAND]
        if any(v is None or not v > 0 for v in band):
            continue
        logs = [math.log(v) / step for v in band if v]
        tokens.append((start, 0, *(math.floor(x) for x in logs)))
        tokens.append((start, 1, *(math.floor(x + 0.5) for x in logs)))
    return tokens


def _put(buckets: dict[Any, Any], key: object, number: int) -> None:
    """Add student `number` to a bucket: a lone member is kept as its number, a list made
    only when a second one comes (most buckets of a class have one member)."""
    found = buckets.get(key)
    if found is None:
        buckets[key] = number
    elif isinstance(found, int):
        if found != number:
            buckets[key] = [found, number]
    elif found[-1] != number:
        found.append(number)


class _Links:
    """Union-find over the students, with what linked them."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))
        self.files: dict[int, set[str]] = {}
        self.ids: dict[int, set[str]] = {}
        self.keys: dict[int, tuple[int, int]] = {}  # a linked student -> (shared, of)
        self.near: dict[int, tuple[int, int]] = {}

    def root(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def find_groups(graded: Sequence[Compared], spec: PairSpec) -> tuple[list[Group], int]:
    """The groups of `graded` students who share one run, largest first (ids `g1`, `g2`,
    ...), and how many near timings made a link in this class (`near_needed_of`)."""
    order = sorted(range(len(graded)), key=lambda i: graded[i].id)
    students = [graded[i] for i in order]
    size = len(students)
    positions = max((len(one.timings) for one in students), default=0)
    if size > 1 and positions:
        histogram, scale = sampled_near(students, spec.near)
        needed = near_needed_of(histogram, scale, positions, spec)
    else:
        needed = max(spec.max_near + 1, positions + 1)
    # one dict of buckets per kind, keyed by the values themselves (no string made per
    # value): a file's (name, sha256), an id, a fingerprint key, a timing band's cells
    files: dict[Any, Any] = {}
    ids: dict[Any, Any] = {}
    keyed: dict[Any, Any] = {}
    timed: dict[Any, Any] = {}
    for number, one in enumerate(students):
        for pair in one.files:
            _put(files, pair, number)
        for ident in one.ids:
            _put(ids, ident, number)
        for key in one.keys:
            _put(keyed, key, number)
        if needed <= positions:
            for token in _timing_tokens(one.timings, spec.near):
                _put(timed, token, number)
    links = _Links(size)
    key_sets: dict[int, frozenset[str]] = {}
    verdicts: dict[tuple[int, int], bool] = {}

    def keys_of(i: int) -> frozenset[str]:
        found = key_sets.get(i)
        if found is None:
            found = key_sets[i] = frozenset(students[i].keys)
        return found

    def linked(kind: str, a: int, b: int) -> bool:
        pair = (a, b) if a < b else (b, a)
        seen = verdicts.get(pair)
        if seen is not None:
            return seen
        if kind == "k":
            shared = len(keys_of(a) & keys_of(b))
            result = shared >= spec.min_keys
            if result:
                of = min(len(keys_of(a)), len(keys_of(b)))
                for i in pair:
                    old = links.keys.get(i)
                    if old is None or shared < old[0]:
                        links.keys[i] = (shared, of)
        else:
            hits, compared = _near(students[a].timings, students[b].timings, spec.near)
            result = hits >= needed
            if result:
                for i in pair:
                    old = links.near.get(i)
                    if old is None or hits > old[0]:
                        links.near[i] = (hits, compared)
        verdicts[pair] = result
        return result

    for kind, buckets in (("f", files), ("i", ids), ("k", keyed), ("t", timed)):
        for token, members in buckets.items():
            if isinstance(members, int):
                continue
            if kind in "fi":  # the same file, the same id: one run, no more to ask
                value = token[0] if kind == "f" else token
                target = links.files if kind == "f" else links.ids
                for m in members:
                    target.setdefault(m, set()).add(value)
                    links.join(members[0], m)
            else:
                _link_bucket(kind, members, links, linked)
    return _groups(students, links), needed


def _link_bucket(
    kind: str, members: list[int], links: _Links, linked: Callable[[str, int, int], bool]
) -> None:
    """Join the members of a fingerprint or timing bucket that `linked` says are one run
    with the bucket's first member (then the first of those that were not, ...)."""
    left = members
    for _ in range(REPRESENTATIVES):
        first, rest = left[0], left[1:]
        missed = []
        for m in rest:
            if links.root(m) == links.root(first) or linked(kind, first, m):
                links.join(first, m)
            else:
                missed.append(m)
        if len(missed) < 2:
            break
        left = missed


def _groups(students: Sequence[Compared], links: _Links) -> list[Group]:
    members: dict[int, list[int]] = {}
    for i in range(len(students)):
        members.setdefault(links.root(i), []).append(i)
    found = []
    for group in members.values():
        if len(group) < 2:
            continue
        files = sorted({f for i in group for f in links.files.get(i, ())})
        ids = sorted({x for i in group for x in links.ids.get(i, ())})
        keyed = [links.keys[i] for i in group if i in links.keys]
        timed = [links.near[i] for i in group if i in links.near]
        keys_shared, keys = min(keyed) if keyed else (0, 0)
        near, compared = max(timed) if timed else (0, 0)
        found.append(
            (
                tuple(students[i].id for i in group),
                tuple(files),
                tuple(ids),
                keys_shared,
                keys,
                near,
                compared,
            )
        )
    found.sort(key=lambda g: (-len(g[0]), g[0]))
    return [Group(f"g{n}", *values) for n, values in enumerate(found, 1)]


def group_of(groups: Sequence[Group]) -> dict[str, str]:
    """Student id -> the id of its group."""
    return {sid: group.id for group in groups for sid in group.members}
