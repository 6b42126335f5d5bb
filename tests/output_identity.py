"""Every output the grader gives for the bundled samples, by name: the bytes that a change
made for speed must leave exactly as they were.

`outputs()` grades every sample (`sample_submissions/**`, `tests/data/real/**`) in every
language and renders it in every format (the text report also verbose, quiet and in
colour), lists the checks through the command line, and runs `grader batch` (folders
and an archive) with its gradebook, summary, result files and class report. Paths are
relative to the repository, so the bytes are the same wherever it is checked out.

`tests/test_output_identity.py` compares their sha256 with `tests/data/output_digests.json`,
which `scripts/write_output_digests.py` writes from the code as it is: regenerate it only
for a change of the output made on purpose, in a commit of its own that says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIGESTS = ROOT / "tests" / "data" / "output_digests.json"
SAMPLE_ROOTS = ("sample_submissions", "tests/data/real")
LANGUAGES = ("en", "ja", "ko", "zh")
TEXT_VARIANTS = {
    "text": {},
    "text-verbose": {"verbose": True},
    "text-quiet": {"quiet": True},
    "text-color": {"color": True},
    "text-narrow": {"width": 40},
}


def sample_folders() -> list[str]:
    """Every sample submission (a folder holding any file a submission has), relative to
    the repository, sorted."""
    from checks import LAB

    names = {a.filename for a in LAB.artifacts}
    found = []
    for base in SAMPLE_ROOTS:
        for folder, _, files in os.walk(ROOT / base):
            if names & set(files):
                found.append(os.path.relpath(folder, ROOT))
    return sorted(found)


@contextlib.contextmanager
def _in_repository() -> Iterator[None]:
    before = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def check_outputs() -> Iterator[tuple[str, bytes]]:
    """`grader check` of every sample, in every language and format."""
    from checks import LAB
    from grader.engine.grade import catalog_for, grade
    from grader.engine.rubric import load_lab_rubric
    from grader.render import FORMATS, RenderOptions, renderer

    rubric = load_lab_rubric(LAB, None)
    with _in_repository():
        for folder in sample_folders():
            for lang in LANGUAGES:
                result = grade(LAB, folder, rubric, lang=lang)
                catalog = catalog_for(LAB, lang)
                for fmt in sorted(FORMATS):
                    variants = TEXT_VARIANTS if fmt == "text" else {fmt: {}}
                    for variant, options in variants.items():
                        text = renderer(fmt)(result, RenderOptions(catalog, **options))
                        yield f"check/{folder}/{lang}/{variant}", text.encode("utf-8")


def cli_outputs() -> Iterator[tuple[str, bytes]]:
    """What the command line prints: a check in JSON and as text, and the list of checks."""
    from grader.cli.main import main

    commands = {
        "cli/check-json": ["check", "tests/data/real/correct", "--format", "json"],
        "cli/check-text-ja": ["check", "sample_submissions/cache_on_in_prefill", "--lang", "ja"],
        "cli/check-no-folder": ["check", "no/such/folder", "--format", "json"],
        "cli/checks": ["checks"],
    }
    with _in_repository():
        for name, argv in commands.items():
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(argv)
            yield name, f"{status}\n{out.getvalue()}\n{err.getvalue()}".encode()


def _class_zip(path: Path) -> None:
    """The real captures as one archive of a class, members in a fixed order."""
    with zipfile.ZipFile(path, "w") as archive:
        for folder in sorted((ROOT / "tests" / "data" / "real").iterdir()):
            if folder.is_dir():
                for file in sorted(folder.iterdir()):
                    info = zipfile.ZipInfo(
                        f"class/{folder.name}/{file.name}", (2026, 1, 1, 0, 0, 0)
                    )
                    archive.writestr(info, file.read_bytes())


def batch_outputs(jobs: int = 1) -> Iterator[tuple[str, bytes]]:
    """`grader batch` over every sample folder and an archive of the real captures, with
    its class report in two languages: every file it writes. It runs in a copy of the
    samples, from relative paths, so no path of this machine is in the output."""
    from grader.batch.run import run
    from grader.class_report import write_class_report

    before = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for base in SAMPLE_ROOTS:
            shutil.copytree(ROOT / base, work / base)
        _class_zip(work / "class.zip")
        os.chdir(work)
        try:
            run([*SAMPLE_ROOTS, "class.zip"], "out", jobs=jobs, lang="en", html="report.html")
            write_class_report(Path("out"), Path("report.ja.html"), "ja")
        finally:
            os.chdir(before)
        out = work / "out"
        yield "batch/report.en.html", (work / "report.html").read_bytes()
        yield "batch/report.ja.html", (work / "report.ja.html").read_bytes()
        for name in ("gradebook.csv", "summary.json"):
            yield f"batch/{name}", (out / name).read_bytes()
        for result in sorted((out / "results").iterdir()):
            yield f"batch/results/{result.name}", result.read_bytes()


def outputs() -> Iterator[tuple[str, bytes]]:
    yield from check_outputs()
    yield from cli_outputs()
    yield from batch_outputs()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def group(name: str) -> str:
    """The entry of the reference an output counts in: one per sample and language (all
    its formats), one per file of the batch and per command line."""
    if name.startswith("check/"):
        return name.rsplit("/", 1)[0]
    return name


def digests(named: Iterator[tuple[str, bytes]] | None = None) -> dict[str, str]:
    """The reference of `named` (default: every output): per group, the sha256 over its
    outputs' names and bytes, in order."""
    hashes: dict[str, hashlib._Hash] = {}
    for name, data in outputs() if named is None else named:
        h = hashes.setdefault(group(name), hashlib.sha256())
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return {key: h.hexdigest() for key, h in sorted(hashes.items())}


def reference() -> dict[str, str]:
    return json.loads(DIGESTS.read_text("utf-8"))  # type: ignore[no-any-return]
