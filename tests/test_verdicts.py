"""Every bundled sample gets the verdict written in sample_submissions/EXPECTED.json.

The real llama-server captures: full marks for the correct run, and each mistake caught
by the check named for it and by no unrelated check. The derived samples: each breaks
exactly the check it was made for.
"""

from __future__ import annotations

import pytest

from tests.conftest import EXPECTED, SAMPLES, statuses


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_gets_its_expected_verdict(name: str, grade_folder) -> None:
    expected = EXPECTED[name]
    result = grade_folder(SAMPLES / name)
    status = statuses(result)
    if expected.get("full_marks"):
        assert [i for i, s in status.items() if s != "passed"] == []
        assert result.score == result.max_score
        return
    must = [group.split("|") for group in expected["must_fail"]]  # type: ignore[union-attr]
    allowed = {i for group in must for i in group} | set(expected.get("may_fail", []))  # type: ignore[arg-type]
    for group in must:
        assert any(status.get(i) == "failed" for i in group), f"{group} should fail: {status}"
    unrelated = {i: s for i, s in status.items() if s != "passed" and i not in allowed}
    assert unrelated == {}


def test_every_check_is_broken_by_some_sample() -> None:
    from checks import LAB

    named = {i for e in EXPECTED.values() for g in e.get("must_fail", []) for i in g.split("|")}  # type: ignore[union-attr]
    schema_checks = {f"{a.name}.schema" for a in LAB.artifacts}
    missing = [c.id for c in LAB.checks if c.id not in named]
    assert missing == []
    assert named & schema_checks  # at least the schema failures that have samples
