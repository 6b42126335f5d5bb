"""What a campaign fuzzes (`Target`: a lab, its seeds, its mutations) and its cases.

A case is a function of (campaign seed, case index) and nothing else: the same pair gives
the same mutant, so one case can be replayed alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from grader.engine.lab import Lab
from grader.fuzzing.files import State, load_seeds
from grader.fuzzing.mutations import Mutation, byte_flip


@dataclass(frozen=True)
class Target:
    """A lab to fuzz: its seed submissions, the kind of each of its files (`kind_of`), how
    often each kind is chosen (`weights`), and the mutations (the generic ones and the
    lab's own, in order). `salt` and the seed name the random generator of each case."""

    lab: Lab
    seeds_root: Path
    kind_of: Callable[[str], str]
    weights: Mapping[str, float]
    mutations: Sequence[Mutation]
    skip: tuple[str, ...] = ()
    salt: str = "fuzz"
    replay: str = "python scripts/fuzz.py"
    """The command that replays a case (`--seed S --replay INDEX` are added)."""

    @cached_property
    def filenames(self) -> tuple[str, ...]:
        return tuple(spec.filename for spec in self.lab.artifacts)

    def seeds(self) -> dict[str, dict[str, State]]:
        return load_seeds(self.seeds_root, self.filenames, self.skip)


@dataclass(frozen=True)
class Case:
    index: int
    seed_name: str
    files: dict[str, State]
    mutations: tuple[str, ...]


W = TypeVar("W")


def _weighted(rng: random.Random, items: list[W], weights: list[float]) -> W:
    return rng.choices(items, weights=weights, k=1)[0]


def make_case(target: Target, seeds: dict[str, dict[str, State]], seed: int, index: int) -> Case:
    """The mutant number `index` of campaign `seed`: a function of both and nothing else."""
    rng = random.Random(f"{target.salt}:{seed}:{index}")
    seed_name = rng.choice(sorted(seeds))
    files = dict(seeds[seed_name])
    names = list(target.filenames)
    name_weights = [target.weights[target.kind_of(n)] for n in names]
    applied: list[str] = []
    for _ in range(rng.randint(1, 3)):
        name = _weighted(rng, names, name_weights)
        state = files[name]
        kind = target.kind_of(name)
        usable = [
            m
            for m in target.mutations
            if (kind in m.kinds or "any" in m.kinds) and (isinstance(state, bytes) or m.whole_file)
        ]
        chosen: Mutation = _weighted(rng, usable, [m.weight for m in usable])
        data = state if isinstance(state, bytes) else b""
        try:
            new, detail = chosen.func(rng, data)
        except Exception as exc:  # a fuzzer bug must not stop a campaign; still deterministic
            new, flip = byte_flip(rng, data)
            detail = f"mutation failed ({type(exc).__name__}: {exc}); byte flip instead: {flip}"
        files[name] = new
        applied.append(f"{name}: {chosen.name}" + (f" ({detail})" if detail else ""))
    return Case(index, seed_name, files, tuple(applied))
