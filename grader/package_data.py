"""Files shipped inside a package (schemas, rubric, catalogs), read by path.

`importlib.resources` would do, but importing it pulls in zipfile and the compression
modules, a noticeable part of `grader check`'s start-up; the grader's packages are
always plain folders on disk (a wheel or a checkout), so their files are read directly.
"""

from __future__ import annotations

import importlib.util
import os


def package_dir(package: str) -> str:
    """The folder of an importable package, without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"no package named {package!r}")
    return next(iter(spec.submodule_search_locations))


def package_file(package: str, *parts: str) -> str:
    """The path of a file inside a package."""
    return os.path.join(package_dir(package), *parts)


def read_text(package: str, *parts: str) -> str:
    with open(package_file(package, *parts), encoding="utf-8") as handle:
        return handle.read()
