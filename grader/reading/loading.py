"""Artifacts: declared by a lab, loaded from a submission folder, validated once.

A lab declares each file it reads as an `ArtifactSpec` with a parser; the engine loads
every declared file exactly once into an `Artifact` whose status is one of
valid / invalid / missing / refused, with its problems located in the file. Checks only
ever see artifacts, never paths: nothing downstream re-reads a file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grader.reading.files import RawFile, Refused, read_file, without_bytes
from grader.reading.limits import Limits
from grader.reading.text import TextError, decode_utf8
from grader.system.sandbox import prepared
from grader.words.problems import Location, Problem

if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Literal

    from grader.reading.schema import SchemaRef
    from grader.words.problems import JSONValue

    Status = Literal["valid", "invalid", "missing", "refused"]


@dataclass
class Parsed:
    """What a parser made of a file's text: a value, its problems, and a line locator."""

    value: Any
    problems: list[Problem] = field(default_factory=list)
    line_of: Callable[[str], int | None] = lambda pointer: None


Parser = Callable[[str, str, Limits], Parsed]
"""(text, file name, limits) -> Parsed. Must not raise for any text."""

EACH = ("document", "line", "event")
"""What a parser's schema describes: the whole file, each line, each event of a stream."""


def with_format(parse: Parser, schema: SchemaRef, each: str) -> Parser:
    """Mark `parse` as reading files whose `each` (one of `EACH`) is valid against
    `schema` (a `SchemaRef`), so `grader explain` can show the format it checks."""
    if each not in EACH:
        raise ValueError(f"each is one of {EACH}, not {each!r}")
    parse.file_format = (schema, each)  # type: ignore[attr-defined]
    return parse


def format_of(parse: Parser) -> tuple[SchemaRef, str] | None:
    """(schema, what it describes) of a parser marked by `with_format`, else None."""
    return getattr(parse, "file_format", None)


@dataclass(frozen=True)
class ArtifactSpec:
    """One file a lab reads: its short name (the check-id prefix), file name and parser,
    and the name of the limit that caps its bytes (the engine's `file_bytes`, or one of
    the lab's own limits).

    `measure`, when given, picks from a valid file's value the measurements that reports
    over many results need (JSON values by name); they travel in the result, as the
    `data` of the file's `<name>.schema` check, so nothing ever reads the file again.

    `parse_last`: the file is read and decoded in its place (the caps count it there)
    but parsed after every other file. For a small file whose parse briefly needs many
    times its size (a compiler's parse): that peak then comes once the large files' texts are
    gone, instead of leaving the memory it frees scattered beside them while they are
    read and parsed. The artifacts still come in the lab's order.

    `corroborated_by`: for a file of claimed measurements, the checks that compare its
    numbers with an independent record of the run (the server's own log), so the result
    can say whether they were corroborated, contradicted or left unconfirmed
    (`grader.engine.runner.evidence_of`); `()` for claims nothing independent can back (at best
    consistent with the other files); None for a file that is no claim (a record, a
    program).
    """

    name: str
    filename: str
    parser: Parser
    max_bytes: str = "file_bytes"
    measure: Callable[[Any], Mapping[str, JSONValue]] | None = None
    parse_last: bool = False
    corroborated_by: tuple[str, ...] | None = None


@dataclass
class Artifact:
    """One loaded file. `value` is set only when `status` is valid."""

    spec: ArtifactSpec
    file: str
    status: Status
    raw: RawFile | None = None
    value: Any = None
    problems: list[Problem] = field(default_factory=list)
    line_of: Callable[[str], int | None] = lambda pointer: None

    @property
    def name(self) -> str:
        return self.spec.name

    def at(self, pointer: str = "", line: int | None = None) -> Location:
        """Location of a JSON pointer (or a known line) in this artifact."""
        if line is None and pointer:
            line = self.line_of(pointer)
        return Location(self.file, line, None, pointer or None)


def _locate(problem: Problem, file: str, line_of: Callable[[str], int | None]) -> Problem:
    """Fill in file and line for a problem that knows only its pointer."""
    loc = problem.location or Location(file)
    line = (
        loc.line
        if loc.line is not None
        else (line_of(loc.pointer) if loc.pointer is not None else None)
    )
    return replace(problem, location=Location(file, line, loc.column, loc.pointer or None))


@dataclass(frozen=True)
class Read:
    """What reading one artifact's file gave, before any parsing: its bytes, or the
    problem that kept it unread (missing, refused). The input digest is made of these."""

    file: str
    raw: RawFile | None
    problem: Problem | None = None
    status: Status = "valid"  # "missing" or "refused" when there are no bytes


