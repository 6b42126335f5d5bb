"""Grading one submission: folder → artifacts → outcomes → `Result`.

This is the pure function at the heart of the grader: it reads only the declared files
(once each), runs the checks, and builds the result in one language. It never writes,
never runs the student's code and gives equal results for equal input.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping

from grader import __version__
from grader.engine.digest import input_digest
from grader.engine.lab import Lab
from grader.engine.result import (
    STATUSES,
    ArtifactResult,
    CheckResult,
    ProblemResult,
    Result,
    ResultLocation,
    Summary,
)
from grader.engine.rubric import Rubric
from grader.engine.runner import Outcome, evidence_of, hint_ids, run_checks
from grader.reading.files import open_folder
from grader.reading.limits import Limits
from grader.reading.loading import (
    Artifact,
    ArtifactSpec,
    Read,
    decode,
    parse_decoded,
    read,
    released,
)
from grader.reading.locate import locate
from grader.system.sandbox import run_confined
from grader.words.i18n import Catalog
from grader.words.problems import Location, Param, Problem


class NotGradable(Exception):
    """The submission as a whole can't be graded (no folder, no lab files); `problem` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message_id)
        self.problem = problem


def check_folder(folder: str) -> None:
    """Raise `NotGradable` unless `folder` is a folder the grader may read."""
    if not os.path.isdir(folder):
        key = "engine.not_a_folder" if os.path.exists(folder) else "engine.no_folder"
        raise NotGradable(Problem(key, {"folder": folder}))
    if not os.access(folder, os.R_OK | os.X_OK):
        problem = Problem(
            "engine.unreadable_folder", {"folder": folder, "error": "permission denied"}
        )
        raise NotGradable(problem)


def find_files(
    lab: Lab,
    folder: str,
    overrides: Mapping[str, str],
    refused: Mapping[str, Problem] | None = None,
) -> tuple[str, str | None]:
    """The folder whose files are graded, and where it is below `folder` (None: `folder`
    itself), by the one rule of every command (`grader.reading.locate`); raises `NotGradable`
    when `folder` holds no lab files in reach, or several submissions."""
    check_folder(folder)
    names = [spec.filename for spec in lab.artifacts]
    located = locate(folder, names)
    if located.found == [()]:
        return folder, None
    if len(located.found) == 1:
        return located.path(located.found[0]), "/".join(located.found[0])
    if located.found:
        shown = ", ".join(f"{'/'.join(parts)}/" for parts in located.found[:4])
        more = ", …" if len(located.found) > 4 else ""
        params: dict[str, Param] = {
            "folder": folder,
            "count": len(located.found),
            "found": shown + more,
        }
        raise NotGradable(Problem("engine.several_submissions", params))
    if overrides or refused:  # files given one by one, or known and refused, are the submission
        return folder, None
    files = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
    key = "engine.no_lab_files" if located.complete else "engine.too_many_folders"
    raise NotGradable(Problem(key, {"folder": folder, "files": files}))


def open_files(
    folder: str, files: str, files_in: str | None, root: str | None = None
) -> int | None:
    """A descriptor of the folder whose files are graded (`find_files` gave `files`, and
    `files_in` below `folder`), taken once per submission (`grader.reading.files.open_folder`):
    `root` (a batch's PATH, which `folder` was found below) or else `folder`, as the
    user named it, then the folders below it without following a link. Raises
    `NotGradable` when it can't be opened (a folder swapped for a link since the search)."""
    base = folder if root is None else root
    relative = os.path.relpath(files, base)
    inner = () if relative == os.curdir else tuple(relative.split(os.sep))
    if os.pardir in inner:  # `root` is not above `files` after all: from `folder`
        base, inner = folder, tuple(files_in.split("/")) if files_in else ()
    try:
        return open_folder(base, inner)
    except OSError as exc:
        params: dict[str, Param] = {"folder": files, "error": exc.strerror or str(exc)}
        raise NotGradable(Problem("engine.unreadable_folder", params)) from None


def _read_within(
    spec: ArtifactSpec,
    folder: str,
    overrides: Mapping[str, str],
    limits: Limits,
    refused: Mapping[str, Problem] | None,
    total: int,
    dir_fd: int | None = None,
) -> Read:
    """Read one artifact's bytes under the caps, `total` bytes of the submission being
    read already (a file past `submission_bytes` is refused unread)."""
    if refused and spec.name in refused:
        return Read(spec.filename, None, refused[spec.name], "refused")
    if total > limits.submission_bytes:
        problem = Problem(
            "file.submission_too_big",
            {"limit": limits.submission_bytes},
            Location(spec.filename),
        )
        return Read(spec.filename, None, problem, "refused")
    return read(spec, folder, limits, overrides.get(spec.name), dir_fd)


