"""Every llama-server log era the grader reads keeps passing where it is genuine.

`tests/data/eras/` holds the lab's run as each era of llama-server logs it (the numbers
of `tests/data/real/correct`, every line shape and figure from that era's source; see
its README and `generate_eras.py`) and, in `real_runs/`, logs that real builds of those
eras wrote for the same lab driver. The corroboration checks must accept each of them
as the server's own, complete record.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from checks.formats.llama_log import scan_log
from tests.conftest import CORRECT, ROOT, check_of, statuses

ERAS = ROOT / "tests" / "data" / "eras"
SYNTHETIC = sorted(ERAS.glob("*_server.log"))
REAL_RUNS = sorted((ERAS / "real_runs").glob("*/server.log"))
BUILD = {  # the build each synthetic log's start-up lines name, as /props says it
    "mid2024_json": "b3186-ba589931",
    "mid2024_text": "b3186-ba589931",
    "late2024": "b4000-c02e5ab2",
    "early2025": "b4600-553f1e46",
    "early2025_compose": "b4600-553f1e46",
    "mid2025": "b1-4227c9b",
    "mid2025_journald": "b1-4227c9b",
}


def with_log(tmp_path: Path, log: Path, build: str | None = None) -> Path:
    """The real correct run with `log` as its server.log, and with props.json and the
    stream's fingerprints naming `build`: the run as that era's server served it."""
    folder = tmp_path / "llm"
    shutil.copytree(CORRECT, folder)
    shutil.copy(log, folder / "server.log")
    if build is not None:
        props = json.loads((folder / "props.json").read_text("utf-8"))
        stream = (folder / "sse_raw.txt").read_text("utf-8")
        fingerprint = f'"system_fingerprint":"{props["build_info"]}"'
        stream = stream.replace(fingerprint, f'"system_fingerprint":"{build}"')
        (folder / "sse_raw.txt").write_text(stream, "utf-8")
        props["build_info"] = build
        (folder / "props.json").write_text(json.dumps(props), "utf-8")
    return folder


@pytest.mark.parametrize("log", SYNTHETIC + REAL_RUNS, ids=lambda p: p.relative_to(ERAS).as_posix())
def test_every_era_logs_the_labs_fourteen_requests_and_fifteen_releases(log: Path) -> None:
    scanned = scan_log(log.read_text("utf-8"))
    assert (len(scanned.timings), len(scanned.releases)) == (14, 15)
    assert len(scanned.starts) == 1 and scanned.starts[0].n_slots == 1


@pytest.mark.parametrize("log", SYNTHETIC, ids=lambda p: p.name)
def test_the_lab_run_logged_by_any_era_keeps_full_marks(grade_folder, tmp_path, log) -> None:
    build = BUILD[log.name.removesuffix("_server.log")]
    result = grade_folder(with_log(tmp_path, log, build))
    assert {i: s for i, s in statuses(result).items() if s != "passed"} == {}


@pytest.mark.parametrize("log", REAL_RUNS, ids=lambda p: p.parent.name)
def test_a_real_old_build_log_is_intact_and_plausible(grade_folder, tmp_path, log) -> None:
    status = statuses(grade_folder(with_log(tmp_path, log)))
    assert (status["log.intact"], status["log.plausible"]) == ("passed", "passed")


def test_a_server_of_mid_2024_shows_its_cancel_as_a_bare_release(grade_folder, tmp_path) -> None:
    result = grade_folder(
        with_log(tmp_path, ERAS / "mid2024_json_server.log", BUILD["mid2024_json"])
    )
    check = next(c for c in result.checks if c.id == "log.cancel_task")
    assert check.status == "passed" and check.message_id == "log.cancel_task.no_cancel_era"


def test_a_real_stream_without_a_role_chunk_from_its_era_passes_with_a_note(
    grade_folder, tmp_path
) -> None:
    """b4600 (Jan 2025) sends no role-only chunk (from b1778 to llama.cpp PR 13634, May
    2025, none did): its stream is whole when its content events match its tokens."""
    run = ERAS / "real_runs" / "b4600"
    folder = with_log(tmp_path, run / "server.log", "b0-unknown")
    shutil.copy(run / "sse_raw.txt", folder / "sse_raw.txt")
    result = grade_folder(folder)
    status = statuses(result)
    assert (status["sse.in_log"], status["sse.one_response"]) == ("passed", "passed")
    check = next(c for c in result.checks if c.id == "sse.role_chunk_first")
    assert check.status == "passed" and check.message_id == "sse.role_chunk_first.no_role_era"


@pytest.mark.parametrize("build", ["b²-0c1e570", "b" + "9" * 5000 + "-0c1e570"])
def test_a_build_number_int_cannot_read_is_not_compared_and_crashes_nothing(
    grade_folder, submission: Path, build: str
) -> None:
    props = json.loads((submission / "props.json").read_text("utf-8"))
    props["build_info"] = build
    (submission / "props.json").write_text(json.dumps(props), "utf-8")
    lab_run = check_of(grade_folder(submission), "log.lab_run")
    assert lab_run.status == "passed", lab_run.message  # as with no build_info at all
