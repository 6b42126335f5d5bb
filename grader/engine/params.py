"""What a check's rubric parameters may be: one definition, used where checks are declared.

A check declares each threshold it reads beside its id, e.g.

    @check("cancel.slot_freed", reads=("cancel",), params={"max_idle_fraction": Number(0, 1)})

and the rubric validator (`grader.engine.rubric`) checks every rubric against those
declarations before anything is graded: a misspelt key, a string where a number
belongs, a number out of its range, NaN or infinity stops the grader with exit 2 naming
the key, instead of a check that errors for every student. Bounds are what makes sense
for the quantity (a fraction is in [0, 1]), not what this lab's captures show; those
margins are in the README.

Each spec says whether a value is acceptable (`accepts`) and describes itself in a
catalog's words (`describe`), so the error is in the instructor's language.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol is the type checkers' alone
    from collections.abc import Mapping
    from typing import Protocol, TypeAlias, TypeGuard

    from grader.words.i18n import Catalog
    from grader.words.problems import JSONValue, Param

    Settings: TypeAlias = "Mapping[str, JSONValue]"
    """A check's rubric entry as the runner reads it: `points`, `enabled`, `visibility`
    and the check's thresholds, each a TOML value its `ParamSpec` accepted."""

    class ParamSpec(Protocol):
        """A declared parameter: which values it accepts, and how to say so."""

        def accepts(self, value: object) -> bool: ...

        def describe(self, catalog: Catalog) -> str:
            """What it accepts, in the catalog's language: "a number from 0 to 1"."""
            ...


def _real_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Number:
    """A finite number (integer or decimal) from `low` to `high`, both included."""

    low: float
    high: float

    def accepts(self, value: object) -> bool:
        return _real_number(value) and self.low <= value <= self.high

    def describe(self, catalog: Catalog) -> str:
        return catalog.text("rubric.spec.number", {"low": self.low, "high": self.high}) or ""


@dataclass(frozen=True)
class Integer:
    """A whole number (a TOML integer, not `4.0`) from `low` to `high`, both included."""

    low: int
    high: int

    def accepts(self, value: object) -> bool:
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        return self.low <= value <= self.high

    def describe(self, catalog: Catalog) -> str:
        return catalog.text("rubric.spec.integer", {"low": self.low, "high": self.high}) or ""


@dataclass(frozen=True)
class Flag:
    """`true` or `false`."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def describe(self, catalog: Catalog) -> str:
        return catalog.text("rubric.spec.boolean") or ""


@dataclass(frozen=True)
class Choice:
    """One of a few fixed words (`"visible"`, `"hidden"`, ...), exactly as written."""

    values: tuple[str, ...]

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self, catalog: Catalog) -> str:
        words = ", ".join(f'"{v}"' for v in self.values)
        return catalog.text("rubric.spec.choice", {"values": words}) or ""


@dataclass(frozen=True)
class ListOf:
    """A list of `min_items` to `max_items` values, each accepted by `item`."""

    item: Number | Integer
    min_items: int
    max_items: int

    def accepts(self, value: object) -> bool:
        return (
            isinstance(value, list)
            and self.min_items <= len(value) <= self.max_items
            and all(self.item.accepts(v) for v in value)
        )

    def describe(self, catalog: Catalog) -> str:
        params: dict[str, Param] = {
            "min": self.min_items,
            "max": self.max_items,
            "item": self.item.describe(catalog),
        }
        return catalog.text("rubric.spec.list", params) or ""


POINTS = Number(0, 1_000_000)
"""Every check's `points`: finite, not negative, at most a million (a score must stay a
number every platform can store; NaN and infinity are not JSON)."""


def points_of(settings: Settings) -> float:
    """A check's `points` from its rubric entry, which `POINTS` accepted (a number)."""
    points = settings["points"]
    if not _real_number(points):
        raise TypeError(f"points must be a number, not {points!r}")
    return float(points)