def read_artifacts(
    lab: Lab,
    folder: str,
    overrides: Mapping[str, str],
    limits: Limits,
    refused: Mapping[str, Problem] | None = None,
    dir_fd: int | None = None,
) -> dict[str, Read]:
    """Read every artifact's bytes (unparsed), in the lab's order, under the caps, keeping
    of each only its facts (`loading.released`): what the input digest is computed from.

    `refused` gives artifacts already known to be unreadable, with the reason (a member
    of an archive over its cap, never extracted).
    """
    check_folder(folder)
    got: dict[str, Read] = {}
    total = 0
    for spec in lab.artifacts:
        one = released(_read_within(spec, folder, overrides, limits, refused, total, dir_fd))
        total += one.raw.size if one.raw else 0
        got[spec.name] = one
    return got


def load_each(
    lab: Lab,
    folder: str,
    overrides: Mapping[str, str],
    limits: Limits,
    refused: Mapping[str, Problem] | None = None,
    dir_fd: int | None = None,
) -> tuple[dict[str, Read], dict[str, Artifact]]:
    """Read, decode and parse every artifact, one file after the other: the whole input
    of grading (the `Read`s, bytes let go) and the artifacts.

    One file at a time, its bytes dropped as soon as they are decoded and hashed, so a
    near-cap submission never holds all its files' bytes at once, nor a file's bytes beside
    its text while it is parsed. A file whose spec says `parse_last` keeps its text until
    every other file is parsed (parsing is pure: only the memory's peak moves).
    `dir_fd`: a descriptor of `folder` (`open_files`), every file is opened relative to it.
    """
    check_folder(folder)
    got: dict[str, Read] = {}
    artifacts: dict[str, Artifact] = {}
    last: list[tuple[ArtifactSpec, Read, str | Problem | None]] = []
    total = 0
    for spec in lab.artifacts:
        one, text = decode(_read_within(spec, folder, overrides, limits, refused, total, dir_fd))
        total += one.raw.size if one.raw else 0
        got[spec.name] = one
        if spec.parse_last:
            last.append((spec, one, text))
        else:
            artifacts[spec.name] = parse_decoded(spec, one, text, limits)
        del text  # the next file's bytes are read without this one's text beside them
    for spec, one, text in last:
        artifacts[spec.name] = parse_decoded(spec, one, text, limits)
    return got, {spec.name: artifacts[spec.name] for spec in lab.artifacts}


def load_artifacts(
    lab: Lab,
    folder: str,
    overrides: Mapping[str, str],
    limits: Limits,
    refused: Mapping[str, Problem] | None = None,
) -> dict[str, Artifact]:
    """Load every artifact the lab declares from `folder` (or its override path)."""
    limits = limits.with_lab_defaults(lab.limits)
    return load_each(lab, folder, overrides, limits, refused)[1]


def digest_of(lab: Lab, rubric: Rubric, lang: str, got: Mapping[str, Read]) -> str:
    """The input digest of a result: what it depends on, and nothing else (no path)."""
    return input_digest(
        __version__,
        lab.name,
        rubric.sha256,
        lang,
        ((spec.name, got[spec.name]) for spec in lab.artifacts),
    )


def submission_digest(
    lab: Lab,
    folder: str,
    rubric: Rubric,
    lang: str,
    *,
    overrides: Mapping[str, str] | None = None,
    refused: Mapping[str, Problem] | None = None,
    root: str | None = None,
) -> str | None:
    """The input digest `grade` would give this submission, without grading it (for
    `--resume`); None when the folder can't be graded at all (`root`: as `grade`'s)."""
    try:
        found, found_in = find_files(lab, folder, overrides or {}, refused)
        dir_fd = open_files(folder, found, found_in, root)
        try:
            limits = rubric.make_limits(lab.limits)
            got = read_artifacts(lab, found, overrides or {}, limits, refused, dir_fd)
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
    except NotGradable:
        return None
    return digest_of(lab, rubric, Catalog(lang, ()).lang, got)


def _location(loc: Location | None) -> ResultLocation | None:
    if loc is None:
        return None
    return ResultLocation(file=loc.file, line=loc.line, column=loc.column, pointer=loc.pointer)


def _first_text(catalog: Catalog, keys: tuple[str, ...], params: Mapping[str, Param]) -> str | None:
    """The text of the first of `keys` the catalog has."""
    for key in keys:
        text = catalog.text(key, params)
        if text is not None:
            return text
    return None


def _check_result(outcome: Outcome, catalog: Catalog) -> CheckResult:
    failed = outcome.status == "failed"
    params = {"expected": outcome.expected, "found": outcome.found, **outcome.params}
    return CheckResult(
        id=outcome.id,
        title=catalog.text(outcome.title_id, {"file": outcome.params.get("file", "")})
        or outcome.id,
        status=outcome.status,
        points=outcome.points,
        max_points=outcome.max_points,
        message=catalog.text(outcome.message_id, params),
        hint=_first_text(catalog, hint_ids(outcome), params) if failed else None,
        explanation=catalog.text(f"{outcome.id}.explain", params) if failed else None,
        artifact=outcome.artifact,
        location=_location(outcome.location),
        expected=outcome.expected,
        found=outcome.found,
        message_id=outcome.message_id,
        data=dict(outcome.data),
        cause=outcome.cause,
    )


