"""`grader pyz --out grader.pyz`: the grader as one file that any Python 3.10+ runs,
for a pod whose Python is "externally managed" (PEP 668: Debian 12, Ubuntu 24.04),
where `pip install --user` stops and pipx is not there.

`python3 grader.pyz check` needs nothing installed: a zip application (PEP 441, what
`python3 -m zipapp` writes) holding the grader, its lab and the lab's bundled samples,
and a `__main__.py` that uses the standard library alone. `grader check` imports no
dependency on any path (a file that fails its schema is explained by
`grader.reading.schema_explain` where jsonschema is absent); `tests/test_pyz.py` runs the file
with `python3 -I -S`, a Python that sees no site-packages at all.

The grader reads its own files (catalogs, schemas, rubric, samples) by path, so the
`__main__.py` first unpacks the application into a folder of its own, once per build:
`$GRADER_PYZ_CACHE`, else `$XDG_CACHE_HOME/firsttoken-grader/<build>`, else
`~/.cache/firsttoken-grader/<build>` (a temporary folder of the user's when the home
can't be written), written beside and renamed into place, so two first runs at once
both end with a whole copy. `<build>` is the digest of the members, so a new
`grader.pyz` never runs an old copy.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from typing import TYPE_CHECKING

from grader.cli.commands import LAB, LANG, Command, arg
from grader.cli.gradescope import members, zip_info
from grader.system.exits import EXIT_PASSED
from grader.system.output import say

if TYPE_CHECKING:
    from grader.cli.commands import Arguments
    from grader.engine.lab import Lab

COMMAND = Command(
    "pyz",
    "help.pyz.summary",
    (arg("--out", metavar="FILE", required=True, help="help.pyz.out"), LANG, LAB),
    description="help.pyz.description",
)

MAIN = '''\
"""grader.pyz: unpack once into a cache folder, then run the grader from it."""
import os
import sys
import tempfile
import zipfile

BUILD = "{build}"


def _folder():
    named = os.environ.get("GRADER_PYZ_CACHE")
    if named:
        return named
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "firsttoken-grader", BUILD)


def _unpack(archive, folder):
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".unpacking-", dir=parent)
    with zipfile.ZipFile(archive) as application:
        for name in application.namelist():
            if name != "__main__.py":
                application.extract(name, staging)
    try:
        os.rename(staging, folder)
    except OSError:  # another first run finished first: its copy is the same
        import shutil

        shutil.rmtree(staging, ignore_errors=True)


def main():
    archive = os.path.abspath(sys.argv[0])
    folder = _folder()
    if not os.path.isdir(folder):
        try:
            _unpack(archive, folder)
        except OSError:
            folder = os.path.join(
                tempfile.gettempdir(), "firsttoken-grader-%d" % os.getuid(), BUILD
            )
            if not os.path.isdir(folder):
                _unpack(archive, folder)
    sys.path[:] = [folder] + [p for p in sys.path if os.path.abspath(p or ".") != archive]
    from grader.cli.main import console

    return console()


if __name__ == "__main__":
    sys.exit(main())
'''


def application(lab: Lab) -> bytes:
    """The zip application's bytes: `__main__.py` first, then the wheel's members
    (with the lab's samples), after the `#!` line that lets it run as a command."""
    found = members(lab, samples=True)
    digest = hashlib.sha256()
    for name, data in found:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    buffer = io.BytesIO()
    buffer.write(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(buffer, "w") as archive:
        main = MAIN.replace("{build}", digest.hexdigest()[:16])
        archive.writestr(zip_info("__main__.py"), main.encode())
        for name, data in found:
            archive.writestr(zip_info(name), data)
    return buffer.getvalue()


def run(args: Arguments) -> int:
    """Write grader.pyz to `--out` (executable)."""
    import os

    from grader.engine.grade import catalog_for
    from grader.engine.labs import choose
    from grader.system.faults import write_output
    from grader.words.i18n import language_from_environment

    lab = choose(args.lab)
    write_output(args.out, application(lab))
    os.chmod(args.out, 0o755)
    catalog = catalog_for(lab, getattr(args, "lang", None) or language_from_environment())
    params = {"path": args.out, "file": os.path.basename(args.out), "sample": lab.sample or ""}
    say(catalog.text("cli.pyz.written", params) or args.out)
    return EXIT_PASSED
