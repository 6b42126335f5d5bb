"""The check engine: run a lab's checks over loaded artifacts and score them.

A check is a small pure function of a `Context` (the loaded artifacts and its rubric
parameters). It passes by returning (optionally a `Note` to say something anyway) and
fails by raising `Fail` with a catalog message id, the expected and found values and a
location. The engine adds one `<artifact>.schema` check per artifact, skips a check whose
inputs did not load or whose prerequisite checks did not pass (with the reason, instead
of failing twice), and turns any other exception into status `error`, never a crash.
Nothing here knows about a particular lab.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from grader.loading import Artifact, ArtifactSpec
from grader.params import ParamSpec
from grader.problems import Location, Param, Term

Status = Literal["passed", "failed", "skipped", "error"]


class Fail(Exception):
    """Raised by a check: what was expected, what was found, where, as a catalog message.

    `key` is relative to the check (`ttft.before_total` + `run` → `ttft.before_total.run`);
    `params` fill the message's placeholders; `expected` / `found` are short
    language-neutral values (numbers, file names) shown beside the message.
    """

    def __init__(
        self,
        key: str,
        /,
        *,
        expected: Param = None,
        found: Param = None,
        at: Location | None = None,
        **params: Param,
    ) -> None:
        super().__init__(key)
        self.key = key
        self.expected = expected
        self.found = found
        self.at = at
        self.params = params


@dataclass(frozen=True)
class Note:
    """Returned by a passing check that has something to say (e.g. "not confirmed")."""

    key: str
    params: dict[str, Param] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """A check as a lab declares it: stable id, what it reads, what must pass first."""

    id: str
    run: Callable[[Context], Note | None]
    reads: tuple[str, ...]
    uses: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    # the rubric parameters the check reads, each with its type and range; the rubric
    # validator refuses a rubric that gives others or gives these wrong
    params: Mapping[str, ParamSpec] = field(default_factory=dict)

    @property
    def artifact(self) -> str | None:
        return self.reads[0] if self.reads else None


def check(
    id: str,
    *,
    reads: Iterable[str],
    uses: Iterable[str] = (),
    after: Iterable[str] = (),
    params: Mapping[str, ParamSpec] | None = None,
) -> Callable[[Callable[[Context], Note | None]], Check]:
    """Declare a check; the decorated function becomes a `Check` value in its module.

    `params` declares each rubric parameter the check reads (`grader.params`)."""

    def wrap(func: Callable[[Context], Note | None]) -> Check:
        return Check(id, func, tuple(reads), tuple(uses), tuple(after), params=dict(params or {}))

    return wrap


def collect(*modules: Any) -> tuple[Check, ...]:
    """The checks defined in `modules`, in module order and then definition order."""
    return tuple(v for m in modules for v in vars(m).values() if isinstance(v, Check))


@dataclass(frozen=True)
class Lab:
    """Everything the engine needs to know about one lab."""

    name: str
    artifacts: tuple[ArtifactSpec, ...]
    checks: tuple[Check, ...]
    rubric_file: str
    messages_package: str
    path_options: Mapping[str, str] = field(default_factory=dict)
    # "package.module:ATTRIBUTE" of the lab's `grader.class_report.ClassReportSpec` (its
    # physics charts and integrity flags), imported only when a class report is drawn;
    # None: the class report has no physics charts and no integrity flags.
    class_report: str | None = None

    def all_check_ids(self) -> list[str]:
        return [f"{a.name}.schema" for a in self.artifacts] + [c.id for c in self.checks]

    def parameters(self) -> dict[str, Mapping[str, ParamSpec]]:
        """Each check id's declared rubric parameters (none for the `.schema` checks)."""
        return {c.id: c.params for c in self.checks}


