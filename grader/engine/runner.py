"""Running a lab's checks over its loaded artifacts: the outcomes, still language-neutral.

`run_checks` runs every enabled check in `run_order` (every prerequisite first), with the
file's own `<artifact>.schema` check before them; it never raises for anything a check
does: a check's exception is its `error` outcome, and grading goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict

from grader.engine.api import PARAMS_KEY, Check, Context, Fail, run_order
from grader.engine.params import points_of
from grader.reading.loading import Artifact, ArtifactSpec
from grader.words.problems import Location, Param, Term, TitleOf

if TYPE_CHECKING:
    from grader.engine.lab import Lab
    from grader.engine.params import Settings
    from grader.engine.result import Evidence, Status
    from grader.words.problems import JSONValue


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
    data: Mapping[str, JSONValue] = field(default_factory=dict)
    cause: str | None = None
    """For a skipped check: the check whose failure it waits for (`<artifact>.schema`
    when a file did not load), the first link of the chain."""
    hint_id: str | None = None
    """The catalog id of what to do, when it is not `<id>.hint`: for a file's problem,
    `engine.schema_hint.<problem id>` (`hint_ids` falls back to the problem's kind)."""
    unconfirmed: bool = False
    """The check's note or failure said the record it compares with lacks what would
    confirm the numbers (`Note.unconfirmed`, `Fail(..., unconfirmed=True)`)."""


UNCONFIRMED_HINT = "engine.unconfirmed_hint"
"""What to do when a corroborating check failed for lack of record, not contradiction."""
SCHEMA_HINT = "engine.schema_hint"
MISSING_HINT = "engine.missing_hint"
"""The lab's table of how each file is made, by artifact name (`engine.missing_hint.<name>`):
what to do about a missing file, said before the general hint."""
MISSING = ("file.missing", "file.missing_similar")
"""The catalog table of what to do about a file's problem: a hint for the problem itself
(`engine.schema_hint.file.too_big`) where there is one, else for its kind, the first word
of its id (`engine.schema_hint.file`)."""


def hint_ids(outcome: Outcome) -> tuple[str, ...]:
    """The catalog ids of what to do about a failed outcome, the first the catalog has
    is said: the check's own `<id>.hint`, or its file's problem's (`SCHEMA_HINT`); for a
    failure for lack of record (`Fail(..., unconfirmed=True)`), how to hand in the whole
    record first (`UNCONFIRMED_HINT`, which a lab may reword), then the check's own."""
    if outcome.unconfirmed and outcome.status == "failed":
        return UNCONFIRMED_HINT, f"{outcome.id}.hint"
    if outcome.hint_id is None:
        return (f"{outcome.id}.hint",)
    if outcome.hint_id.startswith(f"{MISSING_HINT}."):
        return outcome.hint_id, f"{SCHEMA_HINT}.file.missing", f"{SCHEMA_HINT}.file"
    problem = outcome.hint_id.removeprefix(f"{SCHEMA_HINT}.")
    if problem == outcome.hint_id or "." not in problem:
        return (outcome.hint_id,)
    return outcome.hint_id, f"{SCHEMA_HINT}.{problem.split('.')[0]}"


def _schema_outcome(artifact: Artifact, points: float) -> Outcome:
    """The `<artifact>.schema` check: the file loaded and is valid, with the measurements
    its lab keeps of it (`ArtifactSpec.measure`); a lab's measure that raises is an error
    of that check, as a check's own bug is."""
    cid, title = f"{artifact.name}.schema", "engine.schema_check.title"
    if artifact.status == "valid":
        try:
            measure = artifact.spec.measure
            data = dict(measure(artifact.value)) if measure is not None else {}
        except Exception as exc:
            return Outcome(
                cid, "error", 0, points, artifact.name, "engine.error",
                {"detail": _detail(exc)}, title_id=title,
            )  # fmt: skip
        return Outcome(
            cid,
            "passed",
            points,
            points,
            artifact.name,
            "engine.schema_check.valid",
            {"file": artifact.file},
            title_id=title,
            data=data,
        )
    first = artifact.problems[0]
    params = dict(first.params) | {"file": artifact.file, "more": len(artifact.problems) - 1}
    return Outcome(
        cid,
        "failed",
        0,
        points,
        artifact.name,
        first.message_id,
        params,
        first.location or Location(artifact.file),
        title_id=title,
        hint_id=(
            f"{MISSING_HINT}.{artifact.name}"
            if first.message_id in MISSING
            else f"{SCHEMA_HINT}.{first.message_id}"
        ),
    )


def _detail(exc: Exception) -> str:
    """What a crashed check says about its exception: type, message, file and line."""
    import traceback  # only a broken check pays for it

    frame = traceback.extract_tb(exc.__traceback__)[-1]
    detail = f"{type(exc).__name__}: {exc} ({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
    return detail[:300]


_ORDERS: dict[int, tuple[tuple[Check, ...], list[Check]]] = {}


def _in_order(checks: Sequence[Check]) -> list[Check]:
    """`run_order(checks)`, sorted once per lab rather than once per grade (the sort was
    ≈1% of grading a submission in a batch). Keyed by the tuple's identity, the tuple
    kept beside its order so that no other tuple can ever reuse the key; a lab's checks
    never change (the `Lab` is frozen, its checks a tuple; a list is sorted each time).
    A process grades with one lab or two: a program that makes many forgets them all
    after eight."""
    if type(checks) is not tuple:
        return run_order(checks)
    known = _ORDERS.get(id(checks))
    if known is None or known[0] is not checks:
        if len(_ORDERS) >= 8:
            _ORDERS.clear()
        known = _ORDERS[id(checks)] = (checks, run_order(checks))
    return known[1]


def run_checks(
    lab: Lab,
    artifacts: Mapping[str, Artifact],
    rubric: Mapping[str, Settings],
    folder: str = "",
) -> list[Outcome]:
    """Run every enabled check in order; never raises for anything a check does."""
    outcomes: dict[str, Outcome] = {}
    for spec in lab.artifacts:
        cid = f"{spec.name}.schema"
        if rubric[cid].get("enabled", True):
            outcomes[cid] = _schema_outcome(artifacts[spec.name], points_of(rubric[cid]))
    done: dict[str, Outcome] = {}
    for chk in _in_order(lab.checks):
        settings = rubric[chk.id]
        if settings.get("enabled", True):
            done[chk.id] = _run_one(chk, artifacts, settings, done, folder)
    outcomes.update((c.id, done[c.id]) for c in lab.checks if c.id in done)
    return list(outcomes.values())


class _Base(TypedDict):
    """What every outcome of one check says, whatever became of it."""

    id: str
    max_points: float
    artifact: str | None
    title_id: str


def _run_one(
    chk: Check,
    artifacts: Mapping[str, Artifact],
    settings: Settings,
    done: Mapping[str, Outcome],
    folder: str,
) -> Outcome:
    points = points_of(settings)
    base: _Base = {
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
                cause=f"{name}.schema",
                **base,
            )
    for prerequisite, kind in chk.prerequisites:
        # a disabled prerequisite (absent from `done`) gates nothing: the instructor
        # turned that question off
        before = done.get(prerequisite)
        if before is not None and before.status == "skipped":  # the same first cause
            return replace(
                before,
                id=chk.id,
                max_points=points,
                artifact=chk.artifact,
                title_id=base["title_id"],
                data={},
            )
        if before is not None and before.status != "passed":
            return Outcome(
                status="skipped",
                points=0,
                message_id=f"engine.skipped.{'check' if kind == 'after' else 'unconfirmed'}",
                params={"check": prerequisite, "title": TitleOf(prerequisite)},
                cause=prerequisite,
                **base,
            )
    ctx = Context(artifacts, settings, chk.id, folder, chk.reads, chk.uses)
    if chk.params:  # what it was judged by, for reports over many results (their charts)
        ctx.data[PARAMS_KEY] = {name: settings[name] for name in chk.params if name in settings}
    try:
        note = chk.run(ctx)
    except Fail as failure:
        return Outcome(
            status="failed",
            points=0,
            message_id=f"{chk.id}.{failure.key}",
            params=failure.params,
            location=failure.at,
            expected=failure.expected,
            found=failure.found,
            data=ctx.data,
            unconfirmed=failure.unconfirmed,
            **base,
        )
    except Exception as exc:  # a check's bug must not take the whole grade down
        return Outcome(
            status="error",
            points=0,
            message_id="engine.error",
            params={"detail": _detail(exc)},
            **base,
        )
    if note is None:
        return Outcome(status="passed", points=points, data=ctx.data, **base)
    return Outcome(
        status="passed",
        points=points,
        message_id=f"{chk.id}.{note.key}",
        params=note.params,
        data=ctx.data,
        unconfirmed=note.unconfirmed,
        **base,
    )


def evidence_of(
    spec: ArtifactSpec, valid: bool, outcomes: Mapping[str, Outcome]
) -> Evidence | None:
    """What backs the numbers of one file of claims (`ArtifactSpec.corroborated_by`):

    - "contradicted": a corroborating check failed (the independent record disagrees);
    - "unconfirmed": one could not run or could not confirm (the record is missing or
      lacks this step: `Note.unconfirmed`, `Fail(..., unconfirmed=True)`), so the
      numbers are neither backed nor refuted;
    - "corroborated": every corroborating check passed;
    - "consistent": the lab declares no corroboration for the file (it can at best agree
      with the other files).

    None for a file that is no claim, or that did not load (nothing to vouch for)."""
    if spec.corroborated_by is None or not valid:
        return None
    if not spec.corroborated_by:
        return "consistent"
    ended = [outcomes[cid] for cid in spec.corroborated_by if cid in outcomes]
    if any(o.status == "failed" and not o.unconfirmed for o in ended):
        return "contradicted"
    if len(ended) < len(spec.corroborated_by) or any(
        o.status != "passed" or o.unconfirmed for o in ended
    ):
        return "unconfirmed"
    return "corroborated"
