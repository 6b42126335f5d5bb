"""The rubric: points and thresholds per check id, in a TOML file an instructor edits.

The lab ships its rubric as `checks/rubric.toml`; `--rubric FILE` replaces it. The file
is validated strictly (pydantic): a check id the lab doesn't have, a check the rubric
forgets, a negative number of points or a misspelt key is an error naming the check, so
a typo can't silently change grades. Thresholds are free-form keys beside `points` and
are read by the checks through `Context.param`.
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from grader.limits import Limits
from grader.tomlfile import TOMLDecodeError, loads


class RubricError(Exception):
    """The rubric file can't be used; the message says which key of which check."""


class CheckRubric(BaseModel):
    """One check's entry: points, whether it runs, and its thresholds (any other key)."""

    model_config = ConfigDict(extra="allow", strict=True)

    points: float = Field(ge=0)
    enabled: bool = True


RubricLimits: type[BaseModel] = create_model(
    "RubricLimits",
    __config__=ConfigDict(extra="forbid", strict=True),
    **{f.name: (int, Field(default=f.default, gt=0)) for f in dataclasses.fields(Limits)},
)
"""The optional `[limits]` table: the same names as `grader.limits.Limits`, all positive."""


class Rubric(BaseModel):
    """The whole rubric file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    lab: str
    version: str
    limits: RubricLimits = Field(default_factory=RubricLimits)  # type: ignore[valid-type]
    checks: dict[str, CheckRubric]

    def make_limits(self) -> Limits:
        """The size limits this rubric sets (the defaults where it is silent)."""
        return Limits(**self.limits.model_dump())

    def settings(self) -> dict[str, dict[str, Any]]:
        """Per check id: points, enabled and thresholds as one plain mapping."""
        return {cid: c.model_dump() for cid, c in self.checks.items()}


def parse_rubric(text: str, source: str, check_ids: list[str]) -> Rubric:
    """Parse and validate a rubric against the lab's check ids."""
    try:
        data = loads(text)
    except TOMLDecodeError as exc:
        raise RubricError(f"{source}: not valid TOML: {exc}") from None
    data = _ints_as_floats(data)
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RubricError(f"{source}: {where}: {first['msg']}") from None
    unknown = sorted(set(rubric.checks) - set(check_ids))
    missing = [cid for cid in check_ids if cid not in rubric.checks]
    if unknown:
        raise RubricError(
            f"{source}: no check has the id {unknown[0]!r} (known ids: grader checks --list)"
        )
    if missing:
        raise RubricError(
            f"{source}: check {missing[0]!r} has no entry; give it points (0 is fine)"
        )
    for cid, entry in rubric.checks.items():
        for key, value in (entry.model_extra or {}).items():
            if not isinstance(value, (int, float, str, bool, list)):
                raise RubricError(
                    f"{source}: checks.{cid}.{key}: a threshold must be a value, not a table"
                )
    return rubric


def _ints_as_floats(data: Any) -> Any:
    """TOML `points = 2` is an int; strict models want floats where floats are meant."""
    if isinstance(data, dict):
        return {
            k: (
                float(v)
                if k == "points" and isinstance(v, int) and not isinstance(v, bool)
                else _ints_as_floats(v)
            )
            for k, v in data.items()
        }
    return data


def load_rubric(path: str | None, package: str, filename: str, check_ids: list[str]) -> Rubric:
    """The rubric at `path`, or the lab's own when `path` is None."""
    if path is None:
        text = resources.files(package).joinpath(filename).read_text("utf-8")
        return parse_rubric(text, f"{package}/{filename}", check_ids)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(1 << 20)
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError(f"{path}: can't read the rubric: {exc}") from None
    return parse_rubric(text, path, check_ids)
