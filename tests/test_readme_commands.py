"""The READMEs' `grader check` commands and the scores they show, run against a normal
install: the project's wheel installed with the real pip (dependencies and all) into a
fresh environment, run from outside the checkout, so the docs can't drift from what a
user gets (an editable install would grade the checkout's samples as themselves).

A command is any line of a fenced block that runs `grader check` (`$ grader check ...`,
`.venv/bin/grader check ...`, `~/.grader/bin/grader check ...`, `python3 grader.pyz
check ...`); what it must show is the block's other lines (each in the output, in order,
`...` standing for lines left out) and the `Score: X/Y` the block or the sentence just
before it names.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, max_score
from tests.installed import build_wheel, install, user_env

READMES = [ROOT / "README.md", ROOT / "integrations" / "gradescope" / "README.md"]
COMMAND = re.compile(r"(?:^\$ |/bin/|^|python3 )grader(?:\.pyz)? check(?P<args>[^#`]*)")
SCORE = re.compile(r"Score: \d+/\d+")


def blocks(path: Path) -> list[tuple[str, list[str]]]:
    """(the text before it, its lines) of every fenced block of a Markdown file."""
    found, before, inside, lines = [], "", False, []
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("```"):
            if inside:
                found.append((before, lines))
                before, lines = "", []
            inside = not inside
        elif inside:
            lines.append(line)
        else:
            before = (before + "\n" + line)[-400:]
    return found


def examples() -> list[tuple[str, list[str], list[str], str | None]]:
    """(where, the command's arguments, the lines shown after it, the score named)."""
    out = []
    for path in READMES:
        for before, lines in blocks(path):
            for index, line in enumerate(lines):
                match = COMMAND.search(line.split("&&")[-1].strip())
                if match is None or "[" in match["args"]:  # a synopsis, not a command
                    continue
                shown = lines[index + 1 :] if line.startswith("$ ") else []
                named = SCORE.search("\n".join(shown)) or SCORE.search(before)
                where = f"{path.name}: {line.strip()}"
                out.append((where, shlex.split(match["args"]), shown, named and named[0]))
    return out


EXAMPLES = [e for e in examples() if "--sample" in e[1]]
"""Those that grade a bundled sample (the others grade the user's own folder)."""


@pytest.fixture(scope="module")
def grader(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheel = build_wheel(tmp_path_factory.mktemp("dist"))
    return install(wheel, tmp_path_factory.mktemp("readme") / "venv") / "grader"


def test_the_readmes_show_the_first_command_and_its_full_marks() -> None:
    first = next(e for e in EXAMPLES if e[0].startswith("README.md"))
    assert (
        first[1] == ["--sample", "correct"]
        and first[3] == f"Score: {max_score():g}/{max_score():g}"
    )


@pytest.mark.parametrize(
    ("where", "args", "shown", "score"), EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_a_readme_command_shows_what_the_readme_says(
    grader: Path, tmp_path: Path, where: str, args: list[str], shown: list[str], score: str | None
) -> None:
    proc = subprocess.run(
        [str(grader), "check", *args, "--color", "never"],
        cwd=tmp_path,
        env=user_env(COLUMNS="80", LANG="C.UTF-8"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    if score is not None:
        assert score in proc.stdout
    output = proc.stdout.splitlines()
    at = 0
    for line in shown:
        if line.strip() in ("...", ""):
            continue
        assert line in output[at:], f"{where}: {line!r} not in the output"
        at = output.index(line, at) + 1


def test_a_copy_of_a_sample_graded_as_a_folder_is_judged_a_copy(
    grader: Path, tmp_path: Path
) -> None:
    shutil.copytree(ROOT / "sample_submissions" / "correct", tmp_path / "correct")
    proc = subprocess.run(
        [str(grader), "check", "correct", "--format", "json"],
        cwd=tmp_path, env=user_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    checks = {c["id"]: c["status"] for c in json.loads(proc.stdout)["checks"]}
    assert checks["submission.original"] == "failed" and checks["log.intact"] == "skipped"
