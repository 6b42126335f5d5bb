"""The class's integrity findings as data: each student's flags and every pair, for the
batch's `summary.json` and its gradebook column (the class report draws the same).

Language-neutral: flag kinds and check ids, not sentences; the evidence of a flag is the
check's own message, as graded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grader.class_report.flags import integrity_flags
from grader.class_report.pairs import find_pairs
from grader.class_report.results import Student
from grader.class_report.spec import ClassReportSpec


def class_integrity(students: Sequence[Student], spec: ClassReportSpec | None) -> dict[str, Any]:
    """`{"flags": {id: [{kind, strong, check, evidence}]}, "pairs": [pair]}`."""
    flags = {
        student.id: [
            {"kind": f.key, "strong": f.strong, "check": f.check_id, "evidence": f.message}
            for f in found
        ]
        for student, found in integrity_flags(students, spec)
    }
    pairs = find_pairs(students, spec.pairs if spec is not None else None)
    return {"flags": dict(sorted(flags.items())), "pairs": [p.to_dict() for p in pairs]}


def integrity_cells(integrity: dict[str, Any]) -> dict[str, str]:
    """Per student, the gradebook's `integrity` cell: its flag kinds, then `same_run:<id>`
    for each other student of a pair, `; `-separated."""
    cells: dict[str, list[str]] = {
        sid: sorted({f["kind"] for f in flags}) for sid, flags in integrity["flags"].items()
    }
    for pair in integrity["pairs"]:
        cells.setdefault(pair["a"], []).append(f"same_run:{pair['b']}")
        cells.setdefault(pair["b"], []).append(f"same_run:{pair['a']}")
    return {sid: "; ".join(words) for sid, words in cells.items()}