def read(
    spec: ArtifactSpec,
    folder: str,
    limits: Limits,
    path: str | None = None,
    dir_fd: int | None = None,
) -> Read:
    """Read one artifact's bytes; never raises. `path` overrides its place (--server-log);
    `dir_fd`: a descriptor of `folder` (`grader.reading.files.open_folder`), the file is opened
    relative to it."""
    file = spec.filename if path is None else os.path.basename(path) or path
    try:
        if path is None and dir_fd is not None:
            raw = read_file(spec.filename, limits[spec.max_bytes], dir_fd=dir_fd)
        elif path is None:
            raw = read_file(os.path.join(folder, spec.filename), limits[spec.max_bytes])
        else:
            raw = read_file(path, limits[spec.max_bytes], follow=True)
    except Refused as refusal:
        return Read(file, None, _locate(refusal.problem, file, lambda p: None), "refused")
    if raw is None:
        where = folder if dir_fd is None else dir_fd
        similar = _similar(where, spec.filename) if path is None else None
        if similar is not None:
            problem = Problem("file.missing_similar", {"file": file, "similar": similar})
            return Read(file, None, problem, "missing")
        return Read(file, None, Problem("file.missing", {"file": file}), "missing")
    return Read(file, raw)


def _similar(folder: str | int, filename: str) -> str | None:
    """A name in `folder` a student probably meant as `filename` (`Data.json`,
    `data.json.txt`, `dtaa.json`), if there is one: said in the message, never read."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for _, e in zip(range(1000), entries, strict=False)]
    except OSError:
        return None
    lowered = {name.lower(): name for name in names}
    if filename.lower() in lowered:
        return lowered[filename.lower()]
    starts = [n for n in names if n.lower().startswith(filename.lower())]
    if starts:
        return sorted(starts)[0]
    difflib = prepared(_difflib)
    close = difflib.get_close_matches(filename.lower(), list(lowered), n=1, cutoff=0.8)
    return lowered[close[0]] if close else None


def _difflib() -> ModuleType:
    """difflib, imported outside the confinement (`sandbox.prepared`) the first time a
    folder lacks a file: a complete submission never imports it."""
    import difflib

    return difflib


def decode(got: Read) -> tuple[Read, str | Problem | None]:
    """What `read` gave, with its bytes let go, and their text (or the problem that they
    are no UTF-8 text; None when nothing was read).

    Once decoded and hashed, nothing needs a file's bytes again (the result and the input
    digest keep only its sha256 and size, and nothing downstream re-reads a file), so the
    returned `Read` holds none (`files.without_bytes`): a near-cap submission is not kept
    twice, as bytes and as text, while it is parsed and checked.
    """
    if got.raw is None:
        return got, None
    try:
        text: str | Problem = decode_utf8(got.raw.data, got.file)
    except TextError as error:
        text = error.problem
    return released(got), text


def released(got: Read) -> Read:
    """`got` with its bytes let go (`files.without_bytes`), its facts kept."""
    if got.raw is None:
        return got
    return Read(got.file, without_bytes(got.raw), got.problem, got.status)


def parse_decoded(
    spec: ArtifactSpec, got: Read, text: str | Problem | None, limits: Limits
) -> Artifact:
    """The artifact made of what `decode` gave; never raises."""
    file, raw = got.file, got.raw
    if raw is None:
        problems = [got.problem] if got.problem is not None else []
        return Artifact(spec, file, got.status, problems=problems)
    if not isinstance(text, str):
        return Artifact(spec, file, "invalid", raw, problems=[text] if text else [])
    try:
        parsed = spec.parser(text, file, limits)
    except (RecursionError, MemoryError, ValueError) as exc:  # parser bugs on hostile input
        problem = Problem(
            "file.unparseable", {"file": file, "error": type(exc).__name__}, Location(file)
        )
        return Artifact(spec, file, "invalid", raw, problems=[problem])
    problems = [_locate(p, file, parsed.line_of) for p in parsed.problems]
    status: Status = "invalid" if problems else "valid"
    return Artifact(
        spec,
        file,
        status,
        raw,
        parsed.value if status == "valid" else None,
        problems,
        parsed.line_of,
    )


def parse(spec: ArtifactSpec, got: Read, limits: Limits) -> Artifact:
    """The artifact made of what `read` gave; never raises. (The caller's `got` still holds
    the bytes while the file is parsed: `decode` first, then `parse_decoded`, lets them go.)"""
    released, text = decode(got)
    return parse_decoded(spec, released, text, limits)


def load(spec: ArtifactSpec, folder: str, limits: Limits, path: str | None = None) -> Artifact:
    """Load one artifact; never raises. `path` overrides the file's place (e.g. --server-log)."""
    return parse(spec, read(spec, folder, limits, path), limits)
