"""Submission archives (.zip, .tar.gz, .tgz, .tar): planned from their names, then only
the lab's files extracted, each under its cap, without trusting anything in them.

An archive comes from a student or a learning platform, so it is read twice, never
wholly extracted:

1. `plan_archive` reads the member names (a zip's central directory; a tar's headers,
   skipping the data) and finds the submissions in it by the batch's rules: a folder
   that directly holds one of the lab's artifact files, at the top (the archive is one
   submission), one or two levels down. A first-level folder with none is a row "no
   lab files". Everything else is counted, and named (the first few) in its row's note.
2. `extract_rows` then writes only the members that are those artifact files, each to
   `<dest>/<row number>/<file name>` (no path from the archive is ever created), each
   under its own read cap (a member over it is not extracted: grading reports it too
   big, with the size the archive declares), and counts every byte it writes against
   a budget shared by the whole batch.

What costs the whole archive (`ArchiveError`, the archive is one error row): a name with
`..`, an absolute name or a NUL byte (it was crafted), more members or more declared
bytes than the caps, more submissions than `[limits] archive_submissions`, a stream
that can't be read (a corrupt or truncated `.tar.gz`: what follows the break can't be
listed). What costs only its submission (a row error, the others are graded): a zip
member that is corrupt (bad CRC, broken deflate data), encrypted, compressed in a way
Python can't read, or that inflates past its declared size. What costs nothing but a
note: links, devices and FIFOs (never created, named in the note), the same artifact
twice (`tar -r` appends a resubmission: the last one wins, as tar itself does), a name
that claims UTF-8 and is not (`grader.reading.zipnames`). Members are read by
`grader.reading.archive_members`, which checks every name and cap as it goes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from grader.reading.archive_members import (
    ARCHIVE_SUFFIXES,
    ArchiveCaps,
    ArchiveError,
    BudgetExhausted,
    Member,
    MemberError,
    Parts,
    archive_kind,
    archive_stem,
    detail_of,
    safe_parts,
)
from grader.reading.archive_members import (
    members as read_members,
)
from grader.system.faults import OutputError
from grader.words.worded import Worded

__all__ = [  # the batch's and the tests' names, some defined in grader.reading.archive_members
    "ARCHIVE_SUFFIXES",
    "ArchiveCaps",
    "ArchiveError",
    "ArchivePlan",
    "Budget",
    "BudgetExhausted",
    "MemberError",
    "Others",
    "PlannedRow",
    "RowExtraction",
    "Special",
    "archive_kind",
    "archive_stem",
    "copy_counted",
    "extract_rows",
    "plan_archive",
    "remove_extracted",
    "safe_parts",
    "said_names",
]

IGNORED = frozenset({"__MACOSX", "__pycache__"})
SAMPLE_NAMES = 5  # other members named in a row's note, the rest counted

_CHUNK = 1 << 16
_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class Special(str):
    """A member that is never created (a link, a device, a FIFO): it reads as English,
    `"a/b (symbolic link)"`, and `words(say)` says it in the batch's language."""

    name: str
    kind: str

    def __new__(cls, name: str, kind: str) -> Special:
        made = super().__new__(cls, f"{name} ({kind})")
        made.name, made.kind = name, kind
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Special, (self.name, self.kind))

    def words(self, say: Callable[..., str]) -> str:
        kind = say("archive.kind." + self.kind.replace(" ", "_").lower())
        return say("archive.member_kind", name=self.name, kind=kind)


def said_names(names: list[str], say: Callable[..., str]) -> list[str]:
    """Member names as a person reads them, each special member's kind in `say`'s words."""
    return [n.words(say) if isinstance(n, Special) else n for n in names]


@dataclass
class Others:
    """Members of a row that are not extracted: how many, and the first few names."""

    count: int = 0
    names: list[str] = field(default_factory=list)

    def add(self, name: str) -> None:
        self.count += 1
        if len(self.names) < SAMPLE_NAMES:
            self.names.append(name)


@dataclass
class PlannedRow:
    """One row an archive gives: a submission (`files` maps each artifact file name to
    the number of members with that name) or a folder without lab files."""

    parts: Parts
    files: dict[str, int] = field(default_factory=dict)
    others: Others = field(default_factory=Others)  # links and devices say so in the name

    @property
    def is_submission(self) -> bool:
        return bool(self.files)

    @property
    def duplicates(self) -> dict[str, int]:
        return {name: n for name, n in self.files.items() if n > 1}


