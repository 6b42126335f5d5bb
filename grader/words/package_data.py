"""Files shipped inside a package (schemas, rubric, catalogs), read by path.

The grader's packages are always plain folders on disk (a wheel, a checkout, or the
folder `grader.pyz` unpacks itself into), and the sandbox allows reading them by path,
so a package's files are read directly from the folder the import system finds for it.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def package_dirs(package: str) -> list[str]:
    """The folders of an importable package, without importing it: an imported
    package's `__path__`, else where `importlib.util.find_spec` finds it."""
    module = sys.modules.get(package)
    if module is not None:
        folders = list(getattr(module, "__path__", None) or ())
    else:
        spec = importlib.util.find_spec(package)
        folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:
        raise ModuleNotFoundError(f"no package named {package!r}", name=package)
    return folders


def package_dir(package: str) -> str:
    """The folder of an importable package, without importing it."""
    return package_dirs(package)[0]


def package_file(package: str, *parts: str) -> str:
    """The path of a file inside a package."""
    return os.path.join(package_dir(package), *parts)


def read_text(package: str, *parts: str) -> str:
    with open(package_file(package, *parts), encoding="utf-8") as handle:
        return handle.read()
