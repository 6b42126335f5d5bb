"""The class's integrity findings as data: each student's flags and the groups of students
who handed in one run, for the batch's `summary.json` and its gradebook column (the class
report reads the same from summary.json, or finds them itself for results alone).

Language-neutral: flag kinds and check ids, not sentences; the evidence of a flag is the
check's own message, as graded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grader.class_report.flags import Flag, flags_of
from grader.class_report.groups import find_groups
from grader.class_report.pairs import Compared, compared_of, positions_of
from grader.class_report.results import Student
from grader.class_report.spec import ClassReportSpec


@dataclass(frozen=True)
class Evidence:
    """What the class's integrity findings need of one student: its flags and, graded,
    what pairs are found by (`Compared`; None when not graded or the lab compares none).

    A batch's worker makes it where it writes the result, and only this travels back
    with the row: the whole `Student` was ≈8 KB to pickle and unpickle per row, and its
    hundred objects, kept for the whole batch, were what the batch's own collector
    walked again and again."""

    id: str
    flags: tuple[Flag, ...]
    compared: Compared | None


def evidence_of(student: Student, spec: ClassReportSpec | None) -> Evidence:
    """The integrity evidence of one student, by the lab's spec (None: no flags, no
    pairs)."""
    rules = spec.flags if spec is not None else ()
    pairs = spec.pairs if spec is not None else None
    compared = compared_of(student, pairs) if pairs is not None and student.gradable else None
    return Evidence(student.id, flags_of(student, rules), compared)


def class_integrity(students: Sequence[Student], spec: ClassReportSpec | None) -> dict[str, Any]:
    """`{"flags": {id: [{kind, strong, check, evidence}]}, "groups": [group],
    "near_timings_needed": n}` (`grader.class_report.groups.Group.to_dict`: one finding
    per group of students who handed in one run; how many near-identical timings made a
    link in this class, `grader.class_report.pairs.near_needed_of`, at how many timing
    `positions`, of how many students `compared`; absent when the lab compares none).
    Its size grows with the class: each student is named once."""
    return integrity_of([evidence_of(s, spec) for s in students], spec)


def integrity_of(evidence: Sequence[Evidence], spec: ClassReportSpec | None) -> dict[str, Any]:
    """`class_integrity` of the students whose `evidence_of` this is."""
    flags = {
        one.id: [
            {"kind": f.key, "strong": f.strong, "check": f.check_id, "evidence": f.message}
            for f in one.flags
        ]
        for one in evidence
        if one.flags
    }
    graded = [one.compared for one in evidence if one.compared is not None]
    if spec is None or spec.pairs is None:
        return {"flags": dict(sorted(flags.items())), "groups": []}
    groups, needed = find_groups(graded, spec.pairs)
    return {
        "flags": dict(sorted(flags.items())),
        "groups": [g.to_dict() for g in groups],
        "near_timings_needed": needed,
        "positions": positions_of(graded),
        "compared": len(graded),
    }


def integrity_cells(integrity: dict[str, Any]) -> dict[str, str]:
    """Per student, the gradebook's `integrity` cell: its flag kinds, then
    `same_run:<group id>` when it is in a group (summary.json names the group's members
    and evidence), `; `-separated: one cell never names every classmate of a large group."""
    cells: dict[str, list[str]] = {
        sid: sorted({f["kind"] for f in flags}) for sid, flags in integrity["flags"].items()
    }
    for group in integrity.get("groups", ()):
        for sid in group["members"]:
            cells.setdefault(sid, []).append(f"same_run:{group['id']}")
    return {sid: "; ".join(words) for sid, words in cells.items()}
