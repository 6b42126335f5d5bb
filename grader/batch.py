"""`grader batch PATH... --out DIR`: grade a whole class, in parallel, into a gradebook.

What counts as a submission. A folder is a submission when it directly holds at least one
of the lab's artifact files (`health.json`, `sse_raw.txt`, ...). Each PATH is
- a submission folder: its id is the folder's own name;
- a folder of submissions, searched two levels deep: `PATH/alice/` and
  `PATH/section-a/alice/` are both found (the second level is looked at only in a folder
  that is not a submission itself). A first-level folder with no lab files at either
  level is a row "no lab files found", never silently dropped; deeper folders without lab
  files inside a group are ignored. Archives directly inside PATH are extracted too, as
  learning platforms download one archive per student;
- a `.zip`, `.tar.gz` or `.tgz` archive holding one submission (files at its top) or
  many (the same two-level search inside it).
Names starting with `.`, `__MACOSX`, `__pycache__` and the `--out` folder itself are
skipped. Links are never followed while searching (a PATH itself may be one): a link to
a folder among the first-level entries is a row saying so, other links are ignored.

Ids. The path relative to PATH (for an archive: its name without suffix, then the inner
path), parts joined by `__`, every character other than letters, digits and `-_.+@`
replaced by `_`, never starting with `.` or `-`, at most 150 characters (longer ones end
in a hash), unique even on a case-insensitive file system (`alice`, `alice-2`, in the
order of PATH on the command line, then of the raw paths). Rows are sorted by id.

Archives are extracted safely (`grader.archives`) into `DIR/.extracted-XXXX/`, on the
same file system as the results, and that folder is removed when the batch ends (also on
error or Ctrl-C). A refused or broken archive is a row with the error. The `submission`
field of the result of a submission that came from an archive reads
`<archive path>/<inner path>`, not the temporary folder.

Output, all written atomically (temporary file in the same folder, then `os.replace`):
- `DIR/results/<id>.json`: the result as `grader check --format json` gives it; a
  submission that could not be graded gets a result with `"gradable": false` and the
  reason in `format_errors`.
- `DIR/gradebook.csv`: `id,score,max_score,gradable,error`, then the points of each check
  in the lab's order. A row that could not be graded has empty score and points (so it
  is never mistaken for a zero) and `gradable` false; a disabled check is an empty cell.
- `DIR/summary.json`: counts, score quantiles (linear interpolation) and mean over the
  graded submissions, and per check its pass rate (passed / graded submissions where it
  ran), its counts by status and the ids that failed it (status `failed`) or errored;
  then the archives with what was skipped in them. Fixed key order, no timestamps: the
  same input gives the same bytes, whatever `--jobs`.

Running. `--jobs N` (default: the number of CPUs) worker processes are started once; each
loads the lab and the rubric in its initializer (the lab is imported by name, `checks:LAB`
unless the CLI passes another: the engine never imports a lab itself) and then receives
only paths; each worker writes its result file and sends back one small row. `--jobs 1`
(or a single submission to grade) grades in this process. An exception while grading
one submission is an error row; a worker that dies (crash, OOM kill) breaks the pool:
the submissions that were in flight are graded again one by one, each alone in a fresh
worker, so only the one that kills its worker becomes an error row, and the batch goes
on with a new pool.

`--resume` keeps every `results/<id>.json` that already exists and reads as a result,
without grading that submission again, and puts it in the gradebook as it is (a file
that is not valid JSON or not a result is graded again). Results are trusted as they
are: after changing the rubric or the language, run without `--resume`.

Exit status (`grader.exits`): 0 every submission was graded (whatever the scores), 1 some
submission could not be graded, 2 bad usage (a PATH that does not exist, an unusable
rubric, `--out` that is not a folder), 3 the grader failed on some submission (a check
crashed, a worker died, an exception): those results say `grader_error`.

The progress bar (count, rate, ETA) goes to stderr only when stderr is a terminal, and
not with `--no-progress`; a one-line summary goes to stderr at the end.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import importlib
import io
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TextIO

from grader.archives import (
    DEFAULT_MAX_MEMBERS,
    DEFAULT_MAX_TOTAL_BYTES,
    ArchiveError,
    archive_kind,
    archive_stem,
    extract_archive,
)
from grader.atomic import write_atomic
from grader.visible import visible, visible_data, visible_path

EXIT_ALL_GRADED, EXIT_SOME_NOT_GRADED, EXIT_USAGE, EXIT_GRADER_ERROR = 0, 1, 2, 3
DEFAULT_LAB = "checks:LAB"  # the lab `grader` runs, as cli.py picks it; imported by name
LANGUAGES = ["en", "ja", "ko", "zh"]
STATUSES = ("passed", "failed", "skipped", "error")
RESULT_MAX_BYTES = 64 * 1024 * 1024
_IGNORED = {"__MACOSX", "__pycache__"}
_ID_MAX = 150
_RESERVED = re.compile(r"(con|prn|aux|nul|com\d|lpt\d)(\..*)?", re.IGNORECASE)


# --------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class Task:
    """One row of the batch: what to grade (`folder`) or why it can't be (`error`)."""

    id: str
    folder: str | None
    source: str  # the result's `submission`: the path as found, or archive path/inner path
    error: str | None = None
    archive: int | None = None  # index of the archive it came from


