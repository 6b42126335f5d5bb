"""The check engine's declarations: what a lab writes its checks with.

A check is a small pure function of a `Context` (the artifacts it declared and its rubric
parameters). It passes by returning (optionally a `Note` to say something anyway) and
fails by raising `Fail` with a catalog message id, the expected and found values and a
location. `grader.engine.runner` runs a lab's checks: it adds one `<artifact>.schema` check per
artifact, skips a check whose inputs did not load or whose prerequisite checks did not
pass (with the reason, instead of failing twice), and turns any other exception into
status `error`, never a crash.

Two kinds of prerequisite, with the same effect and different words for the student:
`after` names checks whose *premise* this one builds on ("the first request missed the
cache" before "the second one hit it"); `confirmed_by` names the checks that *corroborate*
the numbers this one judges (the server's own record agrees with them). A check whose
prerequisite did not pass is skipped and earns no points, so a number nobody could
confirm never scores. Prerequisites are honoured whatever the declaration order
(`run_order`), and a skip propagates: a check after a skipped check is skipped too,
naming the first cause.

A check may also record the measurements it read (`Context.record`), check50's `data`:
whatever reports on many results later reads them from the result, never from the files.
The runner adds, under `data["params"]` (`PARAMS_KEY`), the rubric parameters the check
was judged by, so a class report can draw the thresholds the class was graded with.
Nothing here knows about a particular lab.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.reading.loading import Artifact
from grader.words.problems import Location, Param

if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from grader.engine.params import ParamSpec, Settings
    from grader.words.problems import JSONValue


class Fail(Exception):
    """Raised by a check: what was expected, what was found, where, as a catalog message.

    `key` is relative to the check (`step.check` + `run` → `step.check.run`);
    `params` fill the message's placeholders; `expected` / `found` are short
    language-neutral values (numbers, file names) shown beside the message.
    `unconfirmed`: a corroborating check fails because the record it compares with
    lacks what would confirm the numbers (a log that starts after a restart), not
    because it contradicts them: the numbers earn nothing that depends on them, and the
    result calls them unconfirmed, not contradicted (`grader.engine.runner.evidence_of`).
    """

    def __init__(
        self,
        key: str,
        /,
        *,
        expected: Param = None,
        found: Param = None,
        at: Location | None = None,
        unconfirmed: bool = False,
        **params: Param,
    ) -> None:
        super().__init__(key)
        self.key = key
        self.expected = expected
        self.found = found
        self.at = at
        self.unconfirmed = unconfirmed
        self.params = params


@dataclass(frozen=True)
class Note:
    """Returned by a passing check that has something to say (e.g. "not confirmed").

    `unconfirmed`: the check, a corroborating one, passed only because the record it
    compares with lacks what would confirm the numbers (a log that starts after a
    restart): the numbers it vouches for are then unconfirmed, not corroborated."""

    key: str
    params: dict[str, Param] = field(default_factory=dict)
    unconfirmed: bool = False


@dataclass(frozen=True)
class Check:
    """A check as a lab declares it: stable id, what it reads, what must pass first.

    `reads`: artifacts that must be valid for the check to run; `uses`: artifacts it
    consults when they are valid; `after`: checks whose premise it builds on;
    `confirmed_by`: checks that corroborate the numbers it judges.
    """

    id: str
    run: Callable[[Context], Note | None]
    reads: tuple[str, ...]
    uses: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    confirmed_by: tuple[str, ...] = ()
    # the rubric parameters the check reads, each with its type and range; the rubric
    # validator refuses a rubric that gives others or gives these wrong
    params: Mapping[str, ParamSpec] = field(default_factory=dict)

    @property
    def artifact(self) -> str | None:
        return self.reads[0] if self.reads else None

    @property
    def prerequisites(self) -> tuple[tuple[str, str], ...]:
        """(check id, kind) of every prerequisite, `kind` "after" or "confirmed_by"."""
        return (
            *((c, "after") for c in self.after),
            *((c, "confirmed_by") for c in self.confirmed_by),
        )


def check(
    id: str,
    *,
    reads: Iterable[str],
    uses: Iterable[str] = (),
    after: Iterable[str] = (),
    confirmed_by: Iterable[str] = (),
    params: Mapping[str, ParamSpec] | None = None,
) -> Callable[[Callable[[Context], Note | None]], Check]:
    """Declare a check; the decorated function becomes a `Check` value in its module.

    `params` declares each rubric parameter the check reads (`grader.engine.params`). The
    declaration is checked here (names, not a string that would split into letters; no
    check after itself); that every name exists is checked when the lab is built."""
    names = {"reads": reads, "uses": uses, "after": after, "confirmed_by": confirmed_by}
    for what, value in names.items():
        if isinstance(value, str):
            raise TypeError(f"check {id}: {what} is a tuple of names, not the string {value!r}")
    declared = {what: tuple(value) for what, value in names.items()}
    if id in declared["after"] or id in declared["confirmed_by"]:
        raise ValueError(f"check {id} names itself as its prerequisite")
    if set(declared["reads"]) & set(declared["uses"]):
        raise ValueError(f"check {id} both reads and uses the same artifact")

    def wrap(func: Callable[[Context], Note | None]) -> Check:
        return Check(
            id,
            func,
            declared["reads"],
            declared["uses"],
            declared["after"],
            declared["confirmed_by"],
            params=dict(params or {}),
        )

    return wrap


def collect(*modules: ModuleType) -> tuple[Check, ...]:
    """The checks defined in `modules`, in module order and then definition order."""
    return tuple(v for m in modules for v in vars(m).values() if isinstance(v, Check))


def run_order(checks: Iterable[Check]) -> list[Check]:
    """The checks in an order where every prerequisite runs before its dependents.

    Declaration order is kept wherever the prerequisites allow (a stable topological
    sort), so the order checks run in never depends on anything but their declarations.
    Raises ValueError for a prerequisite that is no check of the lab (a typo would
    otherwise silently disable the gate) or for a cycle.
    """
    declared = list(checks)
    by_id = {c.id: c for c in declared}
    for chk in declared:
        for prerequisite, _ in chk.prerequisites:
            if prerequisite not in by_id:
                raise ValueError(f"check {chk.id} names an unknown prerequisite {prerequisite!r}")
    ordered: list[Check] = []
    placed: set[str] = set()
    visiting: set[str] = set()

    def place(chk: Check) -> None:
        if chk.id in placed:
            return
        if chk.id in visiting:
            raise ValueError(f"check {chk.id} depends on itself through its prerequisites")
        visiting.add(chk.id)
        for prerequisite, _ in chk.prerequisites:
            place(by_id[prerequisite])
        visiting.discard(chk.id)
        placed.add(chk.id)
        ordered.append(chk)

    for chk in declared:
        place(chk)
    return ordered


PARAMS_KEY = "params"
"""The key of a ran check's `data` that holds its rubric parameters (no measurement's)."""


class UndeclaredArtifact(LookupError):
    """A check asked for an artifact it did not declare: a bug of the lab's, reported as
    the check's error (status `error`), never as the student's failure."""


class Context:
    """What a running check may see: the artifacts it declared (`reads`: valid, by the
    engine's guarantee; `uses`: when valid) and its rubric parameters, the bytes' digests,
    and the submission folder as it was named (not resolved: a link to somewhere else is
    not that place). An artifact the check did not declare is refused
    (`UndeclaredArtifact`): what a check depends on is what its declaration says, so the
    engine's skips and the input digest can rely on it."""

    def __init__(
        self,
        artifacts: Mapping[str, Artifact],
        params: Settings,
        check_id: str,
        folder: str = "",
        reads: Iterable[str] = (),
        uses: Iterable[str] = (),
    ):
        self._artifacts = artifacts
        self._params = params
        self._reads = frozenset(reads)
        self._declared = self._reads | frozenset(uses)
        self.check_id = check_id
        self.folder = folder
        self.data: dict[str, JSONValue] = {}

    def _artifact(self, name: str, declared: frozenset[str], kind: str) -> Artifact | None:
        if name not in declared:
            raise UndeclaredArtifact(
                f"check {self.check_id} asked for {name!r}, which it does not declare in {kind}"
            )
        return self._artifacts.get(name)

    def sha256(self, name: str) -> str | None:
        """The sha256 of an artifact's bytes, when its file was read."""
        artifact = self._artifact(name, self._declared, "reads or uses")
        return artifact.raw.sha256 if artifact is not None and artifact.raw is not None else None

    def record(self, **measurements: JSONValue) -> None:
        """Keep measurements in the check's result (JSON values: numbers, strings, lists
        and objects of them), for reports over many results; a failing check keeps what
        it recorded before it failed. `params` is the runner's (`PARAMS_KEY`)."""
        if PARAMS_KEY in measurements:
            raise ValueError(f"check {self.check_id}: {PARAMS_KEY!r} is no measurement's name")
        self.data.update(measurements)

    def __getitem__(self, name: str) -> Any:
        """The value of a valid artifact the check `reads` (the engine made sure it is).

        `Any`: the artifact's parsed value, whose shape its format and schema vouch for
        (JSON as read, or the format's own object); the check knows which it declared."""
        artifact = self._artifact(name, self._reads, "reads")
        assert artifact is not None
        return artifact.value

    def optional(self, name: str) -> Any:
        """The value of an artifact the check `uses` (or reads), or None when it is not
        valid. `Any`, as for `ctx[name]`: the artifact's parsed JSON (or its format's
        object), checked by its schema, not by a type checker."""
        artifact = self._artifact(name, self._declared, "reads or uses")
        return artifact.value if artifact is not None and artifact.status == "valid" else None

    def at(self, name: str, pointer: str = "", line: int | None = None) -> Location:
        """Where a JSON pointer (or a known line) is in an artifact the check declares."""
        artifact = self._artifact(name, self._declared, "reads or uses")
        assert artifact is not None
        return artifact.at(pointer, line)

    def param(self, name: str) -> Any:
        """A threshold from the rubric; a missing one is a rubric error, reported as such.

        `Any`: a TOML value the check's declared `ParamSpec` accepted (a number, an integer,
        a list of them), so the check uses it as the kind it declared."""
        try:
            return self._params[name]
        except KeyError:
            raise KeyError(
                f"the rubric gives check {self.check_id} no parameter {name!r}"
            ) from None
