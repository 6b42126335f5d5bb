"""Integrity flags: signs that a student's files are not one real run as the server
produced it, raised by the lab's `FlagRule`s from the outcomes of its checks.

A flag is a reason to look, not a verdict. A strong one means the files contradict their
source (the server log, the file a number was copied from); a weak one is worth a look.
Which check outcomes raise which flag is the lab's knowledge (its `ClassReportSpec`);
a lab without one has no flags.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.class_report.results import CheckRow, Student
from grader.class_report.spec import INSTALLED, FlagRule, spec_of

if TYPE_CHECKING:
    from grader.class_report.spec import ClassReportSpec, LabRef


@dataclass(frozen=True)
class Flag:
    """One integrity flag on one student: its kind, how strong, and the evidence."""

    key: str
    strong: bool
    check_id: str
    message: str


def _matches(rule: FlagRule, row: CheckRow) -> bool:
    if row.id not in rule.checks or row.status != rule.status:
        return False
    message_id = row.message_id or ""
    if rule.except_note is not None and message_id.endswith(f".{rule.except_note}"):
        return False
    return rule.note is None or message_id.endswith(f".{rule.note}")


def flags_of(student: Student, rules: Iterable[FlagRule]) -> tuple[Flag, ...]:
    """The integrity flags of one graded student, in the order of the rules (then of the
    checks in the result); an ungraded student has none."""
    if not student.gradable:
        return ()
    flags: list[Flag] = []
    for rule in rules:
        if any(student.status(check_id) != "passed" for check_id in rule.if_passed):
            continue
        flags.extend(
            Flag(rule.key, rule.strong, row.id, row.message or row.title)
            for row in student.checks
            if row.id in rule.checks and _matches(rule, row)  # most rows: no call
        )
    return tuple(flags)


def integrity_flags(
    students: Sequence[Student], lab: LabRef | ClassReportSpec = INSTALLED
) -> list[tuple[Student, tuple[Flag, ...]]]:
    """The students with at least one flag by the lab's rules (`lab`: a `Lab`, its
    "package:attribute" name or its `ClassReportSpec`): most strong flags first, then by
    id."""
    spec = spec_of(lab)
    rules = spec.flags if spec is not None else ()
    flagged = [(s, f) for s in students if (f := flags_of(s, rules))]
    return sorted(flagged, key=lambda sf: (-sum(f.strong for f in sf[1]), -len(sf[1]), sf[0].id))
