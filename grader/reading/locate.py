"""Where a submission's files are: one rule for `check`, `batch` and Gradescope.

A folder *holds* a submission when it directly holds at least one of the lab's files
(the names its `Lab.artifacts` declare). A folder that holds none is searched below, up
to `DEPTH` levels: students upload `llm/` (or `voice/llm/`) as often as the files
themselves, and a grader that gives 0 to the folder around a correct submission is
wrong. The shallowest level where some folder holds lab files is the answer:

- one folder there: that is the submission (`files_in` says where, for the report);
- several: the folder holds several submissions, which `grader check` refuses to guess
  between and `grader batch` grades one by one;
- none: there is nothing to grade, everywhere (an empty folder is not "score 0").

Names starting with `.`, `__MACOSX` and `__pycache__` are skipped, links are never
followed while searching, and the search looks at no more than `MAX_FOLDERS` folders, so
a hostile tree of a million folders costs a bounded time.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field

DEPTH = 2
"""How many levels below a folder its submission's files are looked for."""
MAX_FOLDERS = 200
"""Folders looked at below one submission folder before the search gives up."""
IGNORED = ("__MACOSX", "__pycache__")
"""Folders that archive tools and Python leave behind; never a submission."""

Parts = tuple[str, ...]


@dataclass
class Listing:
    """What one folder holds, as the search sees it (sorted names, links apart)."""

    has_artifacts: bool = False
    folders: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def ignored(name: str) -> bool:
    return name.startswith(".") or name in IGNORED


def listing(
    folder: str, names: Collection[str], skip: Collection[str] = (), hidden: bool = False
) -> Listing:
    """The lab files, subfolders, other files and links to folders directly in `folder`
    (an unreadable folder lists as empty). `skip` holds real paths never to enter;
    `hidden`: list names starting with `.` too (a batch's first level, where every
    folder is a student's)."""
    found = Listing()
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if entry.name in IGNORED or (not hidden and entry.name.startswith(".")):
            continue
        if entry.name in names:
            found.has_artifacts = True
        elif entry.is_dir(follow_symlinks=False):
            if not skip or os.path.realpath(entry.path) not in skip:
                found.folders.append(entry.name)
        elif entry.is_symlink():
            if os.path.isdir(entry.path):
                found.links.append(entry.name)
        elif entry.is_file(follow_symlinks=False):
            found.files.append(entry.name)
    return found


@dataclass(frozen=True)
class Located:
    """The folders below `folder` holding lab files, at the shallowest level that has any:
    `[()]` when `folder` itself holds them, `[]` when no folder does."""

    folder: str
    found: list[Parts]
    complete: bool = True
    """False when the search stopped at `MAX_FOLDERS` before it had looked everywhere."""

    def path(self, parts: Parts) -> str:
        return os.path.join(self.folder, *parts)


def locate(
    folder: str, names: Collection[str], skip: Collection[str] = (), depth: int = DEPTH
) -> Located:
    """Search `folder` for its submission(s), breadth first, `depth` levels down."""
    level: list[Parts] = [()]
    seen = 0
    for _ in range(depth + 1):
        listings = {parts: listing(os.path.join(folder, *parts), names, skip) for parts in level}
        hits = [parts for parts in level if listings[parts].has_artifacts]
        if hits:
            return Located(folder, hits)
        level = [(*parts, name) for parts in level for name in listings[parts].folders]
        seen += len(level)
        if seen > MAX_FOLDERS:
            return Located(folder, [], complete=False)
        if not level:
            break
    return Located(folder, [])
