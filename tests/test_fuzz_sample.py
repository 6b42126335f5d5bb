"""A short, fixed-seed run of the mutation fuzzer (`grader.fuzzing` with this lab's
`checks.mutators:TARGET`; `scripts/fuzz.py` is its command line), in this process.

Every mutant of the real captures must grade without an exception escaping, to a result
valid against `grader/schemas/result.schema.json`, with the same bytes when graded
twice. Speed is what the script reports; nothing here asserts timings.
"""

from __future__ import annotations

from pathlib import Path

from checks.mutators import TARGET
from grader.fuzzing import make_case, run_in_process

SEED = 20261130
CASES = 300


def _explain(summary, kind: str) -> str:
    found = summary.signatures.get(kind, {})
    return "; ".join(
        f"{count} x {sig} (replay: python scripts/fuzz.py --seed {SEED} "
        f"--replay {summary.examples[(kind, sig)]})"
        for sig, count in found.items()
    )


def test_mutants_are_generated_deterministically() -> None:
    seeds = TARGET.seeds()
    assert len(seeds) >= 5  # the real captures at the top of sample_submissions/
    assert "derived" not in seeds
    for index in (0, 1, 7, 123):
        first = make_case(TARGET, seeds, SEED, index)
        again = make_case(TARGET, seeds, SEED, index)
        assert first == again
    assert make_case(TARGET, seeds, SEED, 1) != make_case(TARGET, seeds, SEED + 1, 1)


def test_the_lab_adds_its_own_mutations_after_the_generic_ones() -> None:
    names = [m.name for m in TARGET.mutations]
    assert names.index("byte_flip") < names.index("json_type_swap") < names.index("log_garbage")
    assert {"sse_done_to_middle", "py_signature", "log_delete_cancel"} <= set(names)


def test_fixed_seed_sample_has_no_crash_invalid_or_nondeterministic_result(
    tmp_path: Path,
) -> None:
    summary = run_in_process(TARGET, CASES, SEED, out=tmp_path / "failures")
    assert summary.cases == CASES
    assert summary.crashes == 0, _explain(summary, "crash")
    assert summary.invalid == 0, _explain(summary, "invalid")
    assert summary.nondeterministic == 0, _explain(summary, "nondeterministic")
    assert summary.fuzzer_errors == 0, _explain(summary, "fuzzer_error")