@dataclass
class ArchivePlan:
    """What `plan_archive` found: the rows, and what belongs to no row."""

    path: str
    rows: list[PlannedRow]
    members: int = 0
    declared_bytes: int = 0
    others: Others = field(default_factory=Others)  # outside every row
    relaxed_names: int = 0  # names that claimed UTF-8 and were not


@dataclass
class RowExtraction:
    """What `extract_rows` wrote for one submission row."""

    folder: str
    files: set[str] = field(default_factory=set)  # artifact file names written
    bytes: int = 0
    too_big: dict[str, int] = field(default_factory=dict)  # file name -> declared size
    error: Worded | None = None  # why the row's files could not be extracted


def _hidden(parts: Parts) -> bool:
    return any(p.startswith(".") or p in IGNORED for p in parts)


# ------------------------------------------------------------------ planning


def _row_of(folder: Parts, rows: Mapping[Parts, PlannedRow]) -> PlannedRow | None:
    """The row a member in `folder` belongs to: the row at its top, first or second level."""
    for depth in (0, 1, 2):
        if depth <= len(folder) and folder[:depth] in rows:
            return rows[folder[:depth]]
    return None


def plan_archive(path: str, artifacts: frozenset[str], caps: ArchiveCaps) -> ArchivePlan:
    """Read the member names of the archive at `path` and find its rows (see above).

    Memory stays proportional to the folders, not the members: members that are not
    extracted are counted per folder (its first two levels), with a few names kept.
    Raises `ArchiveError` when the archive can't be used at all.
    """
    folders: dict[Parts, dict[str, int]] = {}  # folder -> artifact file -> members
    first_level: set[str] = set()
    others: dict[Parts, Others] = {}  # first two levels of a folder -> what is not extracted
    members = declared = 0
    with read_members(path, caps) as (found, relaxed):
        for member in found:
            members += 1
            declared += member.size if member.kind == "file" else 0
            parts = member.parts
            if parts and not _hidden(parts) and (len(parts) > 1 or member.kind == "dir"):
                first_level.add(parts[0])
            if member.kind == "dir" or not parts:
                continue
            folder = parts[:-1]
            if member.kind == "file" and not _hidden(parts):
                if parts[-1] in artifacts and len(parts) <= 3:
                    files = folders.setdefault(folder, {})
                    files[parts[-1]] = files.get(parts[-1], 0) + 1
                    continue
                label = member.name
            else:
                label = member.name if member.kind == "file" else Special(member.name, member.kind)
            others.setdefault(folder[:2], Others()).add(label)
    rows: dict[Parts, PlannedRow] = {}
    if () in folders:  # the archive is one submission: nothing inside is searched
        rows[()] = PlannedRow((), dict(folders[()]))
    else:
        for name in sorted(first_level):
            if (name,) in folders:
                rows[(name,)] = PlannedRow((name,), dict(folders[(name,)]))
                continue
            nested = sorted(f for f in folders if len(f) == 2 and f[0] == name)
            for inner in nested:
                rows[inner] = PlannedRow(inner, dict(folders[inner]))
            if not nested:
                rows[(name,)] = PlannedRow((name,))
    if len(rows) > caps.submissions:
        _too_many(caps)
    plan = ArchivePlan(path, list(rows.values()), members, declared, relaxed_names=relaxed)
    for folder, files in folders.items():  # lab files in a folder that is no row
        if folder not in rows:
            owner = _row_of(folder, rows)
            for name in files:
                (owner.others if owner else plan.others).add("/".join((*folder, name)))
    for key, counted in others.items():
        owner = _row_of(key, rows)
        target = owner.others if owner else plan.others
        target.count += counted.count
        target.names.extend(counted.names[: SAMPLE_NAMES - len(target.names)])
    return plan


def _too_many(caps: ArchiveCaps) -> None:
    raise ArchiveError("archive.submissions", cap=caps.submissions)


# ------------------------------------------------------------------ extracting


