"""A run is known by its fingerprint, not its bytes (`checks/fingerprint.py`, `checks/runs.py`).

The fingerprint is the rhythm of the stream (chunks.jsonl's gaps, as ratios to their
median) and the ratios of the log's own timing blocks, quantised into keys. A copy keeps
them however it is re-encoded or rescaled; no two of the project's real runs share
`MIN_SHARED` of them. The registry (`checks/runs.json`) holds every run the project has
published, in every version in its history.
"""

from __future__ import annotations

import json
import re
import shutil
from itertools import combinations
from pathlib import Path

import pytest

from checks.class_report import CLASS_REPORT
from checks.fingerprint import (
    MIN_SHARED,
    correlation,
    gap_shape,
    keys_of_texts,
    rhythm_keys,
    shared,
)
from checks.runs import known_run, registry, same_typed, typed_shape
from grader.class_report.flags import flags_of
from grader.class_report.results import student_from
from tests.conftest import REAL, ROOT, SAMPLES, TESTS_OWN_RUNS, check_of

REAL_SAMPLES = [
    p
    for p in sorted(SAMPLES.iterdir())
    if p.is_dir() and p.name not in ("derived", "hostile", "fabricated")
]
EVERY_REAL_RUN = [*REAL_SAMPLES, *TESTS_OWN_RUNS]
"""Every real capture the repository holds now (one run each)."""
TIME = re.compile(r"(\d+\.\d+)( ms)")


def keys_of(folder: Path) -> list[str]:
    def text(name: str) -> str | None:
        path = folder / name
        return path.read_text("utf-8") if path.is_file() else None

    return keys_of_texts(text("server.log"), text("chunks.jsonl"))


