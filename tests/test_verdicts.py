"""Every bundled sample gets the verdict written in sample_submissions/EXPECTED.json.

The real llama-server captures: full marks for the correct run, and each mistake caught
by the check named for it and by no unrelated check. The derived samples: each breaks
exactly the check it was made for.
"""

from __future__ import annotations

import pytest

from tests.conftest import EXPECTED, SAMPLES, assert_verdict


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_gets_its_expected_verdict(name: str, grade_folder) -> None:
    assert_verdict(grade_folder(SAMPLES / name), EXPECTED[name])


def test_every_check_is_broken_by_some_sample() -> None:
    from checks import LAB

    named = {i for e in EXPECTED.values() for g in e.get("must_fail", []) for i in g.split("|")}  # type: ignore[union-attr]
    from tests.hostile_cases import RUNTIME_CASES  # built at run time (FIFOs, links, ...)

    named |= {i for _, _, must, _ in RUNTIME_CASES.values() for i in must}
    assert [cid for cid in LAB.all_check_ids() if cid not in named] == []
