"""What a cold `grader check DIR --format json` imports: the lean check path, held.

The lab platform runs this command once per submission, so its start is most of its
cost (issue 13: within 4x the interpreter's own start). Each module below is there
because the check path needs it; a new one of ours, or one of the heavy modules the
check path was freed of, shows here as a regression (say why in the list if it is
needed now).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.conftest import ROOT

CHECK_PATH = {
    "checks",
    "checks.assignment",
    "checks.cache",
    "checks.cancel",
    "checks.coverage",
    "checks.evidence",
    "checks.formats",
    "checks.formats.chat_stream",
    "checks.formats.llama_log",
    "checks.formats.llama_log_events",
    "checks.formats.llama_log_lines",
    "checks.formats.llama_log_model",
    "checks.formats.llama_log_story",
    "checks.formats.llama_log_text",
    "checks.formats.server_log",
    "checks.log",
    "checks.log_intact",
    "checks.measures",
    "checks.numbers",
    "checks.prefill",
    "checks.report",
    "checks.samples",
    "checks.fingerprint",
    "checks.runs",
    "checks.sentence",
    "checks.server",
    "checks.source",
    "checks.story",
    "checks.stream",
    "checks.submission",
    "checks.ttft",
    "grader",
    "grader.system.atomic",
    "grader.cli.main",
    "grader.system.output",
    "grader.cli.commands",
    "grader.cli.describe",
    "grader.cli.parser",
    "grader.engine.digest",
    "grader.engine.api",
    "grader.system.exits",
    "grader.system.faults",
    "grader.reading.files",
    "grader.cli",
    "grader.engine",
    "grader.reading",
    "grader.system",
    "grader.words",
    "grader.reading.sse",
    "grader.engine.grade",
    "grader.words.i18n",
    "grader.reading.jsonload",
    "grader.reading.jsontext",
    "grader.engine.lab",
    "grader.engine.labs",
    "grader.reading.limits",
    "grader.reading.loading",
    "grader.reading.locate",
    "grader.words.package_data",
    "grader.engine.params",
    "grader.reading.parsers",
    "grader.reading.pysource",
    "grader.words.problems",
    "grader.render",
    "grader.render.json",
    "grader.words.wrap",  # the commands' summaries, wrapped when `grader --help` lists them
    "grader.engine.result",
    "grader.engine.rubric",
    "grader.engine.runner",
    "grader.system.sandbox",
    "grader.reading.schema",
    "grader.reading.schema_fast",
    "grader.system.syspath",
    "grader.reading.text",
    "grader.words.tomlfile",
    "grader.words.visible",
    "grader.words.worded",
}
"""Our modules a cold `grader check --format json` of a complete submission imports."""

NOT_ON_THE_CHECK_PATH = (
    "pydantic",  # the rubric file's and result's models: only for schema generation
    "jsonschema",  # only to explain a file the fast validator rejected
    "referencing",
    "pathlib",  # the sample registry's builder
    "difflib",  # only for a misspelt file name or rubric key
    # not "dataclasses", "inspect", "ast": the value classes are dataclasses (issue 27)
    "shutil",  # argparse's formatters ask grader.cli.parser.terminal_columns instead
    # not "typing": every module takes TYPE_CHECKING from it, as Python code normally does
    "string",  # catalog messages are filled by str.format_map
    "zipfile",
    "tarfile",
    "csv",
    "grader.batch.run",  # the other commands and the other formats
    "grader.reading.archives",
    "grader.export",
    "grader.class_report",
    "grader.cli.explain",
    "grader.render.text",
    "grader.render.markdown",
    "grader.render.junit",
    "grader.render.gradescope",
    "grader.render.prairielearn",
)

_COLD_CHECK = """
import sys
started = set(sys.modules)  # the interpreter's own, and an editable install's finder's
import io, json  # the check path imports these itself
from grader.cli.main import main
stdout, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO())  # no contextlib: the list
status = main(["check", sys.argv[1], "--format", "json"])
sys.stdout = stdout
modules = sorted(set(sys.modules) - started)
print(json.dumps({"status": status, "modules": modules}))
"""


def _cold_check() -> dict[str, Any]:
    """A cold check of the real correct capture: its exit status, the modules it
    imported beyond those the interpreter starts with, and the patterns `re`'s compiler
    compiled (by the file that asked)."""
    folder = ROOT / "tests" / "data" / "real" / "correct"
    proc = subprocess.run(
        [sys.executable, "-c", _COLD_CHECK, str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cold_check_modules() -> tuple[int, list[str]]:
    out = _cold_check()
    return out["status"], out["modules"]


def test_a_cold_json_check_imports_exactly_the_check_paths_modules_of_ours() -> None:
    status, modules = _cold_check_modules()
    assert status == 0
    ours = {m for m in modules if m.split(".")[0] in ("grader", "checks", "schemas")}
    assert ours == CHECK_PATH


_METADATA = """
import sys, json
started = set(sys.modules)
import importlib.metadata
print(json.dumps(sorted(set(sys.modules) - started)))
"""


def _metadata_modules() -> set[str]:
    """What `import importlib.metadata` imports in a fresh interpreter: the price of
    finding the installed labs (`grader.engine.labs`) the standard way, paid by every command."""
    proc = subprocess.run(
        [sys.executable, "-c", _METADATA], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_a_cold_json_check_imports_no_other_command_format_or_heavy_library() -> None:
    _, modules = _cold_check_modules()
    heavy = [
        m
        for m in set(modules) - _metadata_modules()
        if m in NOT_ON_THE_CHECK_PATH
        or m.startswith(tuple(f"{name}." for name in NOT_ON_THE_CHECK_PATH))
    ]
    assert heavy == []