def times_of(folder: Path) -> list[float]:
    lines = (folder / "chunks.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["t_ms"] for line in lines if line.strip()]


def forge(source: Path, target: Path, factor: float, indent: int = 3) -> Path:
    """A copy of `source` as a forger who read the source would hand it in: every time
    in the log and in chunks.jsonl times `factor`, chunks.jsonl re-indented, the stream's
    chatcmpl id new, the log's last line dropped, every JSON file re-indented (`indent`
    spaces: another forger, other bytes)."""
    shutil.copytree(source, target)
    for name in ("ttft", "prefill", "cache", "sentence", "cancel", "report"):
        path = target / f"{name}.json"
        path.write_text(json.dumps(json.loads(path.read_text("utf-8")), indent=indent), "utf-8")
    log = (target / "server.log").read_text("utf-8")
    log = TIME.sub(lambda m: f"{float(m.group(1)) * factor:.2f}{m.group(2)}", log)
    (target / "server.log").write_text("\n".join(log.splitlines()[:-1]) + "\n", "utf-8")
    records = [json.loads(x) for x in (target / "chunks.jsonl").read_text("utf-8").splitlines()]
    for record in records:
        record["t_ms"] = round(record["t_ms"] * factor, 3)
    (target / "chunks.jsonl").write_text(
        "".join(json.dumps(r, separators=(", ", ":  ")) + "\n" for r in records), "utf-8"
    )
    sse = (target / "sse_raw.txt").read_text("utf-8")
    (target / "sse_raw.txt").write_text(
        re.sub(r"chatcmpl-[A-Za-z0-9]+", f"chatcmpl-forged{indent:022d}", sse), "utf-8"
    )
    return target


def test_a_rescaled_stream_has_exactly_its_sources_rhythm() -> None:
    times = times_of(REAL / "correct")
    rescaled = [round(t * 1.012, 3) for t in times]
    assert correlation(gap_shape(times), gap_shape(rescaled)) > 0.9999
    assert rhythm_keys(rescaled) == rhythm_keys(times)


def test_no_two_real_runs_share_a_rhythm_as_a_copy_does() -> None:
    shapes = {p: gap_shape(times_of(p)) for p in EVERY_REAL_RUN if (p / "chunks.jsonl").is_file()}
    worst = max(correlation(shapes[a], shapes[b]) for a, b in combinations(shapes, 2))
    assert worst < 0.7  # measured: 0.645 at most (scripts/measure_fingerprints.py)


@pytest.mark.parametrize(
    "pair",
    list(combinations(EVERY_REAL_RUN, 2)),
    ids=lambda pair: "~".join(p.relative_to(ROOT).as_posix() for p in pair),
)
def test_no_real_run_shares_enough_keys_with_another_to_be_one_run(pair) -> None:
    a, b = pair
    assert shared(keys_of(a), keys_of(b)) < MIN_SHARED


@pytest.mark.parametrize("folder", EVERY_REAL_RUN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_real_run_the_repository_holds_is_registered(full_run_registry, folder) -> None:
    assert known_run(keys_of(folder)) is not None


def test_the_registry_holds_earlier_versions_of_the_samples(full_run_registry) -> None:
    versions = {name.partition("@")[0] for name in registry()}
    assert len(registry()) > len(versions)  # some sample has more than one run in history


@pytest.mark.parametrize("factor", [1.012, 0.8, 1.5])
def test_a_forged_copy_of_a_published_run_keeps_its_fingerprint(tmp_path, factor) -> None:
    forged = forge(REAL / "correct", tmp_path / "llm", factor)
    assert shared(keys_of(forged), keys_of(REAL / "correct")) >= MIN_SHARED


def test_a_log_appended_to_another_run_keeps_its_fingerprint(tmp_path) -> None:
    log = (SAMPLES / "second_run" / "server.log").read_text("utf-8")
    log += (REAL / "correct" / "server.log").read_text("utf-8")
    keys = keys_of_texts(log, (REAL / "correct" / "chunks.jsonl").read_text("utf-8"))
    assert shared(keys, keys_of(REAL / "correct")) >= MIN_SHARED


def test_the_labs_reference_capture_handed_in_is_noted_and_flagged_strongly(
    full_run_registry, grade_folder, tmp_path
) -> None:
    """tests/data/real is the lab's shared fixtures byte for byte: graded as itself it
    must pass (verdicts.py), so a copy is noted and the class report flags it strongly."""
    shutil.copytree(REAL / "correct", tmp_path / "llm")
    result = grade_folder(tmp_path / "llm")
    check = check_of(result, "submission.original")
    assert check.status == "passed"
    assert check.message_id == "submission.original.reference_run"
    flags = flags_of(student_from("copier", result), CLASS_REPORT.flags)
    assert ("reference_run", True) in [(f.key, f.strong) for f in flags]


def test_a_reference_capture_with_its_typed_numbers_rounded_keeps_full_marks(
    full_run_registry, grade_folder, tmp_path
) -> None:
    """The reference stands for a student's own run: what the student typed of it is
    judged against its unchanged server record, so honest rounding loses nothing."""

    def rounded(value: object) -> object:
        if isinstance(value, float):
            return round(value, 1)
        if isinstance(value, list):
            return [rounded(v) for v in value]
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return value

    folder = tmp_path / "llm"
    shutil.copytree(REAL / "correct", folder)
    for path in folder.glob("*.json"):
        path.write_text(json.dumps(rounded(json.loads(path.read_text("utf-8"))), indent=2))
    chunks = folder / "chunks.jsonl"
    lines = chunks.read_text("utf-8").splitlines()
    chunks.write_text("".join(json.dumps(rounded(json.loads(x))) + "\n" for x in lines if x))
    result = grade_folder(folder)
    assert result.score == result.max_score
    assert check_of(result, "submission.original").message_id == "submission.original.reference_run"


def test_a_reference_capture_whose_typed_numbers_were_changed_fails_as_a_published_run(
    full_run_registry, grade_folder, tmp_path
) -> None:
    """A mistake mended by hand over an unchanged server record (role chunk counted, its
    ttft_ms retyped from the log) must not outscore the capture it was made from."""
    folder = tmp_path / "llm"
    shutil.copytree(REAL / "role_chunk_counted", folder)
    ttft = json.loads((folder / "ttft.json").read_text("utf-8"))
    ttft["runs"][0]["ttft_ms"] += 7.0
    (folder / "ttft.json").write_text(json.dumps(ttft, indent=2), "utf-8")
    check = check_of(grade_folder(folder), "submission.original")
    assert check.status == "failed" and check.message_id == "submission.original.reused_run"


def test_a_reference_capture_with_a_chunk_line_removed_fails_as_a_published_run(
    full_run_registry, grade_folder, tmp_path
) -> None:
    folder = tmp_path / "llm"
    shutil.copytree(REAL / "role_chunk_counted", folder)
    chunks = folder / "chunks.jsonl"
    chunks.write_text("".join(chunks.read_text("utf-8").splitlines(keepends=True)[1:]), "utf-8")
    check = check_of(grade_folder(folder), "submission.original")
    assert check.status == "failed" and check.message_id == "submission.original.reused_run"


@pytest.mark.parametrize(
    ("typed", "same"),
    [
        ({"ttft_ms": 123.456}, True),  # as captured
        ({"ttft_ms": 123.5}, True),  # rounded to 0.1 ms
        ({"ttft_ms": 123}, True),  # rounded to the millisecond
        ({"ttft_ms": 123.6}, False),  # more than rounding
        ({"ttft_ms": 123.456, "note": "x"}, False),  # a key added
        ({"ttft_ms": "123.456"}, False),  # a number made a string
    ],
)
def test_a_typed_file_is_the_references_up_to_how_its_numbers_are_rounded(typed, same) -> None:
    assert same_typed(typed_shape({"ttft_ms": 123.456}), typed) is same


def test_a_reference_capture_whose_server_record_was_edited_fails_as_a_published_run(
    full_run_registry, grade_folder, tmp_path
) -> None:
    forged = forge(REAL / "correct", tmp_path / "llm", 1.0)  # re-encoded, new id, a line off
    check = check_of(grade_folder(forged), "submission.original")
    assert check.status == "failed" and check.message_id == "submission.original.reused_run"


def test_an_earlier_published_version_that_is_no_reference_fails_as_a_published_run(
    full_run_registry, grade_folder, tmp_path
) -> None:
    forged = forge(SAMPLES / "correct", tmp_path / "llm", 1.0)
    check = check_of(grade_folder(forged), "submission.original")
    assert check.status == "failed" and check.message_id == "submission.original.reused_run"


def test_a_rescaled_reencoded_copy_of_a_sample_is_caught_naming_its_run(
    full_run_registry, grade_folder, tmp_path
) -> None:
    forged = forge(SAMPLES / "slow_pod", tmp_path / "llm", 1.012)
    check = check_of(grade_folder(forged), "submission.original")
    assert check.message_id == "submission.original.reused_run"
    assert (check.found or "").startswith("sample_submissions/slow_pod@")


def test_an_older_version_of_a_sample_from_the_history_is_caught(full_run_registry) -> None:
    # tests/data/real/correct is the first published version of the sample "correct"
    name, count = known_run(keys_of(REAL / "correct")) or ("", 0)
    assert name.startswith("sample_submissions/correct@") and count >= MIN_SHARED


def test_a_sample_in_its_own_folder_is_still_itself(full_run_registry, grade_folder) -> None:
    check = check_of(grade_folder(SAMPLES / "slow_pod"), "submission.original")
    assert check.status == "passed" and check.message_id == "submission.original.is_sample"


def test_the_check_records_the_runs_keys_for_the_class(grade_folder) -> None:
    check = check_of(grade_folder(REAL / "correct"), "submission.original")
    assert check.data["run_keys"] == keys_of(REAL / "correct")
