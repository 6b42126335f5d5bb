"""`grader gradescope-zip --out FILE`: the autograder zip Gradescope's "Configure
Autograder" takes, built by the grader itself rather than by a copied shell recipe.

The zip holds, at its root (where Gradescope looks), `setup.sh` and `run_autograder`
(`grader/platforms/gradescope/`, executable), the grader and its lab as one wheel, and
the rubric when `--rubric` names one (`rubric.toml`, which `run_autograder` then
grades by). Gradescope unpacks it into `/autograder/source`; `setup.sh` makes a virtual
environment `/autograder/venv` and installs the wheel into it with pip (its
dependencies from the package index, or from a `wheelhouse/` folder of wheels added to
the zip), so the image's own Python is never touched, whatever PEP 668 says of it.

The wheel is written here with the standard library from the packages this grader runs
from (the engine, the lab's package, the package of the lab's schemas), whether they are
a checkout or an installed wheel: a wheel is a zip of the package files plus
`*.dist-info/` (METADATA, WHEEL, entry_points.txt, RECORD), and pip installs one
without building anything. The samples the lab ships are left out: grading does not read
them. The same inputs give the same bytes (the members' times are fixed).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

from grader import __version__
from grader.cli.commands import LAB, LANG, Command, arg
from grader.system.exits import EXIT_NOT_GRADED, EXIT_PASSED
from grader.system.output import say
from grader.words.package_data import package_dir, package_file

if TYPE_CHECKING:
    from grader.cli.commands import Arguments
    from grader.engine.lab import Lab

COMMAND = Command(
    "gradescope-zip",
    "help.gradescope_zip.summary",
    (
        arg("--out", metavar="FILE", required=True, help="help.gradescope_zip.out"),
        arg("--rubric", metavar="FILE", help="help.gradescope_zip.rubric"),
        LANG,
        LAB,
    ),
    description="help.gradescope_zip.description",
)

REQUIRES = (
    "jsonschema>=4.18",
    "referencing>=0.28",
    "pydantic>=2.5,<3",
    'tomli>=2.0; python_version < "3.11"',
)
"""The grader's dependencies, as pyproject.toml declares them (a test keeps them equal)."""
REQUIRES_PYTHON = ">=3.10"
SCRIPTS = ("setup.sh", "run_autograder")
DATE = (1980, 1, 1, 0, 0, 0)
"""Every member's time: the zip is the same bytes for the same grader and rubric."""
_SKIPPED_DIRS = frozenset(("__pycache__",))
_SKIPPED_SUFFIXES = (".pyc", ".pyo")


def _top(module: str) -> str:
    return module.split(".", 1)[0].split(":", 1)[0]


def packages(lab: Lab) -> list[str]:
    """The top-level packages the wheel holds: the engine's, the lab's, its schemas'."""
    names = ["grader", _top(lab.package)]
    schemas = getattr(lab.schemas, "package", None)
    if schemas:
        names.append(_top(schemas))
    return list(dict.fromkeys(names))


def _excluded_dirs(lab: Lab) -> set[str]:
    """The lab's bundled samples inside its package (an installed wheel's copy)."""
    here = os.path.normpath(package_dir(lab.package))
    return {os.path.normpath(os.path.join(here, relative)) for relative in lab.samples}


def package_files(lab: Lab) -> Iterator[tuple[str, str]]:
    """(name in the wheel, path on disk) of every file of the wheel's packages, sorted."""
    excluded = _excluded_dirs(lab)
    for name in packages(lab):
        top = os.path.normpath(package_dir(name))
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in _SKIPPED_DIRS and os.path.join(folder, d) not in excluded
            )
            for file in sorted(files):
                if file.endswith(_SKIPPED_SUFFIXES):
                    continue
                path = os.path.join(folder, file)
                relative = os.path.relpath(path, top).replace(os.sep, "/")
                yield f"{name}/{relative}", path


def distribution_name(lab: Lab) -> str:
    """The wheel's distribution: the one that registered the lab, normalized."""
    from grader.engine.labs import installed

    for point in installed():
        if point.name == lab.name:
            return point.distribution.replace("-", "_")
    return "firsttoken_grader"