class Budget:
    """The bytes the batch's archives may still extract, all archives together."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.used = 0

    def take(self, n: int) -> None:
        self.used += n
        if self.used > self.total:
            raise BudgetExhausted("archive.budget", cap=self.total)


def copy_counted(
    source: IO[bytes], sink: IO[bytes], declared: int, budget: Budget, target: str = ""
) -> int:
    """Copy `source` to `sink`, refusing more than `declared` bytes or the budget.

    This is the byte count that stops a member whose real size is larger than the size
    its header declared (the classic zip bomb), whatever the reading library does. An
    error reading is the member's (`MemberError`); an error writing is ours
    (`OutputError`: a full disk is no student's fault).
    """
    written = 0
    while True:
        try:
            chunk = source.read(_CHUNK)
        except Exception as exc:  # BadZipFile (CRC), zlib.error, EOFError, OSError...
            raise MemberError("archive.member_unreadable", detail=detail_of(exc)) from None
        if not chunk:
            return written
        written += len(chunk)
        if written > declared:
            raise MemberError("archive.inflates", size=declared)
        budget.take(len(chunk))
        try:
            sink.write(chunk)
        except OSError as exc:
            raise OutputError.of(target, exc) from None


def _write_member(member: Member, target: str, budget: Budget) -> int:
    """Extract one member to `target`, replacing an earlier copy (the last one wins)."""
    assert member.open is not None
    partial = target + ".part"
    try:
        fd = os.open(partial, _CREATE, 0o644)
    except OSError as exc:
        raise OutputError.of(partial, exc) from None
    try:
        with os.fdopen(fd, "wb") as sink:
            try:
                source = member.open()
            except MemberError:
                raise
            except Exception as exc:  # a bad local header, an unknown compression...
                raise MemberError("archive.member_unreadable", detail=detail_of(exc)) from None
            with source:
                written = copy_counted(source, sink, member.size, budget, target)
        os.replace(partial, target)
        return written
    except OSError as exc:  # closing or renaming our own file
        raise OutputError.of(target, exc) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(partial)


def extract_rows(
    plan: ArchivePlan,
    dest: str,
    caps: ArchiveCaps,
    max_bytes: Mapping[str, int],
    budget: Budget,
) -> dict[Parts, RowExtraction]:
    """Extract the artifact files of the plan's submission rows into `dest` (created
    here), `dest/<row number>/<file>`; each file over its cap in `max_bytes` (artifact
    file name -> bytes) is left out and reported in `too_big`.

    A member that can't be extracted sets its row's `error`; when the budget runs out,
    every row not yet complete gets that error. Raises `ArchiveError` if the archive
    can no longer be read, `OutputError` if `dest` can't be written.
    """
    rows = {row.parts: row for row in plan.rows if row.is_submission}
    remaining = {parts: sum(row.files.values()) for parts, row in rows.items()}
    out: dict[Parts, RowExtraction] = {}
    try:
        os.makedirs(dest, exist_ok=False)
        for number, parts in enumerate(rows):
            folder = os.path.join(dest, str(number))
            os.mkdir(folder)
            out[parts] = RowExtraction(folder)
    except OSError as exc:
        raise OutputError.of(dest, exc) from None
    exhausted: Worded | None = None
    with read_members(plan.path, caps) as (found, _):
        for member in found:
            parts = member.parts
            if member.kind != "file" or not parts or parts[:-1] not in rows:
                continue
            key, name = parts[:-1], parts[-1]
            if name not in rows[key].files:
                continue
            got = out[key]
            remaining[key] -= 1
            if got.error:
                continue
            if exhausted:
                got.error = exhausted
            elif member.size > max_bytes.get(name, 0):
                got.too_big[name] = member.size
                got.files.discard(name)
                with contextlib.suppress(OSError):  # an earlier copy: the last one wins
                    os.unlink(os.path.join(got.folder, name))
            else:
                got.too_big.pop(name, None)
                try:
                    got.bytes += _write_member(member, os.path.join(got.folder, name), budget)
                    got.files.add(name)
                except MemberError as exc:
                    got.error = MemberError("archive.member_failed", name=member.name, reason=exc)
                except BudgetExhausted as exc:
                    exhausted = got.error = exc
    if exhausted:
        for key, got in out.items():
            if remaining[key] > 0 and not got.error:
                got.error = exhausted
    return out


def remove_extracted(dest: str) -> None:
    """Delete what `extract_rows` wrote (after its rows were graded)."""
    shutil.rmtree(dest, ignore_errors=True)
