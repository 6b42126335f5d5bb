"""Trust in both directions: fabrications are caught, honest variation keeps every mark.

The fabricated samples (`sample_submissions/fabricated/`, built by
`scripts/make_fabricated.py`) are real captures edited the way a student could, to
cheat; test_verdicts.py checks that each is caught by its named checks. Here: no edited
copy scores more than the honest capture it was made from, no real capture fails an
integrity check, and a published sample is known wherever it is handed in.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REAL, ROOT, SAMPLES, check_of, statuses

ORIGINALS: dict[str, str] = json.loads(
    (SAMPLES / "fabricated" / "ORIGINALS.json").read_text("utf-8")
)
REAL_SAMPLES = sorted(
    p.name
    for p in SAMPLES.iterdir()
    if p.is_dir() and p.name not in ("derived", "hostile", "fabricated")
)
"""The published real captures: every sample folder at the top level."""
INTEGRITY = (
    "submission.original",
    "log.intact",
    "log.lab_run",
    "log.plausible",
    "sse.in_log",
    "sse.one_response",
    "chunks.in_stream",
    "ttft.in_log",
    "prefill.in_log",
    "cache.in_log",
    "sentence.in_log",
    "cancel.in_log",
)
UNPUBLISHED = ROOT / "tests" / "data" / "unpublished"
EVERY_REAL_CAPTURE = [
    *(REAL / p.name for p in sorted(REAL.iterdir()) if p.is_dir()),
    *(p for p in sorted(UNPUBLISHED.iterdir()) if p.is_dir()),
    *(SAMPLES / name for name in REAL_SAMPLES),
]


@pytest.mark.parametrize("case", sorted(ORIGINALS))
def test_a_fabrication_never_outscores_the_honest_capture_it_hides(grade_folder, case) -> None:
    fabricated = grade_folder(SAMPLES / "fabricated" / case)
    honest = grade_folder(ROOT / ORIGINALS[case])
    assert fabricated.score < honest.score


@pytest.mark.parametrize(
    "folder", EVERY_REAL_CAPTURE, ids=[p.relative_to(ROOT).as_posix() for p in EVERY_REAL_CAPTURE]
)
def test_no_real_capture_fails_an_integrity_check(grade_folder, folder: Path) -> None:
    status = statuses(grade_folder(folder))
    assert {i: status[i] for i in INTEGRITY if status[i] != "passed"} == {}


def test_the_published_sample_in_its_own_folder_is_graded_as_itself(grade_folder) -> None:
    check = check_of(grade_folder(SAMPLES / "correct"), "submission.original")
    assert check.status == "passed" and check.message_id == "submission.original.is_sample"


def test_a_copy_of_a_published_sample_is_caught_naming_it(grade_folder, tmp_path) -> None:
    shutil.copytree(SAMPLES / "no_cache_ram_flag", tmp_path / "llm")
    check = check_of(grade_folder(tmp_path / "llm"), "submission.original")
    assert check.status == "failed" and '"no_cache_ram_flag"' in (check.message or "")


def test_a_run_showing_a_published_samples_stream_id_is_caught_naming_it(
    grade_folder, tmp_path
) -> None:
    import re

    from checks.samples import registry

    shutil.copytree(REAL / "correct", tmp_path / "llm")
    (theirs,) = registry()["no_cache_ram_flag"]["ids"][:1]
    sse = tmp_path / "llm" / "sse_raw.txt"
    sse.write_text(re.sub(r"chatcmpl-\w+", theirs, sse.read_text("utf-8")), "utf-8")
    check = check_of(grade_folder(tmp_path / "llm"), "submission.original")
    assert check.status == "failed" and check.message_id == "submission.original.reused_id"
    assert '"no_cache_ram_flag"' in (check.message or "")


def test_a_link_to_a_published_sample_is_not_the_sample(grade_folder, tmp_path) -> None:
    link = tmp_path / "llm"
    link.symlink_to(SAMPLES / "correct", target_is_directory=True)
    assert check_of(grade_folder(link), "submission.original").status == "failed"


def test_the_registry_of_published_samples_is_up_to_date() -> None:
    from checks.samples import REGISTRY, build_registry, samples_root

    shipped = json.loads((ROOT / "checks" / REGISTRY).read_text("utf-8"))
    assert shipped == build_registry(samples_root()), "run scripts/make_sample_registry.py"


def test_the_test_captures_are_no_published_sample() -> None:
    from checks.samples import MEASURED, fingerprint, registry

    published = {sha for known in registry().values() for sha in known["files"].values()}
    for folder in REAL.iterdir():
        if folder.is_dir():
            assert not set(fingerprint(folder)["files"].values()) & published, folder.name
    assert all(name in MEASURED for name in fingerprint(REAL / "correct")["files"])


def test_every_digest_and_stream_id_of_the_registry_is_found_in_its_text() -> None:
    """`may_share` searches the registry's text: it must never miss a value it holds."""
    from checks.samples import may_share, registry

    held = [v for known in registry().values() for v in (*known["files"].values(), *known["ids"])]
    assert held
    assert [value for value in held if not may_share([value])] == []


def test_a_digest_or_id_no_sample_has_is_not_found_in_the_registry() -> None:
    from checks.samples import fingerprint, may_share

    honest = fingerprint(REAL / "correct")
    assert not may_share([*honest["files"].values(), *honest["ids"]])
    assert not may_share(['chatcmpl-"quoted\\ é'])
