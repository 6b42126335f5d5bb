"""The rubric: points and thresholds per check id, in a TOML file an instructor edits.

The lab ships its rubric as `checks/rubric.toml`; `--rubric FILE` replaces it. The file
is validated strictly, before anything is graded, and the first thing wrong stops the
grader (exit 2) with a sentence naming the key:

- top level: `lab` (the lab's own name), `version` (a string), `checks`, optional
  `[limits]` and `[gradescope]`; nothing else;
- `checks`: exactly the lab's check ids (an unknown id or a forgotten one is an error);
- each check: `points` (finite, 0 to 1,000,000: NaN and infinity are not JSON and no
  platform stores them), optional `enabled` (true / false), optional `visibility` (when
  Gradescope shows it to the student, overriding `[gradescope]`'s), and exactly the
  parameters the check declares (`grader.engine.params`), each of its declared type and range;
- `[limits]`: only the names of the engine's limits (`grader.reading.limits.Limits`) and the
  lab's own (`Lab.limits`), each a whole number from 1 up;
- `[gradescope]`: what `--format gradescope` tells Gradescope (`GRADESCOPE`): the default
  `visibility` of every check, `stdout_visibility`, and whether to add the lab's
  `leaderboard`; the visibility words are Gradescope's ("Controlling Test Case
  Visibility", gradescope-autograders.readthedocs.io/en/latest/specs/).

A rubric is small and read once per run; validation is plain code, no library import.
The errors are catalog messages (`[rubric]` in grader/messages), shown in the
instructor's language by the command line; `str(error)` is English.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.engine.params import POINTS, Choice, Flag, Integer, points_of
from grader.reading.limits import ENGINE_LIMITS, Limits
from grader.words.package_data import read_text
from grader.words.problems import Param
from grader.words.tomlfile import TOMLDecodeError, loads

if TYPE_CHECKING:
    from typing import Any, Protocol

    from grader.engine.params import ParamSpec, Settings
    from grader.words.i18n import Catalog
    from grader.words.problems import JSONValue
    from grader.words.worded import Worded

LIMIT_SPEC = Integer(1, 1 << 53)
VISIBILITY = Choice(("visible", "hidden", "after_due_date", "after_published"))
"""When Gradescope shows a student something: always, never, after the due date, after
the grades are published (its four words, for a test, the result and the stdout)."""
GRADESCOPE: dict[str, tuple[ParamSpec, str | bool]] = {
    "visibility": (VISIBILITY, "visible"),
    "stdout_visibility": (VISIBILITY, "hidden"),
    "leaderboard": (Flag(), False),
}
"""`[gradescope]` settings: name -> (what it accepts, its default). The defaults show
each check's feedback at once (it is meant for the student), keep run_autograder's
stdout (the grader's diagnostics) for the instructor, and add no leaderboard."""
RESERVED_KEYS = ("points", "enabled", "visibility")
"""A check entry's keys that are not the check's parameters (no check may declare one)."""
_TOP_KEYS = ("lab", "version", "limits", "gradescope", "checks")
_RUBRIC_MAX_BYTES = 1 << 20


_NOTHING = object()


class RubricError(Exception):
    """The rubric file can't be used; the message says which key is wrong and why.

    `message_id` and `params` are a catalog message (`rubric.*`). Three parameters are
    worded by the reader's catalog: `expected` (a declared `ParamSpec`, described),
    `found` (the TOML value as written, with its type) and `close` (the closest known
    name, offered as "did you mean").
    """

    def __init__(
        self,
        message_id: str,
        params: Mapping[str, Param | Worded] | None = None,
        *,
        expected: ParamSpec | None = None,
        found: object = _NOTHING,
        close: str | None = None,
    ) -> None:
        self.message_id = message_id
        self.params = dict(params or {})
        self.expected, self.found, self.close = expected, found, close
        super().__init__(message_id)

    def text(self, catalog: Catalog) -> str:
        """The message in `catalog`'s language."""
        params = dict(self.params)  # a `Worded` detail the catalog words itself
        if self.expected is not None:
            params["expected"] = self.expected.describe(catalog)
        if self.found is not _NOTHING:
            value, kind = _shown(self.found)
            kind = catalog.text(f"rubric.kind.{kind}") or kind
            params["found"] = catalog.text("rubric.found", {"value": value, "kind": kind})
        suggestion = catalog.text("rubric.did_you_mean", {"name": self.close})
        params["suggestion"] = suggestion if self.close else ""
        return catalog.text(self.message_id, params) or self.message_id

    def __str__(self) -> str:
        from grader.words.i18n import Catalog

        return self.text(Catalog("en", ("grader",)))


@dataclass(frozen=True)
class Rubric:
    """A validated rubric; `sha256` is of the file's bytes (part of the input digest)."""

    lab: str
    version: str
    checks: dict[str, dict[str, JSONValue]]
    limits: dict[str, int] = field(default_factory=dict)
    sha256: str = ""
    lab_limits: Mapping[str, int] = field(default_factory=dict)
    """The lab's own limits with their defaults (what `[limits]` may set beside the
    engine's)."""
    gradescope: Mapping[str, str | bool] = field(default_factory=dict)
    """The `[gradescope]` settings as written (`gradescope_setting` fills in defaults)."""

    def settings(self) -> dict[str, Settings]:
        """Per check id: points, enabled and thresholds as one plain mapping."""
        return {
            cid: {"enabled": True, **entry, "points": points_of(entry)}
            for cid, entry in self.checks.items()
        }

    def gradescope_setting(self, name: str) -> str | bool:
        """A `[gradescope]` setting, or its default (`GRADESCOPE`)."""
        return self.gradescope.get(name, GRADESCOPE[name][1])

    def visibility(self, check_id: str) -> str:
        """When Gradescope shows the check to the student: its own `visibility`, else
        `[gradescope]`'s."""
        own = self.checks.get(check_id, {}).get("visibility")
        return str(own or self.gradescope_setting("visibility"))

    def make_limits(self, lab_defaults: Mapping[str, int] | None = None) -> Limits:
        """The size limits this rubric sets (the engine's and the lab's defaults, also
        `lab_defaults`, where it is silent)."""
        return Limits.of(self.limits, {**self.lab_limits, **(lab_defaults or {})})


def _shown(value: object) -> tuple[str, str]:
    """A TOML value as the instructor wrote it, and its type: `"0.25"`, string."""
    if isinstance(value, bool):
        kind, text = "boolean", str(value).lower()
    elif isinstance(value, (int, float)):
        kind = "integer" if isinstance(value, int) else "number"
        text = repr(value) if math.isfinite(value) else str(value)
    elif isinstance(value, str):
        kind, text = "string", json.dumps(value, ensure_ascii=False)
    elif isinstance(value, list):
        kind, text = "array", json.dumps(value, ensure_ascii=False, default=str)
    elif isinstance(value, dict):
        kind, text = "object", "{…}"
    else:  # a TOML date or time
        kind, text = "date", str(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return text, kind


def _known(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "—"


def _close(name: str, names: Sequence[str]) -> str | None:
    import difflib  # only a misspelt rubric needs it; not imported by every `grader check`

    close = difflib.get_close_matches(name, names, n=1)
    return close[0] if close else None


def _value(source: str, key: str, value: object, spec: ParamSpec) -> None:
    if not spec.accepts(value):
        params = {"source": source, "key": key}
        raise RubricError("rubric.wrong_value", params, expected=spec, found=value)


def _table(source: str, key: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RubricError("rubric.not_a_table", {"source": source, "key": key}, found=value)
    return value


def _check_entry(
    source: str, cid: str, entry: object, declared: Mapping[str, ParamSpec] | None
) -> None:
    where = f'checks."{cid}"'
    entry = _table(source, where, entry)
    if "points" not in entry:
        raise RubricError("rubric.missing_points", {"source": source, "key": f"{where}.points"})
    _value(source, f"{where}.points", entry["points"], POINTS)
    if "enabled" in entry:
        _value(source, f"{where}.enabled", entry["enabled"], Flag())
    if "visibility" in entry:
        _value(source, f"{where}.visibility", entry["visibility"], VISIBILITY)
    if declared is None:  # a caller that knows no declarations: thresholds unchecked
        return
    names = sorted(declared)
    for key, value in entry.items():
        if key in RESERVED_KEYS:
            continue
        spec = declared.get(key)
        if spec is None:
            params = {
                "source": source,
                "key": f"{where}.{key}",
                "check": cid,
                "name": key,
                "known": _known(names),
            }
            raise RubricError("rubric.unknown_param", params, close=_close(key, names))
        _value(source, f"{where}.{key}", value, spec)
    if entry.get("enabled", True):
        for name in names:
            if name not in entry:
                raise RubricError(
                    "rubric.missing_param",
                    {"source": source, "key": f"{where}.{name}", "check": cid},
                    expected=declared[name],
                )


def validate(
    data: dict[str, Any],
    source: str,
    check_ids: Sequence[str],
    params: Mapping[str, Mapping[str, ParamSpec]] | None = None,
    lab: str | None = None,
    lab_limits: Mapping[str, int] | None = None,
) -> None:
    """Raise `RubricError` for the first thing wrong with the parsed rubric `data`.

    `params`: each check id's declared parameters (None: don't check thresholds);
    `lab`: the lab's name, which the rubric's `lab` must equal (None: any);
    `lab_limits`: the lab's own limits, which `[limits]` may set beside the engine's.
    """
    limit_names = (*ENGINE_LIMITS, *(lab_limits or {}))
    for key in data:
        if key not in _TOP_KEYS:
            raise RubricError(
                "rubric.unknown_key", {"source": source, "key": key, "known": _known(_TOP_KEYS)}
            )
    for key in ("lab", "version"):
        if key not in data:
            raise RubricError("rubric.missing_key", {"source": source, "key": key})
        if not isinstance(data[key], str) or not data[key]:
            raise RubricError("rubric.not_text", {"source": source, "key": key}, found=data[key])
    if lab is not None and data["lab"] != lab:
        raise RubricError("rubric.wrong_lab", {"source": source, "found": data["lab"], "lab": lab})
    limits = _table(source, "limits", data.get("limits", {}))
    for key, value in limits.items():
        if key not in limit_names:
            named = {"source": source, "key": f"limits.{key}", "known": _known(limit_names)}
            raise RubricError("rubric.unknown_limit", named, close=_close(key, limit_names))
        _value(source, f"limits.{key}", value, LIMIT_SPEC)
    settings = _table(source, "gradescope", data.get("gradescope", {}))
    for key, value in settings.items():
        if key not in GRADESCOPE:
            names = list(GRADESCOPE)
            named = {"source": source, "key": f"gradescope.{key}", "known": _known(names)}
            raise RubricError("rubric.unknown_setting", named, close=_close(key, names))
        _value(source, f"gradescope.{key}", value, GRADESCOPE[key][0])
    if "checks" not in data:
        raise RubricError("rubric.no_checks", {"source": source})
    checks = _table(source, "checks", data["checks"])
    for cid in checks:
        if cid not in check_ids:
            raise RubricError("rubric.unknown_check", {"source": source, "check": cid})
    for cid in check_ids:
        if cid not in checks:
            raise RubricError("rubric.missing_check", {"source": source, "check": cid})
        declared = None if params is None else params.get(cid, {})
        _check_entry(source, cid, checks[cid], declared)


def parse_rubric(
    text: str,
    source: str,
    check_ids: Sequence[str],
    params: Mapping[str, Mapping[str, ParamSpec]] | None = None,
    lab: str | None = None,
    lab_limits: Mapping[str, int] | None = None,
) -> Rubric:
    """Parse and validate a rubric against the lab's check ids (and their parameters,
    its name and its own limits, when given)."""
    try:
        data = loads(text)
    except TOMLDecodeError as exc:
        raise RubricError("rubric.not_toml", {"source": source, "detail": str(exc)}) from None
    validate(data, source, check_ids, params, lab, lab_limits)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    limits = data.get("limits", {})
    return Rubric(
        data["lab"],
        data["version"],
        data["checks"],
        limits,
        digest,
        dict(lab_limits or {}),
        dict(data.get("gradescope", {})),
    )


def read_rubric_text(path: str) -> str:
    """The text of the rubric file at `path`; raises `RubricError` if it can't be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(_RUBRIC_MAX_BYTES + 1)
    except OSError as exc:
        from grader.system.faults import read_failure

        reason = read_failure(exc)
        raise RubricError("rubric.cant_read", {"source": path, "detail": reason}) from None
    except UnicodeDecodeError:
        from grader.words.worded import Worded

        reason = Worded("fault.not_utf8")
        raise RubricError("rubric.cant_read", {"source": path, "detail": reason}) from None
    if len(text) > _RUBRIC_MAX_BYTES:
        raise RubricError("rubric.too_big", {"source": path, "limit": _RUBRIC_MAX_BYTES})
    return text


def load_rubric(
    path: str | None,
    package: str,
    filename: str,
    check_ids: Sequence[str],
    params: Mapping[str, Mapping[str, ParamSpec]] | None = None,
    lab: str | None = None,
    lab_limits: Mapping[str, int] | None = None,
) -> Rubric:
    """The rubric at `path`, or the lab's own (`package`/`filename`) when `path` is None."""
    if path is None:
        text = read_text(package, filename)
        source = f"{package}/{filename}"
        return parse_rubric(text, source, check_ids, params, lab, lab_limits)
    return parse_rubric(read_rubric_text(path), path, check_ids, params, lab, lab_limits)


if TYPE_CHECKING:

    class _Lab(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def package(self) -> str: ...
        @property
        def rubric_file(self) -> str: ...
        @property
        def limits(self) -> Mapping[str, int]: ...

        def all_check_ids(self) -> list[str]: ...

        def parameters(self) -> dict[str, Mapping[str, ParamSpec]]: ...


def load_lab_rubric(lab: _Lab, path: str | None = None, package: str | None = None) -> Rubric:
    """The rubric of `lab` (its own, from its package, or the file at `path`), validated
    against the lab's name, check ids, every check's declared parameters and its limits.
    `package` is where the lab's own rubric is (default: the lab's package)."""
    return load_rubric(
        path,
        package or lab.package,
        lab.rubric_file,
        lab.all_check_ids(),
        lab.parameters(),
        lab.name,
        lab.limits,
    )
