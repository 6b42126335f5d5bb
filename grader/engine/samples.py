"""A lab's bundled sample submissions: where they are, and which names there are.

A lab declares where its samples live relative to its package's folder (`Lab.samples`):
an installed wheel ships a copy inside the package, a checkout keeps them beside it. The
first folder that exists is the lab's samples folder, so `grader check --sample correct`
grades the same files on a student's pod (a wheel installed with pip or pipx) as in a
clone of the project.
"""

from __future__ import annotations

import os

from grader.engine.lab import Lab
from grader.reading.locate import ignored
from grader.words.package_data import package_dir


def samples_folder(lab: Lab) -> str | None:
    """The folder holding the lab's bundled samples, or None when it ships none."""
    here = package_dir(lab.package)
    for relative in lab.samples:
        folder = os.path.normpath(os.path.join(here, relative))
        if os.path.isdir(folder):
            return folder
    return None


def sample_names(lab: Lab) -> list[str]:
    """The names `--sample` takes: the sample folders directly in the samples folder
    (groups of samples, such as `derived/`, are folders of folders and not listed)."""
    folder = samples_folder(lab)
    if folder is None:
        return []
    names = {spec.filename for spec in lab.artifacts}
    found = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if ignored(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        with os.scandir(entry.path) as inside:
            if any(item.name in names for item in inside):
                found.append(entry.name)
    return found


def sample_folder(lab: Lab, name: str) -> str | None:
    """The folder of the bundled sample `name`, or None when there is no such sample."""
    folder = samples_folder(lab)
    if folder is None or name not in sample_names(lab):
        return None
    return os.path.join(folder, name)