def _artifact_result(
    artifact: Artifact, catalog: Catalog, outcomes: Mapping[str, Outcome]
) -> ArtifactResult:
    return ArtifactResult(
        name=artifact.name,
        file=artifact.file,
        status=artifact.status,
        sha256=artifact.raw.sha256 if artifact.raw else None,
        bytes=artifact.raw.size if artifact.raw else None,
        problems=[
            ProblemResult(
                message=catalog.text(p.message_id, p.params) or p.message_id,
                message_id=p.message_id,
                location=_location(p.location),
            )
            for p in artifact.problems
        ],
        evidence=evidence_of(artifact.spec, artifact.status == "valid", outcomes),
    )


def catalog_for(lab: Lab, lang: str) -> Catalog:
    """The catalog a lab's grading speaks: the lab's own messages first, so a lab words
    its checks and may reword any of the engine's, then the engine's."""
    return Catalog(lang, (lab.messages_package, "grader"))


def grade(
    lab: Lab,
    folder: str,
    rubric: Rubric,
    *,
    lang: str = "en",
    overrides: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    refused: Mapping[str, Problem] | None = None,
    root: str | None = None,
) -> Result:
    """Grade the submission in `folder` (or in the one folder below it that holds its files,
    `grader.reading.locate`); raises `NotGradable` when there is no submission to grade.

    `refused`: artifacts known to be unreadable before grading, with the reason (see
    `read_artifacts`). `root`: a folder above `folder` the user named (a batch's PATH),
    from which every folder down to the files is opened without following a link
    (`open_files`); by default `folder` is the one named.
    """
    overrides = overrides or {}
    limits = (limits or rubric.make_limits()).with_lab_defaults(lab.limits)
    packages = ("grader", lab.messages_package)
    roots = (lab.schemas.folder,) if lab.schemas is not None else ()
    catalog = catalog_for(lab, lang)
    files, files_in = find_files(lab, folder, overrides, refused)
    dir_fd = open_files(folder, files, files_in, root)  # once: every file is read from it

    def confined_phase() -> tuple[dict[str, Read], dict[str, Artifact], list[Outcome]]:
        # The cyclic collector is paused while the files are loaded and checked, and
        # resumed after (if it ran before), whatever happens. A grade loads values that
        # live until its result is built (a near-cap log's hundred thousand records)
        # and makes garbage that reference counting frees: what the collector can find
        # is a few dozen objects in cycles (measured on every sample, near the caps and
        # on hostile files). Its full collections walk every value alive, so they took
        # 7 % of a near-cap grade, 18 % with every figure of the log distinct (three of
        # 50 ms), to free nothing. The cycles are collected once it resumes; the peak
        # memory near the caps does not move.
        collecting = gc.isenabled()
        gc.disable()
        try:
            got, artifacts = load_each(lab, files, overrides, limits, refused, dir_fd)
            outcomes = run_checks(lab, artifacts, rubric.settings(), os.path.abspath(files))
        finally:
            if collecting:
                gc.enable()
        return got, artifacts, outcomes

    try:
        got, artifacts, outcomes = run_confined(
            confined_phase, files, (*overrides.values(), *roots), packages
        )
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    counts = {s: sum(o.status == s for o in outcomes) for s in STATUSES}
    by_id = {o.id: o for o in outcomes}
    return Result(
        grader_version=__version__,
        lab=lab.name,
        rubric_version=rubric.version,
        language=catalog.lang,
        submission=folder,
        gradable=True,
        score=sum(o.points for o in outcomes),
        max_score=sum(o.max_points for o in outcomes),
        summary=Summary(**counts),
        checks=[_check_result(o, catalog) for o in outcomes],
        artifacts=[_artifact_result(artifacts[a.name], catalog, by_id) for a in lab.artifacts],
        grader_error=counts["error"] > 0,
        input_digest=digest_of(lab, rubric, catalog.lang, got),
        files_in=files_in,
    )


def not_gradable(lab: Lab, folder: str, rubric_version: str, problem: Problem, lang: str) -> Result:
    """The result for a submission that could not be graded at all (PrairieLearn's sense)."""
    catalog = catalog_for(lab, lang)
    return Result.ungradable(
        grader_version=__version__,
        lab=lab.name,
        rubric_version=rubric_version,
        language=catalog.lang,
        submission=folder,
        errors=[catalog.text(problem.message_id, problem.params) or problem.message_id],
    )