@dataclass(frozen=True)
class _Found:
    order: tuple[int, tuple[str, ...]]
    parts: tuple[str, ...]
    folder: str | None
    source: str
    error: str | None = None
    archive: int | None = None


@dataclass
class _Listing:
    has_artifacts: bool = False
    folders: list[str] = field(default_factory=list)
    archives: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


class _Discovery:
    """Finds the submissions under the PATHs, extracting archives as it meets them."""

    def __init__(
        self,
        artifact_names: Iterable[str],
        skip: Iterable[str],
        extract_root: Callable[[], str],
        archive_caps: dict[str, int],
    ) -> None:
        self.artifact_order = tuple(artifact_names)
        self.artifacts = frozenset(self.artifact_order)
        self.skip = {os.path.realpath(p) for p in skip}
        self.extract_root = extract_root
        self.archive_caps = archive_caps
        self.found: list[_Found] = []
        self.archives: list[dict[str, Any]] = []
        self._index = 0
        self._archive: int | None = None

    def listing(self, folder: str) -> _Listing:
        listing = _Listing()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return listing
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _IGNORED:
                continue
            if entry.name in self.artifacts:
                listing.has_artifacts = True
            elif entry.is_dir(follow_symlinks=False):
                if os.path.realpath(entry.path) not in self.skip:
                    listing.folders.append(entry.name)
            elif entry.is_file(follow_symlinks=False) and archive_kind(entry.name):
                listing.archives.append(entry.name)
            elif entry.is_symlink() and os.path.isdir(entry.path):
                listing.links.append(entry.name)
        return listing

    def add(self, parts: tuple[str, ...], folder: str | None, source: str, error: str | None):
        found = _Found((self._index, parts), parts, folder, source, error, self._archive)
        self.found.append(found)

    def no_files(self) -> str:
        names = ", ".join(self.artifact_order[:4])
        return f"no lab files found (a submission folder holds files such as {names}, ...)"

    def path(self, index: int, path: str) -> None:
        self._index = index
        if os.path.isdir(path):
            own = os.path.basename(os.path.abspath(path)) or "submission"
            self.folder(path, path, (), own, archives=True)
        elif os.path.isfile(path) and archive_kind(path):
            self.archive(path, (archive_stem(path),))
        else:
            error = "not a folder nor a .zip, .tar.gz or .tgz archive"
            self.add((os.path.basename(path) or "submission",), None, path, error)

    def folder(
        self, folder: str, source: str, parts: tuple[str, ...], own: str, *, archives: bool
    ) -> None:
        """A PATH folder or an archive's root: a submission, or a folder of them."""
        listing = self.listing(folder)
        if listing.has_artifacts:
            self.add(parts or (own,), folder, source, None)
            return
        before = len(self.found)
        for name in listing.folders:
            sub, sub_source, sub_parts = (
                os.path.join(folder, name),
                os.path.join(source, name),
                (*parts, name),
            )
            inner = self.listing(sub)
            if inner.has_artifacts:
                self.add(sub_parts, sub, sub_source, None)
                continue
            nested = [n for n in inner.folders if self.listing(os.path.join(sub, n)).has_artifacts]
            for name2 in nested:
                self.add(
                    (*sub_parts, name2),
                    os.path.join(sub, name2),
                    os.path.join(sub_source, name2),
                    None,
                )
            if not nested:
                self.add(sub_parts, None, sub_source, self.no_files())
        for name in listing.links:
            error = "a symbolic link to a folder: the batch does not follow links"
            self.add((*parts, name), None, os.path.join(source, name), error)
        if archives:
            for name in listing.archives:
                self.archive(os.path.join(folder, name), (*parts, archive_stem(name)))
        if len(self.found) == before:
            self.add(parts or (own,), None, source, self.no_files())

    def archive(self, path: str, parts: tuple[str, ...]) -> None:
        number = len(self.archives)
        dest = os.path.join(self.extract_root(), str(number))
        note: dict[str, Any] = {"archive": path}
        self.archives.append(note)
        self._archive = number
        try:
            self._extract(path, dest, parts, note)
        finally:
            self._archive = None

    def _extract(self, path: str, dest: str, parts: tuple[str, ...], note: dict[str, Any]):
        try:
            extracted = extract_archive(path, dest, **self.archive_caps)
        except (ArchiveError, OSError) as exc:
            note.update(extracted=False, error=str(exc), files=0, bytes=0, skipped=[])
            self.add(parts, None, path, f"archive refused: {exc}")
            return
        note.update(
            extracted=True,
            error=None,
            files=extracted.files,
            bytes=extracted.bytes,
            skipped=[{"member": m, "reason": r} for m, r in extracted.skipped],
        )
        self.folder(extracted.root, path, parts, parts[-1], archives=False)


