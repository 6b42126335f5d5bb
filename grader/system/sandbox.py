"""Enforced isolation while grading, with a PEP 578 audit hook.

The grader's promise — never run the student's code, never open a socket, never write
inside the submission — is kept by construction (nothing calls such things), and this
module makes it *enforced*: while `confined(...)` is active, the hook refuses

- network: socket creation, connect, bind, name lookups;
- processes: subprocess, os.system, exec*, spawn*, fork, posix_spawn;
- writes of any kind: opening for writing, remove, rename, mkdir, chmod, truncate…;
- reads outside the submission, the explicit server-log path, the grader's own
  packages (schemas, rubric, catalogs) and the Python installation (lazy imports);
- running any code from the submission.

No code under the submission may run, however the grader is started (`python -m grader
check .` from inside the submission puts that folder first on `sys.path`), by three
defences, each enough against a stray `jsonschema.pyc` on its own:

1. The entry points take the working directory off `sys.path` before importing anything
   else (`grader.system.syspath`), unless it is the folder the grader itself runs from.
2. While confined (and while preparing, below), an import guard first in
   `sys.meta_path` finds modules as Python would, but never on a `sys.path` entry inside
   the submission or equal to the working directory, and refuses a module whose loader
   would read a file inside the submission, judged by the real path of the file the
   loader will load (`spec.origin`, links resolved), not by the code object's
   `co_filename`, which a sourceless `.pyc` sets to whatever it likes. (Below the
   working directory is fine: a virtual environment under the home folder one grades
   from.)
3. The confined phase imports nothing heavy: what it needs lazily (jsonschema, to
   explain a file the fast validator rejected) is asked for with `prepared(func)`; when
   that happens while confined, `run_confined` leaves the confinement, runs `func` (the
   imports) under the guard, and grades again. A good submission never pays for it.

A refused operation raises `SandboxViolation` (a PermissionError) in the code that tried
it: in a check that is an `error` outcome and grading goes on; in loading it is an
unreadable file. An audit hook cannot be removed, so it is installed once per process
and does nothing outside `confined`. (The hook is no defence against code that already
runs: that is why no code from the submission may ever start.)
"""

from __future__ import annotations

import importlib.machinery
import os
import site
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from typing import TYPE_CHECKING

from grader.system.syspath import grader_root
from grader.words.package_data import package_dirs

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any, TypeVar

    T = TypeVar("T")

