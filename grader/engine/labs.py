"""Finding and loading labs: the one module of the engine that imports a lab.

A lab is installed when a distribution registers its `Lab` as an entry point of the
group `grader.labs` (this project's `pyproject.toml`: `first-token = "checks:LAB"`).
Every command takes `--lab NAME` and defaults to the only installed lab; `grader labs`
lists them. A NAME with a colon ("package.module:ATTRIBUTE") names a `Lab` directly,
installed or not (a lab being written, a test's).

The entry points are `importlib.metadata.entry_points(group="grader.labs")`, imported
when a lab is first looked for (not by `import grader.engine.labs`). A checkout that is not
installed (`python -m grader` run from it) falls back to the entry points its
`pyproject.toml` declares.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.engine.lab import Lab
from grader.system.syspath import grader_root
from grader.words.worded import Worded

if TYPE_CHECKING:
    from grader.words.i18n import Catalog

GROUP = "grader.labs"


class LabError(Worded):
    """No lab could be chosen or loaded; `message_id` and `params` say why (`[lab]` in
    grader/messages)."""


@dataclass(frozen=True)
class EntryPoint:
    """One lab registered by an installed distribution."""

    name: str
    value: str  # "package.module:ATTRIBUTE"
    distribution: str


_SEPARATORS = re.compile(r"[-_.]+")


def _normalized(name: str) -> str:
    """A distribution's name as packaging normalizes it (runs of `-_.` one `_`, lower)."""
    return _SEPARATORS.sub("_", name).lower()


def _registered() -> list[EntryPoint]:
    """The `grader.labs` entry points of the installed distributions (the first
    distribution of each name only, as importlib.metadata finds them)."""
    from importlib.metadata import entry_points

    found: list[EntryPoint] = []
    for point in entry_points(group=GROUP):
        distribution = point.dist.name if point.dist is not None else ""
        found.append(EntryPoint(point.name, point.value, _normalized(distribution)))
    return found


def _from_checkout() -> list[EntryPoint]:
    """The labs the `pyproject.toml` of the checkout the grader runs from declares."""
    path = os.path.join(grader_root(), "pyproject.toml")
    if not os.path.isfile(path):
        return []
    from grader.words.tomlfile import TOMLDecodeError, loads

    try:
        with open(path, encoding="utf-8") as handle:
            project = loads(handle.read()).get("project", {})
    except (OSError, UnicodeDecodeError, TOMLDecodeError):
        return []
    table = project.get("entry-points", {}).get(GROUP, {})
    name = str(project.get("name", ""))
    return [EntryPoint(k, str(v), _normalized(name)) for k, v in table.items()]


_installed: list[EntryPoint] | None = None
_loaded: dict[str, Lab] = {}


def installed() -> list[EntryPoint]:
    """Every installed lab, sorted by name (the first distribution's, for a name twice)."""
    global _installed
    if _installed is None:
        found = _registered() or _from_checkout()
        first: dict[str, EntryPoint] = {}
        for point in found:
            first.setdefault(point.name, point)
        _installed = [first[name] for name in sorted(first)]
    return _installed


def load(name: str) -> Lab:
    """The lab installed as `name`, or the `Lab` named by "package.module:ATTRIBUTE"."""
    if name in _loaded:
        return _loaded[name]
    if ":" in name:
        ref, expected = name, None
    else:
        point = next((p for p in installed() if p.name == name), None)
        if point is None:
            known = ", ".join(p.name for p in installed()) or "—"
            raise LabError("lab.unknown", name=name, known=known)
        ref, expected = point.value, name
    module, _, attribute = ref.partition(":")
    try:
        lab = getattr(importlib.import_module(module.strip()), attribute.strip() or "LAB")
    except Exception as exc:  # an import error, a misdeclared Lab (ValueError), a typo
        detail = f"{type(exc).__name__}: {exc}"
        raise LabError("lab.broken", name=name, ref=ref, detail=detail) from None
    if not isinstance(lab, Lab):
        raise LabError("lab.not_a_lab", ref=ref, kind=type(lab).__name__)
    if expected is not None and lab.name != expected:
        raise LabError("lab.wrong_name", name=expected, ref=ref, found=lab.name)
    _loaded[name] = lab
    return lab


def choose(name: str | None = None, hint: str | None = None) -> Lab:
    """The lab `name`, or else the lab named `hint` if it is installed (the lab results
    say they are of), or else the only installed lab."""
    if name:
        return load(name)
    names = [p.name for p in installed()]
    if hint is not None and hint in names:
        return load(hint)
    if len(names) == 1:
        return load(names[0])
    if not names:
        raise LabError("lab.none", group=GROUP)
    raise LabError("lab.several", known=", ".join(names))


def lab_of(lab: Lab | str | None) -> Lab:
    """A `Lab`, given one, its name or its "package.module:ATTRIBUTE" (None: `choose()`)."""
    if isinstance(lab, Lab):
        return lab
    return choose(lab)


def reference(lab: Lab, name: str | None) -> str:
    """What names `lab` for another process (a batch worker): what the user gave, else
    the installed name."""
    return name or lab.name


def attribute(ref: str, default: str = "") -> object:
    """The object a lab's package names by "package.module:ATTRIBUTE" (its class report,
    its fuzzing target), imported here; `default` is the attribute when left out. An
    `object`: the caller checks it is what it expects (`isinstance`)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module.strip()), name.strip() or default)


def report_spec(lab: Lab) -> object:
    """What the lab's `class_report` names (its `ClassReportSpec`, imported here,
    lazily; `grader.class_report.spec.spec_of` checks it is one), or None."""
    return attribute(lab.class_report, "CLASS_REPORT") if lab.class_report else None


def lab_title(lab: Lab, catalog: Catalog) -> str:
    """What the lab is, in the catalog's language: the lab's catalog's `lab.title`, else
    the `Lab.title` it declares (English)."""
    return str(catalog.text("lab.title") or lab.title or lab.name)


def describe(point: EntryPoint) -> Mapping[str, str]:
    """What `grader labs` prints of one installed lab: name, title, where it comes from."""
    try:
        title = load(point.name).title
    except LabError as error:
        title = str(error)
    return {"name": point.name, "title": title, "value": point.value}
