"""The toy lab's part of the class report: one section, from the results alone."""

from __future__ import annotations

from grader.class_report.context import PageContext
from grader.class_report.spec import ClassReportSpec, FlagRule, Section
from grader.class_report.svg import esc


def _render(ctx: PageContext) -> str:
    times = []
    for student in ctx.graded:
        row = student.check("answer.schema")
        if (
            row is not None
            and row.status == "passed"
            and isinstance(row.data.get("seconds"), (int, float))
        ):
            times.append((student.id, row.data["seconds"]))
    items = "".join(f"<li>{ctx.link(sid)}: {esc(seconds)} s</li>" for sid, seconds in times)
    return f"<p>{esc(ctx.t.text('toy.report.intro', n=len(times)))}</p><ul>{items}</ul>"


CLASS_REPORT = ClassReportSpec(
    sections=(Section("answers", "toy.report.title", _render),),
    flags=(FlagRule("slow", strong=False, checks=("answer.quick",), label="toy.report.slow"),),
    messages_package=__name__.rpartition(".")[0],
)
