"""Honest runs of the lab made with a real llama-server keep every point they earned.

Each folder of tests/data/honest is a real run made the way students make them (another
standard-library client, a loaded pod, `-v` logging, a restart, a `docker logs -t`
wrapper, polling): none is a mistake, so each gets full marks, and no integrity flag;
the run whose log was overwritten by a restart has its earlier steps unconfirmed, not
contradicted (tests/data/honest/README.md, EXPECTED.json).
"""

from __future__ import annotations

import json

import pytest

from checks.class_report import CLASS_REPORT
from grader.class_report.flags import flags_of
from grader.class_report.results import student_from
from tests.conftest import ROOT, assert_verdict

HONEST = ROOT / "tests" / "data" / "honest"
VERDICTS: dict[str, dict[str, object]] = json.loads((HONEST / "EXPECTED.json").read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_an_honest_real_run_gets_its_verdict(name: str, grade_folder) -> None:  # type: ignore[no-untyped-def]
    assert_verdict(grade_folder(HONEST / name), VERDICTS[name])


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_an_honest_real_run_raises_no_strong_flag(name: str, grade_folder) -> None:  # type: ignore[no-untyped-def]
    flags = flags_of(student_from(name, grade_folder(HONEST / name)), CLASS_REPORT.flags)
    assert [f.key for f in flags if f.strong] == []


def test_the_overwritten_restart_leaves_the_earlier_steps_unconfirmed(grade_folder) -> None:  # type: ignore[no-untyped-def]
    result = grade_folder(HONEST / "restart_overwritten")
    evidence = {a.name: a.evidence for a in result.artifacts}
    assert [evidence[s] for s in ("sse", "ttft", "prefill")] == ["unconfirmed"] * 3
    assert [evidence[s] for s in ("cache", "sentence", "cancel")] == ["corroborated"] * 3