class Context:
    """What a running check may see: its artifacts' values and its rubric parameters."""

    def __init__(self, artifacts: Mapping[str, Artifact], params: Mapping[str, Any], check_id: str):
        self._artifacts = artifacts
        self._params = params
        self.check_id = check_id

    def __getitem__(self, name: str) -> Any:
        """The value of a valid artifact the check `reads` (the engine made sure it is)."""
        return self._artifacts[name].value

    def optional(self, name: str) -> Any:
        """The value of an artifact the check `uses`, or None when it is not valid."""
        artifact = self._artifacts.get(name)
        return artifact.value if artifact is not None and artifact.status == "valid" else None

    def at(self, name: str, pointer: str = "", line: int | None = None) -> Location:
        return self._artifacts[name].at(pointer, line)

    def param(self, name: str) -> Any:
        """A threshold from the rubric; a missing one is a rubric error, reported as such."""
        try:
            return self._params[name]
        except KeyError:
            raise KeyError(
                f"the rubric gives check {self.check_id} no parameter {name!r}"
            ) from None


@dataclass(frozen=True)
class Outcome:
    """The result of one check, still language-neutral (message ids and parameters)."""

    id: str
    status: Status
    points: float
    max_points: float
    artifact: str | None
    message_id: str | None = None
    params: Mapping[str, Param] = field(default_factory=dict)
    location: Location | None = None
    expected: Param = None
    found: Param = None
    title_id: str = ""


def _schema_outcome(artifact: Artifact, points: float) -> Outcome:
    title = "engine.schema_check.title"
    if artifact.status == "valid":
        return Outcome(
            f"{artifact.name}.schema",
            "passed",
            points,
            points,
            artifact.name,
            "engine.schema_check.valid",
            {"file": artifact.file},
            title_id=title,
        )
    first = artifact.problems[0]
    params = dict(first.params) | {"file": artifact.file, "more": len(artifact.problems) - 1}
    return Outcome(
        f"{artifact.name}.schema",
        "failed",
        0,
        points,
        artifact.name,
        first.message_id,
        params,
        first.location or Location(artifact.file),
        title_id=title,
    )


def run_checks(
    lab: Lab, artifacts: Mapping[str, Artifact], rubric: Mapping[str, Mapping[str, Any]]
) -> list[Outcome]:
    """Run every enabled check in order; never raises for anything a check does."""
    outcomes: dict[str, Outcome] = {}
    for spec in lab.artifacts:
        cid = f"{spec.name}.schema"
        if rubric[cid].get("enabled", True):
            outcomes[cid] = _schema_outcome(artifacts[spec.name], float(rubric[cid]["points"]))
    for chk in lab.checks:
        settings = rubric[chk.id]
        if not settings.get("enabled", True):
            continue
        outcomes[chk.id] = _run_one(chk, artifacts, settings, outcomes)
    return list(outcomes.values())


def _run_one(
    chk: Check,
    artifacts: Mapping[str, Artifact],
    settings: Mapping[str, Any],
    done: Mapping[str, Outcome],
) -> Outcome:
    points = float(settings["points"])
    base = {
        "id": chk.id,
        "max_points": points,
        "artifact": chk.artifact,
        "title_id": f"{chk.id}.title",
    }
    for name in chk.reads:
        artifact = artifacts[name]
        if artifact.status != "valid":
            return Outcome(
                status="skipped",
                points=0,
                message_id="engine.skipped.artifact",
                params={"file": artifact.file, "status": Term(artifact.status)},
                **base,
            )
    for prerequisite in chk.after:
        if prerequisite in done and done[prerequisite].status != "passed":
            return Outcome(
                status="skipped",
                points=0,
                message_id="engine.skipped.check",
                params={"check": prerequisite},
                **base,
            )
    try:
        note = chk.run(Context(artifacts, settings, chk.id))
    except Fail as failure:
        return Outcome(
            status="failed",
            points=0,
            message_id=f"{chk.id}.{failure.key}",
            params=failure.params,
            location=failure.at,
            expected=failure.expected,
            found=failure.found,
            **base,
        )
    except Exception as exc:  # a check's bug must not take the whole grade down
        import traceback  # only a broken check pays for it

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        detail = f"{type(exc).__name__}: {exc} ({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
        return Outcome(
            status="error",
            points=0,
            message_id="engine.error",
            params={"detail": detail[:300]},
            **base,
        )
    if note is None:
        return Outcome(status="passed", points=points, **base)
    return Outcome(
        status="passed",
        points=points,
        message_id=f"{chk.id}.{note.key}",
        params=note.params,
        **base,
    )
