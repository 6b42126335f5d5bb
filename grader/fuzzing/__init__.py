"""A mutation fuzzer for any lab: break its real captures at random and grade the wreckage.

The grader promises to be a pure function from a folder to a `Result`: it never raises
(except `NotGradable` for a missing folder), always gives a result valid against the
result schema, and gives the same bytes for the same input. A campaign tests those
promises on mutants of a lab's seed submissions: each case takes one seed, applies 1-3
random mutations to its files, and grades the mutant twice in-process (`runner`).

What is generic lives here: the file states (`files`), the mutations of bytes, lines,
encodings and whole files (`mutations`) and of JSON (`json_mutations`), cases
(`target`), the case runner and its outcomes (`runner`), campaigns in one process
(`campaign`) or many (`parallel`), and their report (`report`). What is a lab's own is
its `Target`: its seeds, the kind of each of its files and its formats' own mutations
(the first-token lab's is `checks.mutators:TARGET`; `scripts/fuzz.py` runs it).

Mutants are a function of (seed, case index) only, so a run is reproducible and one
case can be replayed alone.
"""

from grader.fuzzing import json_mutations as _json_mutations  # registers the JSON ones
from grader.fuzzing.campaign import (
    DEFAULT_SAVE_CAP,
    DEFAULT_WATCHDOG,
    Campaign,
    Summary,
    run_in_process,
    signature,
)
from grader.fuzzing.files import Special, State, load_seeds, put_file, write_submission
from grader.fuzzing.mutations import GENERIC, Mutation, Mutations
from grader.fuzzing.parallel import run_parallel, target_of
from grader.fuzzing.report import progress_printer, replay, report, table
from grader.fuzzing.runner import (
    FAILURE_KINDS,
    HANG_SECONDS,
    INFO_KINDS,
    CaseRunner,
    Outcome,
    ResultValidator,
)
from grader.fuzzing.target import Case, Target, make_case

del _json_mutations

__all__ = [
    "DEFAULT_SAVE_CAP",
    "DEFAULT_WATCHDOG",
    "FAILURE_KINDS",
    "GENERIC",
    "HANG_SECONDS",
    "INFO_KINDS",
    "Campaign",
    "Case",
    "CaseRunner",
    "Mutation",
    "Mutations",
    "Outcome",
    "ResultValidator",
    "Special",
    "State",
    "Summary",
    "Target",
    "load_seeds",
    "make_case",
    "progress_printer",
    "put_file",
    "replay",
    "report",
    "run_in_process",
    "run_parallel",
    "signature",
    "table",
    "target_of",
    "write_submission",
]