def _metadata(dist: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {dist}",
        f"Version: {__version__}",
        "Summary: Offline lab grader (built by grader gradescope-zip)",
        f"Requires-Python: {REQUIRES_PYTHON}",
        *(f"Requires-Dist: {r}" for r in REQUIRES),
    ]
    return "\n".join(lines) + "\n"


def _entry_points(lab: Lab) -> str:
    value = f"{lab.package}:LAB"
    from grader.engine.labs import installed

    for point in installed():
        if point.name == lab.name:
            value = point.value
    scripts = "[console_scripts]\ngrader = grader.cli.main:console\n"
    return f"{scripts}\n[grader.labs]\n{lab.name} = {value}\n"


def zip_info(name: str, mode: int = 0o644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | mode) << 16
    return info


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def sample_files(lab: Lab) -> Iterator[tuple[str, str]]:
    """(name in the wheel, path on disk) of the lab's bundled samples, as an installed
    wheel holds them (`<package>/samples/<sample>/<file>`): the samples `--sample`
    takes, each sample's own files, not the groups of test samples."""
    from grader.engine.samples import sample_names, samples_folder

    folder = samples_folder(lab)
    if folder is None:
        return
    package = lab.package.replace(".", "/")
    for sample in sample_names(lab):
        for entry in sorted(os.scandir(os.path.join(folder, sample)), key=lambda e: e.name):
            if entry.is_file(follow_symlinks=False) and not entry.name.startswith("."):
                yield f"{package}/samples/{sample}/{entry.name}", entry.path


def members(lab: Lab, samples: bool = False) -> list[tuple[str, bytes]]:
    """The wheel's members, name and bytes, RECORD last (with the bundled samples when
    `samples`)."""
    dist = distribution_name(lab)
    info_dir = f"{dist}-{__version__}.dist-info"
    found: list[tuple[str, bytes]] = []
    files = [*package_files(lab), *(sample_files(lab) if samples else ())]
    for name, path in files:
        with open(path, "rb") as handle:
            found.append((name, handle.read()))
    found += [
        (f"{info_dir}/METADATA", _metadata(dist).encode()),
        (
            f"{info_dir}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: grader gradescope-zip\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n",
        ),
        (f"{info_dir}/entry_points.txt", _entry_points(lab).encode()),
    ]
    record = "\n".join([*(_record_line(n, d) for n, d in found), f"{info_dir}/RECORD,,"])
    found.append((f"{info_dir}/RECORD", record.encode() + b"\n"))
    return found


def wheel(lab: Lab) -> tuple[str, bytes]:
    """The wheel's file name and bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members(lab):
            archive.writestr(zip_info(name), data)
    return f"{distribution_name(lab)}-{__version__}-py3-none-any.whl", buffer.getvalue()


def autograder_zip(lab: Lab, rubric_text: bytes | None) -> bytes:
    """The autograder zip: the two scripts, the wheel, the rubric if one was given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for script in SCRIPTS:
            path = package_file("grader", "platforms", "gradescope", script)
            with open(path, "rb") as handle:
                archive.writestr(zip_info(script, 0o755), handle.read())
        name, data = wheel(lab)
        archive.writestr(zip_info(name), data)
        if rubric_text is not None:
            archive.writestr(zip_info("rubric.toml"), rubric_text)
    return buffer.getvalue()


def run(args: Arguments) -> int:
    """Write the zip to `--out`; exit 2 when the rubric is unusable or it can't be written."""
    from grader.engine.grade import catalog_for
    from grader.engine.labs import choose
    from grader.engine.params import points_of
    from grader.engine.rubric import RubricError, load_lab_rubric
    from grader.system.faults import write_output
    from grader.words.i18n import language_from_environment

    lab = choose(args.lab)
    catalog = catalog_for(lab, args.lang or language_from_environment())
    try:
        rubric = load_lab_rubric(lab, args.rubric)  # refused here, not on Gradescope
    except RubricError as exc:
        say(exc.text(catalog))
        return EXIT_NOT_GRADED
    rubric_text = None
    if args.rubric is not None:
        with open(args.rubric, "rb") as handle:
            rubric_text = handle.read()
    write_output(args.out, autograder_zip(lab, rubric_text))
    total = sum(
        points_of(entry) for entry in rubric.settings().values() if entry.get("enabled", True)
    )
    say(
        catalog.text("cli.gradescope_zip.written", {"path": args.out, "total": f"{total:g}"})
        or args.out
    )
    return EXIT_PASSED