_NETWORK = {
    "socket.__new__",
    "socket.connect",
    "socket.bind",
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "socket.gethostbyaddr",
    "socket.sendto",
    "socket.sendmsg",
}
_PROCESS = {
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.startfile",
    "pty.spawn",
    "os.kill",
    "os.killpg",
}
_WRITE = {
    "os.remove",
    "os.rename",
    "os.replace",
    "os.mkdir",
    "os.rmdir",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.utime",
    "shutil.rmtree",
    "shutil.move",
    "os.mkfifo",
    "os.mknod",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_APPEND", 0)


class SandboxViolation(PermissionError):
    """Something tried to do what grading must never do."""


class Unprepared(BaseException):
    """Raised by `prepared(func)` while confined: `func` must run outside first.

    A BaseException, so that no `except Exception` of a parser or a check swallows it on
    its way to `run_confined`, which prepares and grades again.
    """

    def __init__(self, func: Callable[[], Any]) -> None:
        super().__init__(getattr(func, "__qualname__", repr(func)))
        self.func = func


class _State(threading.local):
    """What the hook enforces, in each thread: a program that grades from several
    threads confines each on its own."""

    def __init__(self) -> None:
        self.active = False
        self.read_roots: tuple[str, ...] = ()
        self.submission: str | None = None
        self.forbidden: tuple[str, ...] = ()  # real paths no module may come from (subtrees)
        self.skipped: tuple[str, ...] = ()  # sys.path entries never searched (exact)
        self.finding = False
        self.at_name: str | None = None  # the name `grader.reading.files.open_at` opens now


_state = _State()
_installed = False
_lock = threading.Lock()
_prepared: dict[Callable[[], Any], Any] = {}


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _path(value: Any) -> str | None:
    if isinstance(value, int):
        return None  # an already open descriptor
    try:
        return os.path.abspath(os.fsdecode(value))
    except (TypeError, ValueError):
        return None


def _real(path: str) -> str:
    try:
        return os.path.realpath(path or os.curdir)
    except (OSError, ValueError):
        return os.path.abspath(path or os.curdir)


def _is_write(mode: object, flags: object) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    state = _state
    if not state.active:
        return
    if event in _NETWORK:
        raise SandboxViolation(f"grader sandbox: network access refused ({event})")
    if event in _PROCESS:
        raise SandboxViolation(f"grader sandbox: starting processes refused ({event})")
    if event in _WRITE:
        raise SandboxViolation(f"grader sandbox: writing refused ({event})")
    if event == "open" and args:
        if args[0] == state.at_name and not _is_write(*args[1:3]):
            return  # `grader.reading.files.open_at`: a plain name, relative to an allowed folder
        path = _path(args[0])
        if path is None:
            return
        if _is_write(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None):
            raise SandboxViolation(f"grader sandbox: writing refused ({path})")
        if not _under(path, state.read_roots):
            raise SandboxViolation(
                f"grader sandbox: reading outside the submission refused ({path})"
            )
    elif event in ("compile", "exec") and state.submission:
        # A second opinion only: the import guard is what keeps submission code from
        # loading. compile names the source file; exec carries the code object, whose
        # co_filename a .pyc can forge, so it proves nothing when it looks harmless.
        source = getattr(args[0], "co_filename", None) if event == "exec" else args[1]
        pseudo = not isinstance(source, str) or source.startswith("<")  # "<string>", "<sse.py>"
        filename = None if pseudo else _path(source)
        if filename and _under(_real(filename), state.forbidden):
            raise SandboxViolation(
                f"grader sandbox: running code from the submission refused ({filename})"
            )


class _ImportGuard:
    """First in `sys.meta_path`: finds modules as the finders after it would, never in a
    `sys.path` entry in the submission or equal to the working directory, and refuses a
    module whose loader would load a file inside the submission (by its real path)."""

    @classmethod
    def find_spec(
        cls, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        state = _state
        if not (state.forbidden or state.skipped) or state.finding:
            return None
        state.finding = True
        try:
            spec = _find_elsewhere(name, path, target, state.forbidden, state.skipped)
        finally:
            state.finding = False
        if spec is None:  # not None: that would let the finders after us search unfiltered
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        _vet(name, spec, state.forbidden)
        return spec


def _allowed_entries(
    entries: Iterable[object], forbidden: tuple[str, ...], skipped: tuple[str, ...]
) -> list[object]:
    kept = []
    for entry in entries:
        if isinstance(entry, str):
            real = _real(entry)
            if real in skipped or _under(real, forbidden):
                continue
        kept.append(entry)
    return kept


def _find_elsewhere(
    name: str,
    path: Sequence[str] | None,
    target: ModuleType | None,
    forbidden: tuple[str, ...],
    skipped: tuple[str, ...],
) -> ModuleSpec | None:
    for finder in sys.meta_path:
        if finder is _ImportGuard:
            continue
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        if finder is importlib.machinery.PathFinder:
            entries = sys.path if path is None else path
            spec: ModuleSpec | None = find(
                name, _allowed_entries(entries, forbidden, skipped), target
            )
        else:
            spec = find(name, path, target)
        if spec is not None:
            return spec
    return None


def _vet(name: str, spec: ModuleSpec, forbidden: tuple[str, ...]) -> None:
    places = list(spec.submodule_search_locations or [])
    if spec.origin and getattr(spec, "has_location", False):
        places.append(spec.origin)
    loader_path = getattr(spec.loader, "path", None)
    if isinstance(loader_path, str):
        places.append(loader_path)
    for place in places:
        if isinstance(place, str) and _under(_real(place), forbidden):
            raise SandboxViolation(
                f"grader sandbox: importing {name} from {place} refused (inside the "
                "submission or the working directory)"
            )


def _install() -> None:
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True
        if not sys.meta_path or sys.meta_path[0] is not _ImportGuard:
            if _ImportGuard in sys.meta_path:
                sys.meta_path.remove(_ImportGuard)
            sys.meta_path.insert(0, _ImportGuard)


def _forbidden(submission: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(folders no module may come from, at any depth: the submission; `sys.path`
    entries never searched: the working directory, unless the grader itself runs from
    there, a checkout). Only the working directory itself is skipped, not what lies
    below it: a virtual environment under the home folder one grades from is fine."""
    subtrees = (_real(submission),) if submission is not None else ()
    cwd = _real(os.curdir)
    return subtrees, (cwd,) if cwd != grader_root() else ()


@cache
def _runtime_roots(packages: tuple[str, ...]) -> tuple[str, ...]:
    """Where the grader, the lab and their libraries live: reading these is how imports
    and package data (schemas, rubric, catalogs) work."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for name in packages:
        try:
            roots.update(package_dirs(name))
        except ModuleNotFoundError:
            continue  # not installed: nothing of it to read
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # pragma: no cover - virtualenv's old site module
        pass
    return tuple(sorted(os.path.abspath(r) for r in roots if r))


@contextmanager
def _saved(**values: object) -> Iterator[None]:
    """A `with` block that sets fields of the thread's `_state` and puts back what they
    were however it ends."""
    _install()
    previous = {name: getattr(_state, name) for name in values}
    for name, value in values.items():
        setattr(_state, name, value)
    try:
        yield
    finally:
        for name, value in previous.items():
            setattr(_state, name, value)


def guarded_imports(submission: str | None = None) -> AbstractContextManager[None]:
    """Imports in the body never come from the submission or the working directory."""
    forbidden, skipped = _forbidden(submission)
    return _saved(forbidden=forbidden, skipped=skipped)


def confined(
    submission: str,
    extra_reads: Iterable[str] = (),
    packages: tuple[str, ...] = ("grader", "schemas"),
) -> AbstractContextManager[None]:
    """Run the body with the audit hook enforcing the grading rules in this thread.

    `packages` are the importable packages whose files may be read (the engine's, the
    schemas' and the lab's); `extra_reads` are other files and folders that may be read:
    the files the user named (--server-log), the lab's schema folder.
    """
    folder = os.path.abspath(submission)
    forbidden, skipped = _forbidden(folder)
    return _saved(
        read_roots=(folder, *(os.path.abspath(p) for p in extra_reads), *_runtime_roots(packages)),
        submission=folder,
        forbidden=forbidden,
        skipped=skipped,
        active=True,  # last: the hook enforces nothing until the rest is set
    )


def prepared(func: Callable[[], T]) -> T:
    """What `func` returns (it imports what the confined phase needs), run once per
    process, outside the confinement and under the import guard.

    Called while confined before `func` ever ran, it raises `Unprepared`, which
    `run_confined` answers by running `func` outside and grading again.
    """
    if func in _prepared:
        return _prepared[func]  # type: ignore[no-any-return]
    if _state.active:
        raise Unprepared(func)
    return _prepare(func, None)


def _prepare(func: Callable[[], T], submission: str | None) -> T:
    with guarded_imports(submission):
        value = func()
    _prepared[func] = value
    return value


def run_confined(
    phase: Callable[[], T],
    submission: str,
    extra_reads: Iterable[str] = (),
    packages: tuple[str, ...] = ("grader", "schemas"),
) -> T:
    """`phase()` run confined; what it asks for with `prepared` is prepared outside
    first (imports under the guard, never while confined), then the phase runs again."""
    reads = tuple(extra_reads)
    for _ in range(16):  # each round prepares one more thing; a phase needs one or two
        try:
            with confined(submission, reads, packages):
                return phase()
        except Unprepared as need:
            if need.func not in _prepared:
                _prepare(need.func, submission)
    raise RuntimeError("the confined phase kept asking for preparations")
