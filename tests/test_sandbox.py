"""While grading, an audit hook refuses network, processes, writes and outside reads."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.api import Check, check
from grader.engine.grade import grade
from grader.engine.rubric import load_lab_rubric, parse_rubric
from grader.system.sandbox import SandboxViolation, confined
from tests.conftest import CORRECT, ROOT, check_of

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def grade_with(extra: Check, folder: Path = CORRECT):
    lab = dataclasses.replace(LAB, checks=(*LAB.checks, extra))
    text = RUBRIC_TEXT + f'\n[checks."{extra.id}"]\npoints = 1\n'
    return grade(lab, str(folder), parse_rubric(text, "r.toml", lab.all_check_ids()))


@check("demo.connect", reads=())
def connects(ctx):
    socket.create_connection(("127.0.0.1", 8080), timeout=0.1)


@check("demo.subprocess", reads=())
def runs_a_process(ctx):
    subprocess.run(["true"], check=False)


@check("demo.outside_read", reads=())
def reads_outside(ctx):
    Path("/etc/hostname").read_text()


@check("demo.write", reads=())
def writes(ctx):
    (CORRECT / "planted.txt").write_text("x")


@pytest.mark.parametrize(
    ("demo", "words"),
    [
        (connects, "network"),
        (runs_a_process, "processes"),
        (reads_outside, "reading outside"),
        (writes, "writing"),
    ],
)
def test_forbidden_operation_in_a_check_is_an_error_and_grading_goes_on(
    demo: Check, words: str
) -> None:
    result = grade_with(demo)
    outcome = check_of(result, demo.id)
    assert outcome.status == "error"
    assert words in (outcome.message or "")
    assert check_of(result, "ttft.medians").status == "passed"
    assert not (CORRECT / "planted.txt").exists()


def test_importing_a_module_from_the_submission_is_refused(submission: Path) -> None:
    (submission / "planted_module.py").write_text("RAN = True\n", "utf-8")

    @check("demo.import", reads=())
    def imports(ctx):
        import sys

        sys.path.insert(0, str(submission))
        try:
            __import__("planted_module")
        finally:
            sys.path.remove(str(submission))

    assert check_of(grade_with(imports, submission), "demo.import").status == "error"


def test_a_module_is_judged_by_the_real_path_of_its_file(submission: Path, tmp_path) -> None:
    """A link from an innocent folder on sys.path into the submission is still refused."""
    (submission / "planted_module2.py").write_text("RAN = True\n", "utf-8")
    innocent = tmp_path / "innocent"
    innocent.mkdir()
    (innocent / "planted_module2.py").symlink_to(submission / "planted_module2.py")

    @check("demo.linked_import", reads=())
    def imports(ctx):
        import sys

        sys.path.insert(0, str(innocent))
        try:
            __import__("planted_module2")
        finally:
            sys.path.remove(str(innocent))

    outcome = check_of(grade_with(imports, submission), "demo.linked_import")
    assert outcome.status == "error" and "importing planted_module2" in (outcome.message or "")


def test_reading_the_submission_and_package_data_is_allowed() -> None:
    assert (
        check_of(grade_with(check("demo.ok", reads=())(lambda ctx: None)), "demo.ok").status
        == "passed"
    )


def test_the_sandbox_is_off_outside_grading() -> None:
    with confined(str(CORRECT)), pytest.raises(SandboxViolation):
        socket.socket()
    socket.socket().close()  # after the block: allowed again


def test_grading_from_inside_the_submission_folder_reads_sse_py_as_a_tree(monkeypatch) -> None:
    monkeypatch.chdir(CORRECT)
    result = grade(LAB, ".", parse_rubric(RUBRIC_TEXT, "r.toml", LAB.all_check_ids()))
    assert check_of(result, "sse_py.static").status == "passed"


# ------------------------------------------------------------------ no code from the submission

ATTACK = """
import os
MARK = {mark!r}
try:  # turn the sandbox off, as the attack in issue 10 did
    import grader.system.sandbox as sandbox
    sandbox._state.active = False
except Exception:
    pass
with open(MARK, "w") as out:  # write outside the submission
    out.write("pwned")
