"""Finding a batch's submissions under its PATHs, and planning (not extracting) archives.

A folder holds a submission by the rule every command follows (`grader.reading.locate`): it, or
the shallowest folders below it (two levels at most), directly hold at least one of the
lab's files. Each PATH is
- a submission folder (it holds lab files itself): its id is the folder's own name;
- a folder of submissions: each first-level folder is a student's, or a section's, and
  its submissions are found by the same rule, so `PATH/alice/`, `PATH/alice/llm/` and
  `PATH/section-a/alice/` are all found. A first-level folder with no lab files in reach
  is a row "no lab files found", never silently dropped. Archives directly inside PATH
  are planned too, as learning platforms download one archive per student;
- an archive (`.zip`, `.tar.gz`, `.tgz`, `.tar`) holding one submission (files at its
  top) or many (a two-level search inside it), planned by `grader.reading.archives` from its
  member names; its rows are extracted later, a few archives at a time.
`__MACOSX`, `__pycache__` and the `--out` folder itself are skipped, and so are names
starting with `.` below the first level; a first-level folder whose name starts with `.`
(`.alice`) is a student's like any other when it holds lab files (a row, graded), and a
tool's (`.git`) when it holds none (no row). Links are never followed while searching
(a PATH itself may be one): a link to a folder among the first-level entries is a row
saying so, other links are ignored. The same source met twice (a PATH given twice) is
one row.

The texts of the rows are the catalog's (`[batch]` in grader/messages).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from grader.reading.archives import (
    ArchiveCaps,
    ArchiveError,
    ArchivePlan,
    PlannedRow,
    archive_kind,
    archive_stem,
    plan_archive,
)
from grader.reading.locate import Listing, listing, locate
from grader.system.faults import read_failure

Parts = tuple[str, ...]
Say = Callable[..., str]  # say(message_id, **params) -> the sentence in the batch's language


@dataclass(frozen=True)
class Found:
    """One row of the batch before it has an id."""

    parts: Parts  # relative to its PATH (for an archive: its stem, then the inner path)
    source: str  # what the result's `submission` will say
    folder: str | None = None  # a folder to grade (None: an archive row, or an error)
    error: str | None = None
    archive: int | None = None  # index in `Discovery.archives`
    row: Parts | None = None  # its row's parts inside that archive
    root: str | None = None  # the PATH folder it was found below (grading walks from it)


@dataclass
class PlannedArchive:
    """An archive met while searching: its plan, or why it can't be used."""

    path: str
    parts: Parts
    plan: ArchivePlan | None = None
    error: str | None = None


def _join(source: str, parts: Iterable[str]) -> str:
    inner = "/".join(parts)
    return f"{source}/{inner}" if inner else source


class Discovery:
    """Finds the submissions under the PATHs and plans the archives it meets."""

    def __init__(
        self, artifact_names: Iterable[str], skip: Iterable[str], caps: ArchiveCaps, say: Say
    ) -> None:
        self.artifact_order = tuple(artifact_names)
        self.artifacts = frozenset(self.artifact_order)
        self.skip = {os.path.realpath(p) for p in skip}
        self.caps = caps
        self.say = say
        self.found: list[Found] = []
        self.archives: list[PlannedArchive] = []
        self._sources: set[str] = set()

    def listing(self, folder: str, hidden: bool = False) -> Listing:
        return listing(folder, self.artifacts, self.skip, hidden)

    def add(self, found: Found) -> None:
        key = os.path.normpath(found.source)
        if key not in self._sources:
            self._sources.add(key)
            self.found.append(found)

    def no_files(self) -> str:
        return self.say("batch.no_lab_files", files=", ".join(self.artifact_order[:4]))

    def path(self, path: str) -> None:
        """Search one PATH of the command line."""
        if os.path.isdir(path):
            own = os.path.basename(os.path.abspath(path)) or "submission"
            self.folder(path, path, (), own)
        elif os.path.isfile(path) and archive_kind(path):
            self.archive(path, (archive_stem(path),))
        else:
            error = self.say("batch.not_a_submission")
            self.add(Found((os.path.basename(path) or "submission",), path, error=error))

    def folder(self, folder: str, source: str, parts: Parts, own: str) -> None:
        """A PATH folder: a submission, or a folder of them (and of archives)."""
        listing = self.listing(folder, hidden=True)
        if listing.has_artifacts:
            self.add(Found(parts or (own,), source, folder))
            return
        before = len(self.found)
        for name in listing.folders:
            # each first-level folder is a student's (or a section of students'): its
            # submissions are where `grader check` would find them (grader.reading.locate)
            located = locate(os.path.join(folder, name), self.artifacts, self.skip)
            if name.startswith(".") and not located.found:
                continue  # a tool's hidden folder (.git, .ipynb_checkpoints): no student
            for inner in located.found:
                self.add(
                    Found(
                        (*parts, name, *inner),
                        os.path.join(source, name, *inner),
                        located.path(inner),
                        root=folder,
                    )
                )
            if not located.found:
                self.add(Found((*parts, name), os.path.join(source, name), error=self.no_files()))
        for name in listing.links:
            error = self.say("batch.linked_folder")
            self.add(Found((*parts, name), os.path.join(source, name), error=error))
        for name in filter(archive_kind, listing.files):
            self.archive(os.path.join(folder, name), (*parts, archive_stem(name)))
        if len(self.found) == before:
            self.add(Found(parts or (own,), source, error=self.no_files()))

    def archive(self, path: str, parts: Parts) -> None:
        """Plan an archive: one row per submission in it, or one row for its error."""
        number = len(self.archives)
        try:
            plan = plan_archive(path, self.artifacts, self.caps)
        except ArchiveError as exc:
            error = self.say("batch.archive_refused", detail=exc)
            self.archives.append(PlannedArchive(path, parts, error=error))
            self.add(Found(parts, path, error=error, archive=number))
            return
        except OSError as exc:
            error = self.say("batch.archive_refused", detail=read_failure(exc))
            self.archives.append(PlannedArchive(path, parts, error=error))
            self.add(Found(parts, path, error=error, archive=number))
            return
        self.archives.append(PlannedArchive(path, parts, plan))
        if not plan.rows:
            self.add(Found(parts, path, error=self.no_files(), archive=number))
        for row in plan.rows:
            self.add(self._row(path, parts, number, row))

    def _row(self, path: str, parts: Parts, number: int, row: PlannedRow) -> Found:
        source = _join(path, row.parts)
        if not row.is_submission:
            return Found((*parts, *row.parts), source, error=self.no_files(), archive=number)
        return Found((*parts, *row.parts), source, archive=number, row=row.parts)
