"""What a lab declares: its files, its checks, its formats, its defaults and its words.

A lab is a package (this project's is `checks/`) with one `Lab` value, registered as an
entry point of the group `grader.labs` (`grader.engine.labs` finds it). Everything the engine
knows of a lab is in that value:

- `artifacts`: the files a submission holds, each with its parser and its size cap;
- `checks`: the checks (`grader.engine.api.check`), with what they read and what must pass
  first;
- `schemas`: the JSON Schemas of its formats (`grader.reading.schema.SchemaSet`);
- `limits`: the caps of its own formats, by name, with their defaults (`grader.reading.limits`);
- `package`: where its rubric (`rubric_file`) and its catalogs (`messages/<lang>.toml`,
  consulted before the engine's) are;
- `default_folder`, `path_options` and `sample`: what `grader check` defaults to;
- `class_report`: its part of the class report (a `grader.class_report.ClassReportSpec`,
  imported only when a report is drawn);
- `leaderboard`: the measurements a Gradescope leaderboard may rank (`Leaderboard`), shown
  when the rubric's `[gradescope] leaderboard` is true.

A misdeclared lab fails when it is built, not halfway through a grade: an artifact or
check id twice, a check reading an artifact the lab does not have, a prerequisite that is
no check of the lab or a cycle of them, a size cap or path option that names nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.engine.api import Check, run_order
from grader.engine.rubric import RESERVED_KEYS
from grader.reading.limits import ENGINE_LIMITS, Limits
from grader.reading.loading import ArtifactSpec
from grader.reading.schema import SchemaSet

if TYPE_CHECKING:
    from grader.engine.params import ParamSpec

ORDERS = ("asc", "desc")


@dataclass(frozen=True)
class Leaderboard:
    """One column of a Gradescope leaderboard: a number a check records.

    The value is `data[key]` of the check `check`, taken only when that check passed (a
    number the server's record confirmed, judged correct); otherwise the student has no
    entry. `name` is the catalog id of the column's heading (in the lab's catalog);
    `order` is Gradescope's: "asc" ranks lower values higher (a time), "desc" higher."""

    name: str
    check: str
    key: str
    order: str = "desc"


@dataclass(frozen=True)
class Lab:
    """Everything the engine needs to know about one lab."""

    name: str
    """Its stable name: the entry point's, the rubric's `lab`, the result's `lab`."""
    artifacts: tuple[ArtifactSpec, ...]
    checks: tuple[Check, ...]
    package: str
    """The lab's package: `rubric_file` and `messages/<lang>.toml` are read from it."""
    schemas: SchemaSet
    """Its formats, the JSON Schemas its parsers validate against (readable while grading)."""
    title: str = ""
    """One line saying what the lab is (`grader labs`, `grader --help`), in English; the
    lab's catalog words it per language as `lab.title`."""
    rubric_file: str = "rubric.toml"
    limits: Mapping[str, int] = field(default_factory=dict)
    """The caps of the lab's own formats, name -> default; the rubric's `[limits]` sets
    them like the engine's (`grader.reading.limits`)."""
    default_folder: str | None = None
    """The folder `grader check` grades when given none (where the lab's files are made)."""
    path_options: Mapping[str, str] = field(default_factory=dict)
    """Artifact name -> a `grader check` option that reads it from elsewhere
    (`{"log": "--server-log"}`)."""
    samples: tuple[str, ...] = ()
    """Where the lab's bundled sample submissions are, relative to its package's folder,
    in order: the copy an installed wheel ships (`samples`), then a checkout's folder
    (`../sample_submissions`); the first that exists is used (`grader.engine.samples`)."""
    sample: str | None = None
    """The bundled sample to suggest when the default folder does not exist (`correct`:
    `grader check --sample correct`)."""
    class_report: str | None = None
    """"package.module:ATTRIBUTE" of the lab's `grader.class_report.ClassReportSpec` (its
    report sections and integrity flags), imported only when a class report is drawn;
    None: the class report has no sections of the lab's and no integrity flags."""
    leaderboard: tuple[Leaderboard, ...] = ()
    """What a Gradescope leaderboard may show of a student's result, in column order."""

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def messages_package(self) -> str:
        """The package whose `messages/<lang>.toml` are the lab's catalogs."""
        return self.package

    def all_check_ids(self) -> list[str]:
        return [f"{a.name}.schema" for a in self.artifacts] + [c.id for c in self.checks]

    def parameters(self) -> dict[str, Mapping[str, ParamSpec]]:
        """Each check id's declared rubric parameters (none for the `.schema` checks)."""
        return {c.id: c.params for c in self.checks}

    def default_limits(self) -> Limits:
        """The engine's default caps with the lab's own."""
        return Limits(lab=dict(self.limits))

    def downstream(self, check_ids: Iterable[str]) -> list[str]:
        """Every check that is skipped when `check_ids` do not pass: those that read the
        artifact of a failed `<artifact>.schema` or name a failed check as prerequisite,
        and so on, in the order the result lists them."""
        gone = set(check_ids)
        for chk in run_order(self.checks):
            reads = {f"{name}.schema" for name in chk.reads}
            if reads & gone or {c for c, _ in chk.prerequisites} & gone:
                gone.add(chk.id)
        return [cid for cid in self.all_check_ids() if cid in gone and cid not in set(check_ids)]


def _twice(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    return [n for n in names if n in seen or seen.add(n)]  # type: ignore[func-returns-value]


def _validate(lab: Lab) -> None:
    """Raise ValueError for the first thing misdeclared in `lab`."""
    where = f"lab {lab.name}"
    names = [a.name for a in lab.artifacts]
    for label, found in (("artifact", _twice(names)), ("check", _twice(lab.all_check_ids()))):
        if found:
            raise ValueError(f"{where}: the {label} {found[0]!r} is declared twice")
    artifacts = set(names)
    for chk in lab.checks:
        for name in (*chk.reads, *chk.uses):
            if name not in artifacts:
                raise ValueError(f"{where}: check {chk.id} reads {name!r}, no artifact of the lab")
    run_order(lab.checks)  # an unknown prerequisite or a cycle
    limits = set(ENGINE_LIMITS) | set(lab.limits)
    for name in set(lab.limits) & set(ENGINE_LIMITS):
        raise ValueError(f"{where}: the limit {name!r} is the engine's; give it another name")
    for spec in lab.artifacts:
        if spec.max_bytes not in limits:
            raise ValueError(f"{where}: artifact {spec.name} is capped by {spec.max_bytes!r}, "
                             "no limit of the engine's or the lab's")  # fmt: skip
    for name, option in lab.path_options.items():
        if name not in artifacts or not option.startswith("--"):
            raise ValueError(f"{where}: path option {option!r} for {name!r} names no artifact")
    for chk in lab.checks:
        for name in set(chk.params) & set(RESERVED_KEYS):
            raise ValueError(f"{where}: check {chk.id} declares {name!r}, a rubric key of its own")
    ids = set(lab.all_check_ids())
    for spec in lab.artifacts:
        for cid in spec.corroborated_by or ():
            if cid not in ids:
                raise ValueError(f"{where}: artifact {spec.name} is corroborated by {cid!r}, "
                                 "no check of the lab")  # fmt: skip
    for entry in lab.leaderboard:
        if entry.check not in ids or entry.order not in ORDERS:
            raise ValueError(f"{where}: leaderboard {entry.name!r} names no check or no order")
