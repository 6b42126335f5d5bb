"""A batch's archives: extracted a few at a time, graded, and deleted before the next.

Every archive was planned while the batch searched its PATHs (`grader.batch.discovery`), so
every row already has its id. Here the archives are taken in that order: each one's
artifact files are extracted (`grader.reading.archives.extract_rows`) into
`--out/.extracted-XXXX/<archive number>/`, its rows are graded, and the folder is
deleted. Small archives (one per student, as learning platforms download them) are
taken a few at a time so that the workers stay busy: an archive joins the group being
extracted while the group holds fewer than 4 submissions per worker and less than
`GROUP_BYTES` on disk; one large archive is a group of its own. So the disk holds at
most one group's artifact files at once, and every byte extracted in the batch counts
against `[limits] batch_archive_bytes`.

A row's note says what its archive held beside its files: the other members (counted,
the first few named), an artifact found twice (the last one was used), names that were
not UTF-8. A row whose files could not be extracted (a corrupt member, the batch's byte
budget spent) is an error row saying why; the archive's other rows are graded.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

from grader.batch.discovery import PlannedArchive
from grader.batch.grading import Task
from grader.batch.outdir import EXTRACTED_PREFIX
from grader.reading.archives import (
    ArchiveCaps,
    ArchiveError,
    ArchivePlan,
    Budget,
    Others,
    PlannedRow,
    RowExtraction,
    extract_rows,
    remove_extracted,
    said_names,
)

if TYPE_CHECKING:
    from grader.engine.lab import Lab
    from grader.reading.limits import Limits

GROUP_BYTES = 64 * 1024 * 1024
Say = Callable[..., str]


def _others_text(say: Say, others: Others) -> str:
    names = ", ".join(said_names(others.names, say))
    if others.count > len(others.names):
        names += ", …"
    return say("batch.note_others", count=others.count, names=names)


def row_note(say: Say, plan: ArchivePlan, row: PlannedRow) -> str:
    """What the row's note says about its archive (empty when nothing is worth saying)."""
    parts = []
    if row.others.count:
        parts.append(_others_text(say, row.others))
    for name, count in sorted(row.duplicates.items()):
        parts.append(say("batch.note_duplicate", file=name, count=count))
    if plan.relaxed_names:
        parts.append(say("batch.note_names"))
    return " ".join(parts)


def with_notes(tasks: Sequence[Task], archives: Sequence[PlannedArchive], say: Say) -> list[Task]:
    """The tasks, each archive row's with its note."""
    rows = {
        (number, row.parts): (entry.plan, row)
        for number, entry in enumerate(archives)
        if entry.plan is not None
        for row in entry.plan.rows
    }
    out = []
    for task in tasks:
        found = (
            rows.get((task.archive, task.row))
            if task.archive is not None and task.row is not None  # (no row without both)
            else None
        )
        if found is not None:
            task = dataclasses.replace(task, note=row_note(say, *found))
        out.append(task)
    return out


class ArchiveRun:
    """Extracts the batch's archives group by group (`groups()`), keeping the numbers
    the summary reports (`summary()`)."""

    def __init__(
        self,
        archives: Sequence[PlannedArchive],
        tasks: Sequence[Task],
        out: str,
        caps: ArchiveCaps,
        lab: Lab,
        limits: Limits,
        budget: Budget,
        say: Say,
        jobs: int,
    ) -> None:
        self.archives = archives
        self.tasks = {n: [t for t in tasks if t.archive == n] for n in range(len(archives))}
        self.out = out
        self.caps = caps
        self.budget = budget
        self.say = say
        self.group_size = max(4 * jobs, 1)
        self.names = {a.filename: a.name for a in lab.artifacts}
        self.max_bytes = {a.filename: limits[a.max_bytes] for a in lab.artifacts}
        self.extracted: dict[int, dict[tuple[str, ...], RowExtraction]] = {}
        self.errors: dict[int, ArchiveError] = {}

    def _ready(
        self, number: int, extraction: dict[tuple[str, ...], RowExtraction] | None
    ) -> list[Task]:
        ready = []
        for task in self.tasks[number]:
            if task.row is None or task.folder is not None or task.error is not None:
                ready.append(task)
                continue
            got = None if extraction is None else extraction.get(task.row)
            if got is None or got.error:
                detail = self.errors.get(number) or (got.error if got else None) or "?"
                error = self.say("batch.not_extracted", detail=detail)
                ready.append(dataclasses.replace(task, error=error))
                continue
            refused = tuple(
                (self.names[file], size, self.max_bytes[file])
                for file, size in sorted(got.too_big.items())
            )
            ready.append(dataclasses.replace(task, folder=got.folder, refused=refused))
        return ready

    def _extract(self, number: int, root: str) -> tuple[list[Task], int]:
        entry = self.archives[number]
        if entry.plan is None or not any(t.row is not None for t in self.tasks[number]):
            return self._ready(number, None), 0
        dest = os.path.join(root, str(number))
        try:
            extraction = extract_rows(entry.plan, dest, self.caps, self.max_bytes, self.budget)
        except ArchiveError as exc:
            self.errors[number] = exc
            return self._ready(number, None), 0
        self.extracted[number] = extraction
        return self._ready(number, extraction), sum(r.bytes for r in extraction.values())

    def groups(self) -> Generator[list[Task], None, None]:
        """Each group's tasks, ready to grade; the group's files are deleted when the
        next group is asked for (and at the end, or on an error)."""
        root = tempfile.mkdtemp(prefix=EXTRACTED_PREFIX, dir=self.out)
        try:
            group: list[Task] = []
            size = 0
            for number in range(len(self.archives)):
                ready, extracted = self._extract(number, root)
                group += ready
                size += extracted
                if sum(t.folder is not None for t in group) >= self.group_size or (
                    size >= GROUP_BYTES
                ):
                    yield group
                    remove_extracted(root)
                    os.mkdir(root)
                    group, size = [], 0
            if group:
                yield group
        finally:
            remove_extracted(root)

    def summary(self) -> list[dict[str, Any]]:
        """Each archive with the ids of its rows and what was (not) extracted from it."""
        notes = []
        for number, entry in enumerate(self.archives):
            plan = entry.plan
            extraction = self.extracted.get(number, {})
            others = plan.others if plan else Others()
            error = self.errors.get(number)
            notes.append(
                {
                    "archive": entry.path,
                    "ids": sorted(t.id for t in self.tasks[number]),
                    "extracted": plan is not None and number not in self.errors,
                    "error": entry.error or (self.say("batch.say", text=error) if error else None),
                    "members": plan.members if plan else 0,
                    "files": sum(len(r.files) for r in extraction.values()),
                    "bytes": sum(r.bytes for r in extraction.values()),
                    "others": {"count": others.count, "names": said_names(others.names, self.say)},
                }
            )
        return sorted(notes, key=lambda n: (n["ids"][:1], n["archive"]))
