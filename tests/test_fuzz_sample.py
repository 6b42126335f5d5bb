"""A short, fixed-seed run of the mutation fuzzer (`scripts/fuzz.py`), in this process.

Every mutant of the real captures must grade without an exception escaping, to a result
valid against `grader/schemas/result.schema.json`, with the same bytes when graded twice. Speed
is what the script reports; nothing here asserts timings.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fuzz.py"
SEED = 20261130
CASES = 300


def _load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    return _load_fuzz()


def _explain(summary, kind: str) -> str:
    found = summary.signatures.get(kind, {})
    return "; ".join(
        f"{count} x {sig} (replay: python scripts/fuzz.py --seed {SEED} "
        f"--replay {summary.examples[(kind, sig)]})"
        for sig, count in found.items()
    )


def test_mutants_are_generated_deterministically(fuzz: ModuleType) -> None:
    seeds = fuzz.load_seeds()
    assert len(seeds) >= 5  # the real captures at the top of sample_submissions/
    assert "derived" not in seeds
    for index in (0, 1, 7, 123):
        first = fuzz.make_case(seeds, SEED, index)
        again = fuzz.make_case(seeds, SEED, index)
        assert first == again
    assert fuzz.make_case(seeds, SEED, 1) != fuzz.make_case(seeds, SEED + 1, 1)


def test_fixed_seed_sample_has_no_crash_invalid_or_nondeterministic_result(
    fuzz: ModuleType, tmp_path: Path
) -> None:
    summary = fuzz.run_in_process(CASES, SEED, out=tmp_path / "failures")
    assert summary.cases == CASES
    assert summary.crashes == 0, _explain(summary, "crash")
    assert summary.invalid == 0, _explain(summary, "invalid")
    assert summary.nondeterministic == 0, _explain(summary, "nondeterministic")
    assert summary.fuzzer_errors == 0, _explain(summary, "fuzzer_error")
