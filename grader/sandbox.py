"""Enforced isolation while grading, with a PEP 578 audit hook.

The grader's promise — never run the student's code, never open a socket, never write
inside the submission — is kept by construction (nothing calls such things), and this
module makes it *enforced*: while `confined(...)` is active, the hook refuses

- network: socket creation, connect, bind, name lookups;
- processes: subprocess, os.system, exec*, spawn*, fork, posix_spawn;
- writes of any kind: opening for writing, remove, rename, mkdir, chmod, truncate…;
- reads outside the submission, the explicit server-log path, the grader's own
  packages (schemas, rubric, catalogs) and the Python installation (lazy imports);
- importing any module whose file lies in the submission folder.

A refused operation raises `SandboxViolation` (a PermissionError) in the code that tried
it: in a check that is an `error` outcome and grading goes on; in loading it is an
unreadable file. An audit hook cannot be removed, so it is installed once per process
and does nothing outside `confined`.
"""

from __future__ import annotations

import importlib.util
import os
import site
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

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


class _State(threading.local):
    def __init__(self) -> None:
        self.active = False
        self.read_roots: tuple[str, ...] = ()
        self.submission: str | None = None


_state = _State()
_installed = False
_lock = threading.Lock()


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _path(value: Any) -> str | None:
    if isinstance(value, int):
        return None  # an already open descriptor
    try:
        return os.path.abspath(os.fsdecode(value))
    except (TypeError, ValueError):
        return None


def _is_write(mode: Any, flags: Any) -> bool:
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
        path = _path(args[0])
        if path is None:
            return
        if _is_write(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None):
            raise SandboxViolation(f"grader sandbox: writing refused ({path})")
        if not _under(path, state.read_roots):
            raise SandboxViolation(
                f"grader sandbox: reading outside the submission refused ({path})"
            )
    elif event in ("import", "compile", "exec") and state.submission:
        # import names the file when it knows it; compile and exec always carry it (in the
        # code object for exec), which catches an import from source and any exec.
        source = (
            getattr(args[0], "co_filename", None)
            if event == "exec"
            else (args[1] if len(args) > 1 else None)
        )
        pseudo = not isinstance(source, str) or source.startswith("<")  # "<string>", "<sse.py>"
        filename = None if pseudo else _path(source)
        if filename and _under(filename, (state.submission,)):
            raise SandboxViolation(
                f"grader sandbox: running code from the submission refused ({filename})"
            )


def _install() -> None:
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True


@cache
def _runtime_roots(packages: tuple[str, ...]) -> tuple[str, ...]:
    """Where the grader, the lab and their libraries live: reading these is how imports
    and package data (schemas, rubric, catalogs) work."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for name in packages:
        spec = importlib.util.find_spec(name)
        roots.update(spec.submodule_search_locations or [] if spec else [])
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # pragma: no cover - virtualenv's old site module
        pass
    return tuple(sorted(os.path.abspath(r) for r in roots if r))


@contextmanager
def confined(
    submission: str,
    extra_reads: Iterable[str] = (),
    packages: tuple[str, ...] = ("grader", "schemas"),
) -> Iterator[None]:
    """Run the body with the audit hook enforcing the grading rules in this thread.

    `packages` are the importable packages whose files may be read (the engine's, the
    schemas' and the lab's); `extra_reads` are files the user named (--server-log).
    """
    _install()
    folder = os.path.abspath(submission)
    previous = (_state.active, _state.read_roots, _state.submission)
    _state.read_roots = (
        folder,
        *(os.path.abspath(p) for p in extra_reads),
        *_runtime_roots(packages),
    )
    _state.submission = folder
    _state.active = True
    try:
        yield
    finally:
        _state.active, _state.read_roots, _state.submission = previous
