"""`grader prairielearn`: PrairieLearn's external-grader entry point.

PrairieLearn's "External Grading" guide lays a grading job out under `/grade`: the
student's files in `/grade/student`, the job's result read from
`/grade/results/results.json`, which the grader writes (PrairieLearn does not make the
`results` folder). So the entry point (a question's `externalGradingOptions.entrypoint`,
`grader prairielearn`) grades `<root>/student`, makes `<root>/results` if it is absent
and writes `results.json` there, in PrairieLearn's own fields
(`grader.render.prairielearn`: `gradable`, `score` in 0..1, `message`, `tests` with
`name`, `points`, `max_points`, `message`, `output`).

Whatever happens, a valid `results.json` is written: a rubric that can't be used or a
grader that failed gives `gradable: false` with the reason in `format_errors` and
`message` (PrairieLearn then neither awards nor takes points, and does not count the
attempt), never a missing file that PrairieLearn would report as a broken grader. The
root is `--root`, else `$PRAIRIELEARN_GRADE_ROOT`, else `/grade` (the variable lets the
tests run the entry point in a temporary folder laid out the same way).
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import TYPE_CHECKING

from grader.cli.commands import LAB, LANG, RUBRIC, Command, arg
from grader.system.exits import EXIT_NOT_GRADED, EXIT_PASSED
from grader.system.output import say

if TYPE_CHECKING:
    from collections.abc import Callable

    from grader.cli.commands import Arguments

ROOT_VARIABLE = "PRAIRIELEARN_GRADE_ROOT"
DEFAULT_ROOT = "/grade"

COMMAND = Command(
    "prairielearn",
    "help.prairielearn.summary",
    (arg("--root", metavar="DIR", help="help.prairielearn.root"), RUBRIC, LANG, LAB),
    description="help.prairielearn.description",
)


def root_of(args: Arguments) -> str:
    return args.root or os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT


def _fallback(path: str, status: int, detail: str) -> None:
    """A results.json saying the submission was not graded, and why."""
    from grader.system.faults import write_output

    message = detail.strip() or f"grader exit status {status}"
    document = {
        "gradable": False,
        "score": 0.0,
        "message": message.splitlines()[0],
        "format_errors": [line for line in message.splitlines() if line.strip()],
        "tests": [],
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    write_output(path, text.encode("utf-8"))


def _written(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and "gradable" in document


def run(args: Arguments, main: Callable[[list[str]], int]) -> int:
    """Grade `<root>/student` into `<root>/results/results.json` by `main` (`grader.cli.main`'s,
    given so that this module imports no command line); 0 once it is written, 2 when it
    can't be (the folder can't be made or written)."""
    root = root_of(args)
    results = os.path.join(root, "results")
    path = os.path.join(results, "results.json")
    try:
        os.makedirs(results, exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)  # never mistake an old file for this job's result
    except OSError as exc:
        say(f"{results}: {exc.strerror or exc}")
        return EXIT_NOT_GRADED
    argv = ["check", os.path.join(root, "student"), "--format", "prairielearn"]
    argv += ["--output", path, "--color", "never"]
    for option in ("rubric", "lang", "lab"):
        value = getattr(args, option, None)
        if value:
            argv += [f"--{option}", value]
    errors = io.StringIO()
    saved, sys.stderr = sys.stderr, errors
    try:
        status = main(argv)
    finally:
        sys.stderr = saved
    detail = errors.getvalue()
    sys.stderr.write(detail)  # the job's log: what the grader said, for the instructor
    print(f"grader exit status: {status}")
    if not _written(path):
        _fallback(path, status, detail.replace("grader: ", ""))
    return EXIT_PASSED
