"""The rubric: points and thresholds per check id, in a TOML file an instructor edits.

The lab ships its rubric as `checks/rubric.toml`; `--rubric FILE` replaces it. The file
is validated strictly: a check id the lab doesn't have, a check the rubric forgets, a
negative number of points or a misspelt key is an error naming the key, so a typo can't
silently change grades. Thresholds are free-form keys beside `points`, read by the
checks through `Context.param`; an optional `[limits]` table changes the size caps.

Validation has a fast path and an explaining path: a plain structural check accepts a
good rubric without importing anything heavy (every grading run loads a rubric), and
only a rubric it rejects is handed to the pydantic models below, whose error names the
exact key and what is wrong with it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from grader.limits import Limits
from grader.package_data import read_text
from grader.tomlfile import TOMLDecodeError, loads

_LIMIT_NAMES = {f.name for f in dataclasses.fields(Limits)}
_THRESHOLD_TYPES = (int, float, str, bool, list)


class RubricError(Exception):
    """The rubric file can't be used; the message says which key of which check."""


@dataclass(frozen=True)
class Rubric:
    """A validated rubric."""

    lab: str
    version: str
    checks: dict[str, dict[str, Any]]
    limits: dict[str, int] = field(default_factory=dict)

    def settings(self) -> dict[str, dict[str, Any]]:
        """Per check id: points, enabled and thresholds as one plain mapping."""
        return {
            cid: {"enabled": True, **entry, "points": float(entry["points"])}
            for cid, entry in self.checks.items()
        }

    def make_limits(self) -> Limits:
        """The size limits this rubric sets (the defaults where it is silent)."""
        return Limits(**self.limits)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _acceptable(data: Any) -> bool:
    """The fast structural check: True when the rubric is certainly well formed."""
    if not isinstance(data, dict) or not set(data) <= {"lab", "version", "limits", "checks"}:
        return False
    if not (isinstance(data.get("lab"), str) and isinstance(data.get("version"), str)):
        return False
    limits = data.get("limits", {})
    if not isinstance(limits, dict) or not set(limits) <= _LIMIT_NAMES:
        return False
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in limits.values()):
        return False
    checks = data.get("checks")
    if not isinstance(checks, dict):
        return False
    for entry in checks.values():
        if not isinstance(entry, dict) or not _number(entry.get("points")) or entry["points"] < 0:
            return False
        if not isinstance(entry.get("enabled", True), bool):
            return False
        if not all(isinstance(v, _THRESHOLD_TYPES) for v in entry.values()):
            return False
    return True


def _explain(data: Any, source: str) -> str:
    """Why a rubric the fast check rejected is wrong, in pydantic's precise words."""
    from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

    class CheckRubric(BaseModel):
        model_config = ConfigDict(extra="allow", strict=True)
        points: float = Field(ge=0)
        enabled: bool = True

    limits_model: Any = create_model(
        "RubricLimits",
        __config__=ConfigDict(extra="forbid", strict=True),
        **{name: (int, Field(default=1, gt=0)) for name in _LIMIT_NAMES},
    )

    class RubricModel(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        lab: str
        version: str
        limits: limits_model = Field(default_factory=limits_model)
        checks: dict[str, CheckRubric]

    try:
        model = RubricModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{source}: {where}: {first['msg']}"
    for cid, entry in model.checks.items():
        for key, value in (entry.model_extra or {}).items():
            if not isinstance(value, _THRESHOLD_TYPES):
                return f"{source}: checks.{cid}.{key}: a threshold must be a value, not a table"
    return f"{source}: not a valid rubric"


def parse_rubric(text: str, source: str, check_ids: list[str]) -> Rubric:
    """Parse and validate a rubric against the lab's check ids."""
    try:
        data = loads(text)
    except TOMLDecodeError as exc:
        raise RubricError(f"{source}: not valid TOML: {exc}") from None
    if not _acceptable(data):
        raise RubricError(_explain(data, source))
    unknown = sorted(set(data["checks"]) - set(check_ids))
    missing = [cid for cid in check_ids if cid not in data["checks"]]
    if unknown:
        raise RubricError(
            f"{source}: no check has the id {unknown[0]!r} (list them: grader checks)"
        )
    if missing:
        raise RubricError(
            f"{source}: check {missing[0]!r} has no entry; give it points (0 is fine)"
        )
    return Rubric(data["lab"], data["version"], data["checks"], data.get("limits", {}))


def load_rubric(path: str | None, package: str, filename: str, check_ids: list[str]) -> Rubric:
    """The rubric at `path`, or the lab's own when `path` is None."""
    if path is None:
        text = read_text(package, filename)
        return parse_rubric(text, f"{package}/{filename}", check_ids)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(1 << 20)
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError(f"{path}: can't read the rubric: {exc}") from None
    return parse_rubric(text, path, check_ids)
