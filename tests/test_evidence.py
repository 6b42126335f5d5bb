"""What backs each file of measurements: `artifacts[].evidence` in the result.

A file of claims names the checks that compare it with an independent record of the run
(`ArtifactSpec.corroborated_by`); the result says whether that record corroborated,
contradicted or could not confirm its numbers, or whether nothing can back them but the
other files. Missing evidence is never a contradiction.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.api import Note
from grader.engine.runner import Outcome, evidence_of
from grader.reading.loading import ArtifactSpec
from tests.conftest import graded

SPEC = ArtifactSpec(
    "claims", "claims.json", parser=lambda *_: None, corroborated_by=("claims.in_log",)
)  # type: ignore[arg-type,return-value]


def ended(status: str, *, unconfirmed: bool = False) -> dict[str, Outcome]:
    outcome = Outcome(
        id="claims.in_log", status=status, points=0, max_points=1, artifact="claims",
        unconfirmed=unconfirmed,
    )  # fmt: skip
    return {outcome.id: outcome}


def evidence(result, name: str) -> str | None:  # type: ignore[no-untyped-def]
    return next(a.evidence for a in result.artifacts if a.name == name)


def test_numbers_are_corroborated_when_every_corroborating_check_passed() -> None:
    assert evidence_of(SPEC, True, ended("passed")) == "corroborated"


def test_numbers_are_contradicted_when_a_corroborating_check_failed() -> None:
    assert evidence_of(SPEC, True, ended("failed")) == "contradicted"


@pytest.mark.parametrize("status", ["skipped", "error"])
def test_numbers_are_unconfirmed_when_a_corroborating_check_could_not_judge(status: str) -> None:
    assert evidence_of(SPEC, True, ended(status)) == "unconfirmed"


def test_a_failure_for_lack_of_record_leaves_the_numbers_unconfirmed_not_contradicted() -> None:
    assert evidence_of(SPEC, True, ended("failed", unconfirmed=True)) == "unconfirmed"


def test_a_corroborating_checks_unconfirmed_note_leaves_the_numbers_unconfirmed() -> None:
    assert evidence_of(SPEC, True, ended("passed", unconfirmed=True)) == "unconfirmed"


def test_a_corroborating_check_the_rubric_left_out_confirms_nothing() -> None:
    assert evidence_of(SPEC, True, {}) == "unconfirmed"


def test_claims_nothing_independent_can_back_are_consistent_at_best() -> None:
    assert evidence_of(replace(SPEC, corroborated_by=()), True, {}) == "consistent"


def test_a_file_that_is_no_claim_or_did_not_load_says_nothing() -> None:
    assert evidence_of(replace(SPEC, corroborated_by=None), True, {}) is None
    assert evidence_of(SPEC, False, ended("passed")) is None


def test_a_note_is_no_unconfirmed_note_unless_it_says_so() -> None:
    assert Note("nothing_yet").unconfirmed is False


def test_a_lab_that_names_an_unknown_corroborating_check_fails_when_built() -> None:
    artifacts = tuple(
        replace(a, corroborated_by=("ttft.in_the_stars",)) if a.name == "ttft" else a
        for a in LAB.artifacts
    )
    with pytest.raises(ValueError, match=r"corroborated by 'ttft\.in_the_stars'"):
        replace(LAB, artifacts=artifacts)


def test_a_real_run_is_corroborated_step_by_step_and_its_report_only_consistent() -> None:
    result = graded("correct")
    assert {a.name: a.evidence for a in result.artifacts} == {
        "health": None, "props": None, "sse_py": None, "log": None,
        "sse": "corroborated", "chunks": "corroborated", "ttft": "corroborated",
        "prefill": "corroborated", "cache": "corroborated", "sentence": "corroborated",
        "cancel": "corroborated", "report": "consistent",
    }  # fmt: skip


def test_an_honest_mistake_the_log_agrees_with_stays_corroborated() -> None:
    assert evidence(graded("no_close_on_cancel"), "cancel") == "corroborated"


def test_a_hidden_open_connection_is_contradicted_by_the_log() -> None:
    assert evidence(graded("fabricated/open_connection_hidden"), "cancel") == "contradicted"


def test_a_log_that_starts_after_a_restart_leaves_the_steps_before_it_unconfirmed() -> None:
    result = graded("derived/restart_log_overwritten")  # restarted before the cache step
    steps = ("sse", "chunks", "ttft", "prefill", "cache", "sentence", "cancel")
    assert {name: evidence(result, name) for name in steps} == {
        **dict.fromkeys(steps[:4], "unconfirmed"),
        **dict.fromkeys(steps[4:], "corroborated"),
    }


def test_what_to_do_about_an_unconfirmed_step_is_to_keep_the_whole_log() -> None:
    failed = next(
        c for c in graded("derived/restart_log_overwritten").checks if c.id == "ttft.in_log"
    )
    assert failed.hint is not None and failed.hint.startswith("Keep the whole server.log")


def test_a_missing_log_leaves_every_step_unconfirmed_not_contradicted(
    submission: Path,
    grade_folder,  # type: ignore[no-untyped-def]
) -> None:
    (submission / "server.log").unlink()
    result = grade_folder(submission)
    steps = ("sse", "ttft", "prefill", "cache", "sentence", "cancel")
    assert {name: evidence(result, name) for name in steps} == dict.fromkeys(steps, "unconfirmed")


def test_a_file_that_did_not_load_has_no_evidence(submission: Path, grade_folder) -> None:  # type: ignore[no-untyped-def]
    shutil.copyfile(submission / "health.json", submission / "ttft.json")
    assert evidence(grade_folder(submission), "ttft") is None