import grader.engine.grade as grade  # patch the engine to forge full marks
from grader.engine.runner import Outcome

def forged(lab, artifacts, rubric):
    return [Outcome(cid, "passed", 1.0, 1.0, None) for cid in lab.all_check_ids()]

grade.run_checks = forged


class Draft202012Validator:  # enough for grading to go on and report the forged marks
    def __init__(self, *args, **kwargs):
        pass

    def iter_errors(self, instance):
        return iter(())
"""


def plant_attack(folder: Path, mark: Path) -> None:
    """A sourceless jsonschema.pyc (its co_filename forged to look like the real one)
    and a props.json that fails its schema, so that explaining it imports jsonschema."""
    import py_compile

    source = folder.parent / "attack_source.py"
    source.write_text(ATTACK.format(mark=str(mark)), "utf-8")
    forged_name = "/usr/lib/python3/site-packages/jsonschema/__init__.py"
    py_compile.compile(str(source), str(folder / "jsonschema.pyc"), forged_name, doraise=True)
    source.unlink()
    (folder / "props.json").write_text('{"default_generation_settings": 1}', "utf-8")


def honest_result(folder: Path, tmp_path: Path) -> dict:
    clean = tmp_path / "clean"
    shutil.copytree(folder, clean, ignore=shutil.ignore_patterns("jsonschema.pyc"))
    result = grade(LAB, str(clean), load_lab_rubric(LAB, None, "checks"))
    return {"score": result.score, "checks": {c.id: c.status for c in result.checks}}


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def run_json(cmd: list[str], cwd: Path, env: dict[str, str], mark: Path) -> dict:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert not mark.exists(), "the planted jsonschema.pyc ran"
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    return {"score": data["score"], "checks": {c["id"]: c["status"] for c in data["checks"]}}


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return env | extra


@pytest.fixture
def attacked(submission: Path, tmp_path: Path) -> tuple[Path, Path, dict]:
    mark = tmp_path / "pwned"
    plant_attack(submission, mark)
    return submission, mark, honest_result(submission, tmp_path)


def test_a_planted_pyc_never_runs_with_python_dash_m_from_inside_the_submission(
    attacked: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    submission, mark, honest = attacked
    before = files_under(tmp_path)
    cmd = [sys.executable, "-m", "grader", "check", ".", "--format", "json"]
    got = run_json(cmd, submission, clean_env(PYTHONPATH=str(ROOT)), mark)
    assert files_under(tmp_path) == before  # nothing written, inside or outside
    assert got == honest and got["checks"]["props.schema"] == "failed"


def test_a_planted_pyc_never_runs_with_the_grader_command_and_dot_on_pythonpath(
    attacked: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    submission, mark, honest = attacked
    script = Path(sys.executable).with_name("grader")
    if not script.is_file():
        pytest.skip(f"no console script beside {sys.executable} (pip install -e . makes it)")
    before = files_under(tmp_path)
    env = clean_env(PYTHONPATH=os.pathsep.join([".", str(ROOT)]))
    got = run_json([str(script), "check", ".", "--format", "json"], submission, env, mark)
    assert files_under(tmp_path) == before
    assert got == honest


def test_the_import_guard_alone_skips_the_submission_on_sys_path(
    attacked: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    """Library use, where no entry point cleaned sys.path: the guard finds the real
    jsonschema past the submission's entry, by the files' real paths."""
    submission, mark, honest = attacked
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from checks import LAB; from grader.engine.grade import grade;"
        "from grader.engine.rubric import load_lab_rubric;"
        "print(grade(LAB, sys.argv[1], load_lab_rubric(LAB, None, 'checks')).to_json())"
    )
    cmd = [sys.executable, "-c", code, str(submission)]
    got = run_json(cmd, ROOT, clean_env(PYTHONPATH=str(ROOT)), mark)
    assert got == honest


def test_a_good_submission_still_grades_without_importing_jsonschema() -> None:
    code = (
        "import sys; from checks import LAB; from grader.engine.grade import grade;"
        "from grader.engine.rubric import load_lab_rubric;"
        "grade(LAB, sys.argv[1], load_lab_rubric(LAB, None, 'checks'));"
        "print('jsonschema' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(CORRECT)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.stdout.strip() == "False", proc.stderr


def test_what_the_confined_phase_needs_is_imported_outside_it(submission: Path) -> None:
    """Explaining a bad file needs jsonschema: it is prepared outside the confinement,
    and grading runs again, instead of importing while confined."""
    from grader.system import sandbox

    (submission / "props.json").write_text('{"default_generation_settings": 1}', "utf-8")
    seen: list[bool] = []
    real = sandbox._prepare

    def spy(func, folder):
        seen.append(sandbox._state.active)
        return real(func, folder)

    sandbox._prepared.clear()
    LAB.schemas._validators.clear()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sandbox, "_prepare", spy)
            result = grade(LAB, str(submission), load_lab_rubric(LAB, None, "checks"))
    finally:
        sandbox._prepared.clear()
    assert seen == [False]
    assert check_of(result, "props.schema").status == "failed"


def test_the_working_directory_leaves_sys_path_at_start(tmp_path: Path) -> None:
    code = (
        "import os, sys; from grader.system.syspath import drop_working_directory;"
        "drop_working_directory(); print(any(os.path.realpath(p or '.') == os.getcwd() "
        "for p in sys.path))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=os.pathsep.join([".", str(ROOT)])),
    )
    assert proc.stdout.strip() == "False", proc.stderr


def test_libraries_below_the_working_directory_still_import(submission: Path) -> None:
    """Only the working directory itself is off limits, not what lies below it: graded
    from a folder that holds the virtual environment, jsonschema still imports."""
    import jsonschema

    below = Path(jsonschema.__file__).resolve().parents[2]  # e.g. .venv/lib
    (submission / "props.json").write_text('{"default_generation_settings": 1}', "utf-8")
    cmd = [sys.executable, "-m", "grader", "check", str(submission), "--format", "json"]
    proc = subprocess.run(
        cmd, cwd=below, env=clean_env(PYTHONPATH=str(ROOT)), capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stderr
    props = next(c for c in json.loads(proc.stdout)["checks"] if c["id"] == "props.schema")
    assert props["status"] == "failed" and props["message_id"].startswith("schema.")


def test_a_module_found_only_in_the_submission_never_loads(
    submission: Path, tmp_path: Path
) -> None:
    """A sourceless .pyc (its co_filename forged) that exists nowhere else: the guard's
    search fails, and no later finder may search the unfiltered path instead."""
    import py_compile

    mark = tmp_path / "ran"
    source = tmp_path / "only_here.py"
    attack = "import grader.system.sandbox as s\ns._state.active = False\n"  # the hook, off
    source.write_text(attack + f"open({str(mark)!r}, 'w').write('x')\n", "utf-8")
    target = str(submission / "only_here.pyc")
    py_compile.compile(str(source), target, "/usr/lib/x.py", doraise=True)

    @check("demo.only_here", reads=())
    def imports(ctx):
        import sys

        sys.path.insert(0, str(submission))
        try:
            __import__("only_here")
        finally:
            sys.path.remove(str(submission))

    outcome = check_of(grade_with(imports, submission), "demo.only_here")
    assert outcome.status == "error" and not mark.exists()


def test_grading_every_sample_imports_nothing_while_confined() -> None:
    """Whatever grading needs lazily is imported before the confinement (a fresh
    process, so that nothing is imported already)."""
    code = """
import sys
from pathlib import Path
from checks import LAB
from grader.system import sandbox
from grader.engine.grade import grade
from grader.engine.rubric import load_lab_rubric

rubric = load_lab_rubric(LAB, None, "checks")
confined = set()

def hook(event, args):
    if event == "import" and sandbox._state.active and args[0] not in sys.modules:
        confined.add(args[0])

sys.addaudithook(hook)
root = Path(sys.argv[1])
for folder in sorted({p.parent for p in root.rglob("*") if p.name in ("ttft.json", "server.log")}):
    grade(LAB, str(folder), rubric)
print(sorted(confined))
"""
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "sample_submissions")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout.strip() == "[]", proc.stderr