def _safe_part(part: str) -> str:
    text = unicodedata.normalize("NFC", part)
    text = "".join(c if c.isalnum() or c in "-_.+@" else "_" for c in text)
    return text or "_"


def safe_id(parts: Sequence[str]) -> str:
    """A file-system-safe, spreadsheet-safe id from the parts of a relative path."""
    text = "__".join(_safe_part(p) for p in parts) or "_"
    if text[0] in ".-+@":
        text = "_" + text[1:] if text[0] == "." else "_" + text
    if _RESERVED.fullmatch(text):
        text = "_" + text
    if len(text.encode("utf-8")) > _ID_MAX or len(text) > _ID_MAX:
        digest = hashlib.sha256("/".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
        head = text[:100]
        while len(head.encode("utf-8")) > 100:
            head = head[:-1]
        text = f"{head}-{digest[:12]}"
    return text


def assign_ids(found: Iterable[_Found]) -> list[Task]:
    """Unique ids (case-insensitively), given in a fixed order; tasks sorted by id."""
    used: set[str] = set()
    tasks: list[Task] = []
    for item in sorted(found, key=lambda f: f.order):
        base = candidate = safe_id(item.parts)
        n = 2
        while candidate.casefold() in used:
            candidate = f"{base}-{n}"
            n += 1
        used.add(candidate.casefold())
        tasks.append(Task(candidate, item.folder, item.source, item.error, item.archive))
    return sorted(tasks, key=lambda t: t.id)


# --------------------------------------------------------------------------- grading


@dataclass(frozen=True)
class Row:
    """What the gradebook and the summary need of one result."""

    id: str
    gradable: bool
    score: float | None
    max_score: float | None
    error: str
    checks: tuple[tuple[str, str, float], ...] = ()  # (check id, status, points)
    grader_error: bool = False  # the grader failed here (a check crashed, a worker died)


@dataclass
class _Grading:
    lab: Any
    rubric: Any
    lang: str
    results: str


_STATE: dict[str, _Grading] = {}


def load_lab(lab_ref: str) -> tuple[Any, str]:
    """The `Lab` named by "package:attribute" and its package (where its rubric lives)."""
    package, _, attribute = lab_ref.partition(":")
    return getattr(importlib.import_module(package), attribute or "LAB"), package


def load_lab_rubric(lab_ref: str, rubric_path: str | None) -> tuple[Any, Any]:
    """The lab and its rubric (`rubric_path`, or the lab's own); may raise `RubricError`."""
    from grader.rubric import load_lab_rubric

    lab, package = load_lab(lab_ref)
    return lab, load_lab_rubric(lab, rubric_path, package)


def _init_worker(
    lab_ref: str, rubric_path: str | None, lang: str, results: str, in_pool: bool = True
) -> None:
    """Load the lab and the rubric once per worker (and once in-process for --jobs 1)."""
    if in_pool:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    from grader.grade import catalog_for

    lab, rubric = load_lab_rubric(lab_ref, rubric_path)
    _STATE["grading"] = _Grading(lab, rubric, catalog_for(lab, lang).lang, results)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def row_of(task_id: str, data: Any) -> Row | None:
    """The row of a result as JSON data (fresh or read back), None if it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("gradable"), bool):
        return None
    grader_error = data.get("grader_error", False)
    if not isinstance(grader_error, bool):
        return None
    if not data["gradable"]:
        errors = data.get("format_errors")
        if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
            return None
        error = " ".join("; ".join(errors).split()) or "not gradable"
        return Row(task_id, False, None, None, error, grader_error=grader_error)
    score, max_score, found = data.get("score"), data.get("max_score"), data.get("checks")
    if not (_number(score) and _number(max_score) and isinstance(found, list)):
        return None
    checks = []
    for check in found:
        if not isinstance(check, dict):
            return None
        cid, status, points = check.get("id"), check.get("status"), check.get("points")
        if not (isinstance(cid, str) and status in STATUSES and _number(points)):
            return None
        checks.append((cid, status, float(points)))
    return Row(task_id, True, float(score), float(max_score), "", tuple(checks), grader_error)


def result_json(result: Any) -> str:
    """The result as `grader check --format json` writes it: every string visible text
    (`grader.visible`), so it is valid UTF-8 whatever bytes the paths held."""
    from grader.visible import visible_result

    return str(visible_result(result).to_json())


def _with_submission(result: Any, source: str) -> Any:
    if result.submission == source:
        return result
    return dataclasses.replace(result, submission=source)


def _error_result(grading: _Grading, source: str, message: str, grader_error: bool = False) -> Any:
    from grader import __version__
    from grader.result import Result

    return Result.ungradable(
        grader_version=__version__,
        lab=grading.lab.name,
        rubric_version=grading.rubric.version,
        language=grading.lang,
        submission=source,
        errors=[message],
        grader_error=grader_error,
    )


def _save(grading: _Grading, task_id: str, result: Any) -> Row:
    path = os.path.join(grading.results, task_id + ".json")
    text = result_json(result)
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        return Row(task_id, False, None, None, f"could not write {path}: {exc}")
    # the row comes from the JSON written, exactly as --resume will read it back
    return row_of(task_id, json.loads(text)) or Row(
        task_id, False, None, None, "the grader produced a result it can't read back"
    )


def grade_task(task: Task) -> Row:
    """Grade one submission and write its result; never raises for the submission."""
    from grader import grade as grading_module

    grading = _STATE["grading"]
    if task.folder is None:
        return _save(grading, task.id, _error_result(grading, task.source, task.error or "?"))
    try:
        result = grading_module.grade(grading.lab, task.folder, grading.rubric, lang=grading.lang)
    except grading_module.NotGradable as exc:
        result = grading_module.not_gradable(
            grading.lab, task.folder, grading.rubric.version, exc.problem, grading.lang
        )
    except Exception as exc:
        message = f"the grader failed on this submission: {type(exc).__name__}: {exc}"
        result = _error_result(grading, task.source, message, grader_error=True)
    return _save(grading, task.id, _with_submission(result, task.source))


def read_back(results: str, task_id: str) -> Row | None:
    """The row of an existing `results/<id>.json`, or None if it is absent or unusable."""
    try:
        with open(os.path.join(results, task_id + ".json"), "rb") as stream:
            data = stream.read(RESULT_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > RESULT_MAX_BYTES:
        return None
    try:
        return row_of(task_id, json.loads(data))
    except (ValueError, RecursionError):
        return None


def _crashed(task: Task) -> Row:
    grading = _STATE["grading"]
    message = (
        "the worker process grading this submission died (crash or killed, e.g. out of "
        "memory); it was graded alone again and died again"
    )
    return _save(grading, task.id, _error_result(grading, task.source, message, True))


def _failed(task: Task, exc: BaseException) -> Row:
    grading = _STATE["grading"]
    message = f"grading failed: {type(exc).__name__}: {exc}"
    return _save(grading, task.id, _error_result(grading, task.source, message, True))


def _run_pool(
    todo: Sequence[Task],
    jobs: int,
    initargs: tuple[Any, ...],
    on_row: Callable[[Row], None],
    mp_context: Any = None,
) -> None:
    """Grade `todo` on `jobs` workers; a dead worker never ends the batch."""

    def pool(workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=mp_context,
            initializer=_init_worker,
            initargs=initargs,
        )

    pending = deque(todo)
    window = jobs * 4  # enough to keep workers busy; bounds the work a crash puts in doubt
    while pending:
        suspects: list[Task] = []
        with pool(min(jobs, len(pending))) as executor:
            inflight: dict[Future[Row], Task] = {}
            broken = False
            while not broken and (pending or inflight):
                while pending and len(inflight) < window:
                    task = pending.popleft()
                    try:
                        inflight[executor.submit(grade_task, task)] = task
                    except BrokenProcessPool:
                        pending.appendleft(task)
                        broken = True
                        break
                if not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                if not broken:
                    broken = any(isinstance(f.exception(), BrokenProcessPool) for f in done)
                if broken:  # every other future of this pool fails too: collect them all
                    done, _ = wait(inflight)
                for future in done:
                    task = inflight.pop(future)
                    error = future.exception()
                    if isinstance(error, BrokenProcessPool):
                        suspects.append(task)
                    elif error is not None:
                        on_row(_failed(task, error))
                    else:
                        on_row(future.result())
        for task in suspects:  # alone in a fresh worker: only the culprit dies again
            with pool(1) as alone:
                try:
                    on_row(alone.submit(grade_task, task).result())
                except BrokenProcessPool:
                    on_row(_crashed(task))
                except Exception as exc:
                    on_row(_failed(task, exc))


# --------------------------------------------------------------------------- output


def _num(value: float | None) -> str:
    if value is None:
        return ""
    value = round(float(value), 6)
    return str(int(value)) if value.is_integer() else repr(value)


def gradebook_csv(rows: Sequence[Row], check_ids: Sequence[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["id", "score", "max_score", "gradable", "error", *check_ids])
    for row in rows:
        points = {cid: pts for cid, _, pts in row.checks}
        writer.writerow(
            [
                row.id,
                _num(row.score),
                _num(row.max_score),
                "true" if row.gradable else "false",
                visible(row.error),
                *(_num(points.get(cid)) for cid in check_ids),
            ]
        )
    return buffer.getvalue().encode("utf-8")


def _quantile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default, 'inclusive')."""
    position = (len(values) - 1) * q
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def _round(value: float) -> float | int:
    value = round(value, 6)
    return int(value) if value.is_integer() else value


def summary_dict(
    rows: Sequence[Row], check_ids: Sequence[str], archives: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    graded = [r for r in rows if r.gradable]
    scores = sorted(r.score for r in graded if r.score is not None)
    score: dict[str, Any] = dict.fromkeys(("min", "p25", "median", "p75", "max", "mean"))
    if scores:
        score = {
            "min": _round(scores[0]),
            "p25": _round(_quantile(scores, 0.25)),
            "median": _round(_quantile(scores, 0.5)),
            "p75": _round(_quantile(scores, 0.75)),
            "max": _round(scores[-1]),
            "mean": _round(sum(scores) / len(scores)),
        }
    checks: dict[str, Any] = {}
    for cid in check_ids:
        counts = dict.fromkeys(STATUSES, 0)
        failed: list[str] = []
        errored: list[str] = []
        for row in graded:
            status = next((s for c, s, _ in row.checks if c == cid), None)
            if status is None:
                continue
            counts[status] += 1
            if status == "failed":
                failed.append(row.id)
            elif status == "error":
                errored.append(row.id)
        ran = sum(counts.values())
        checks[cid] = {
            "pass_rate": _round(counts["passed"] / ran) if ran else None,
            **counts,
            "failed_ids": failed,
            "error_ids": errored,
        }
    return {
        "submissions": len(rows),
        "graded": len(graded),
        "errors": len(rows) - len(graded),
        "error_ids": [r.id for r in rows if not r.gradable],
        "max_score": _round(max(r.max_score or 0 for r in graded)) if graded else None,
        "score": score,
        "checks": checks,
        "archives": list(archives),
    }


# --------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on a terminal: count/total, rate and time left."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        enabled: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.stream, self.enabled, self.clock = total, stream, enabled, clock
        self.done = 0
        self.start = clock()
        self._last = -1.0
        self._width = 0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self.draw(now)

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        fraction = self.done / self.total if self.total else 1.0
        size = 24
        filled = int(fraction * size)
        bar = "#" * filled + "-" * (size - filled)
        eta = _clock_time(left) if left is not None else "--:--"
        return f"[{bar}] {self.done}/{self.total}  {rate:.1f}/s  ETA {eta}"

    def draw(self, now: float) -> None:
        text = self.line(now)
        columns = shutil.get_terminal_size((80, 20)).columns
        text = text[: max(columns - 1, 10)]
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\n")
            self.stream.flush()


def _clock_time(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


# --------------------------------------------------------------------------- the batch


@dataclass
class BatchReport:
    rows: list[Row]
    resumed: int
    graded_now: int
    seconds: float

    @property
    def exit_code(self) -> int:
        if any(r.grader_error for r in self.rows):
            return EXIT_GRADER_ERROR
        ok = all(r.gradable for r in self.rows)
        return EXIT_ALL_GRADED if ok else EXIT_SOME_NOT_GRADED


def run(
    paths: Sequence[str],
    out: str,
    *,
    jobs: int = 1,
    resume: bool = False,
    rubric_path: str | None = None,
    lang: str = "en",
    progress: bool = False,
    progress_stream: TextIO | None = None,
    max_archive_members: int = DEFAULT_MAX_MEMBERS,
    max_archive_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    mp_context: Any = None,
    lab_ref: str = DEFAULT_LAB,
    html: str | None = None,
) -> BatchReport:
    """Grade every submission under `paths` into `out`; the PATHs must exist and the
    rubric must load (`run_batch` checks both and turns them into exit status 2).

    `lab_ref` names the lab as "package:attribute"; the engine never imports a lab itself.
    """

    started = time.monotonic()
    results = os.path.join(out, "results")
    os.makedirs(results, exist_ok=True)
    extract_dir: list[str] = []

    def extract_root() -> str:
        if not extract_dir:
            extract_dir.append(tempfile.mkdtemp(prefix=".extracted-", dir=out))
        return extract_dir[0]

    caps = {"max_members": max_archive_members, "max_total_bytes": max_archive_bytes}
    _init_worker(lab_ref, rubric_path, lang, results, in_pool=False)
    lab = _STATE["grading"].lab
    finder = _Discovery((a.filename for a in lab.artifacts), [out], extract_root, caps)
    try:
        for index, path in enumerate(paths):
            finder.path(index, path)
        tasks = assign_ids(finder.found)
        rows: dict[str, Row] = {}
        todo: list[Task] = []
        resumed = 0
        for task in tasks:
            row = read_back(results, task.id) if resume else None
            if row is not None:
                rows[task.id] = row
                resumed += 1
            elif task.folder is None:
                rows[task.id] = grade_task(task)
            else:
                todo.append(task)
        bar = Progress(len(todo), progress_stream or sys.stderr, progress and bool(todo))

        def on_row(row: Row) -> None:
            rows[row.id] = row
            bar.advance()

        try:
            if jobs <= 1 or len(todo) <= 1:
                for task in todo:
                    on_row(grade_task(task))
            else:
                initargs = (lab_ref, rubric_path, lang, results)
                _run_pool(todo, jobs, initargs, on_row, mp_context)
        finally:
            bar.close()
        ordered = [rows[t.id] for t in tasks]
        archives = _archive_notes(finder, tasks)
        check_ids = lab.all_check_ids()
        write_atomic(os.path.join(out, "gradebook.csv"), gradebook_csv(ordered, check_ids))
        summary = visible_data(summary_dict(ordered, check_ids, archives))
        text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
        write_atomic(os.path.join(out, "summary.json"), text.encode("utf-8"))
        if html is not None:  # now, while extracted archives still exist for the physics
            from pathlib import Path

            from grader.class_report import write_class_report

            folders = {t.id: t.folder for t in tasks}
            write_class_report(Path(out), Path(html), lang, folders=folders, lab=lab_ref)
    finally:
        if extract_dir:
            shutil.rmtree(extract_dir[0], ignore_errors=True)
    return BatchReport(ordered, resumed, len(todo), time.monotonic() - started)


def _archive_notes(finder: _Discovery, tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """Each archive with the ids of the rows it gave, in the order of those ids."""
    notes = []
    for number, note in enumerate(finder.archives):
        notes.append(
            {
                "archive": note["archive"],
                "ids": [t.id for t in tasks if t.archive == number],
                "extracted": note["extracted"],
                "error": note["error"],
                "files": note["files"],
                "bytes": note["bytes"],
                "skipped": note["skipped"],
            }
        )
    return sorted(notes, key=lambda n: (n["ids"][:1], n["archive"]))


# --------------------------------------------------------------------------- CLI


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_batch_parser(subparsers: Any, lab: str = DEFAULT_LAB) -> argparse.ArgumentParser:
    """Add `batch` to the `grader` command's subparsers; `run_batch(args)` runs it.

    `lab` ("package:attribute") is the lab the command line picked; it reaches
    `run_batch` as `args.lab`, and each worker imports it by that name.
    """
    parser = subparsers.add_parser(
        "batch",
        help="grade many submissions (folders, folders of folders, archives) into a gradebook",
        description=(
            "Grade every submission under the PATHs in parallel and write "
            "DIR/results/<id>.json, DIR/gradebook.csv and DIR/summary.json. "
            "Exit status: 0 all graded, 1 some could not be graded, 2 bad usage, "
            "3 the grader failed on some submission."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a submission folder, a folder of submission folders (two levels deep) or a "
        ".zip / .tar.gz / .tgz archive of one or many submissions",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the results")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="worker processes (default: the number of CPUs; 1 grades in this process)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep results already in DIR/results and grade only the others",
    )
    parser.add_argument(
        "--rubric", metavar="FILE", help="a rubric TOML file (default: the lab's own)"
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="language of the feedback (default: from LC_ALL / LC_MESSAGES / LANG, else en)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="progress bar on stderr when it is a terminal (default: on)",
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write the class report (one HTML page) to FILE; see `grader report`",
    )
    parser.set_defaults(lab=lab)
    return parser


def run_batch(args: argparse.Namespace) -> int:
    """Run `grader batch` from parsed arguments; returns the exit status."""
    from grader.i18n import language_from_environment
    from grader.rubric import RubricError

    lab_ref = getattr(args, "lab", None) or DEFAULT_LAB

    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        print(f"grader batch: no such file or folder: {visible_path(path)}", file=sys.stderr)
    if missing:
        return EXIT_USAGE
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        out = visible_path(args.out)
        print(f"grader batch: --out {out} exists and is not a folder", file=sys.stderr)
        return EXIT_USAGE
    try:
        load_lab_rubric(lab_ref, args.rubric)
    except RubricError as exc:
        print(f"grader batch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        out = visible_path(args.out)
        print(f"grader batch: can't create --out {out}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = run(
            args.paths,
            args.out,
            jobs=args.jobs or os.cpu_count() or 1,
            resume=args.resume,
            rubric_path=args.rubric,
            lang=args.lang or language_from_environment(),
            progress=args.progress and sys.stderr.isatty(),
            lab_ref=lab_ref,
            html=getattr(args, "html", None),
        )
    except KeyboardInterrupt:
        print(
            "\ngrader batch: interrupted; the results written so far are kept "
            "(run again with --resume to go on)",
            file=sys.stderr,
        )
        return 130
    graded = sum(r.gradable for r in report.rows)
    rate = report.graded_now / report.seconds if report.seconds > 0 else 0.0
    print(
        f"grader batch: {len(report.rows)} submissions, {graded} graded, "
        f"{len(report.rows) - graded} could not be graded ({report.resumed} kept from "
        f"--resume); graded {report.graded_now} in {report.seconds:.1f} s ({rate:.1f}/s); "
        f"results in {visible_path(args.out)}",
        file=sys.stderr,
    )
    return report.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.batch PATH... --out DIR`, until `grader batch` is wired."""
    parser = argparse.ArgumentParser(prog="grader")
    add_batch_parser(parser.add_subparsers(dest="command", required=True))
    return run_batch(parser.parse_args(["batch", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
