"""The class report's HTML: one self-contained page, assembled here.

The page shows the score distribution (histogram, with the median) and the pass rate of
every check, worst first (`overview`); then the lab's own sections (its `Section`s:
the charts of the class a lab draws from its results); the integrity flags its
`FlagRule`s raise and the pairs of one run handed in twice (`integrity_section`); a
table of students (sortable by a few lines of our own script; without script it is
sorted by id) linking to each student's feedback, rendered in the page (`students`);
and the students who failed each check, with their message (`overview`).

The page stays light at any class size (a 10,000-student class: about 12 MB, open in a
browser in about 3 s): a student's feedback is capped (`students.MAX_ISSUES` checks in
full, messages cut at `students.MESSAGE_CHARS`), a check's explanation is shown once
with the students who failed it, the full feedback of the students who lost most points
fills `students.FEEDBACK_BUDGET` and the others name their failed checks (the result
files hold the rest), each check lists `overview.WHO_CAP` students by name, and the long
sections are laid out only when scrolled to (`content-visibility`).
tests/test_class_report_size.py holds the page to a size linear in the class.

Everything comes from the result files alone (`results`): a lab's sections draw the
measurements its results carry, so the page is the same whatever happened to the
submissions. Inline CSS, inline SVG charts (`charts`), one short inline script, no
network (`assets`). Every text a student controls (the submission id is a file name,
messages quote their files) is escaped with `svg.esc`. The UI labels come from the
`[report]` table of the catalogs (the lab's first, then grader/messages/<lang>.toml) in
English, Japanese, Korean or Chinese; each student's feedback stays in the language it
was graded in. The same data give the same bytes: no timestamp, no absolute path,
everything sorted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader import __version__
from grader.class_report.assets import CSP, CSS, SCRIPT
from grader.class_report.context import Labels, PageContext
from grader.class_report.flags import integrity_flags
from grader.class_report.integrity_section import integrity
from grader.class_report.numbers import quantile
from grader.class_report.overview import checks, scores, who_failed
from grader.class_report.results import Student, Unreadable, of_lab, read_results
from grader.class_report.spec import INSTALLED, ClassReportSpec, Section, lab_of, spec_of
from grader.class_report.students import feedback, table, unreadable
from grader.class_report.svg import esc, fmt

if TYPE_CHECKING:
    from grader.class_report.spec import LabRef


@dataclass(frozen=True)
class ClassData:
    """Everything the page shows, read from a batch folder's result files."""

    students: tuple[Student, ...]
    unreadable: tuple[Unreadable, ...] = ()
    integrity: dict[str, Any] | None = None
    """The batch's class findings (summary.json's `integrity`), when they are of these very
    results: the page shows its groups instead of finding them again."""


def load_class(
    out_dir: Path | str,
    lab: str | None = None,
    read: tuple[list[Student], list[Unreadable]] | None = None,
) -> ClassData:
    """The results of a batch folder (`lab`: only the results of that lab; see
    `results.read_results`; `read`: what `read_results(out_dir)` gave, so that a class
    is read once), with the batch's class findings when its summary.json has them for
    these results (`stored_integrity`)."""
    students, bad = of_lab(*read, lab) if read is not None else read_results(out_dir, lab)
    return ClassData(tuple(students), tuple(bad), stored_integrity(out_dir, students))


def stored_integrity(out_dir: Path | str, students: Sequence[Student]) -> dict[str, Any] | None:
    """summary.json's `integrity`, when the batch wrote it for exactly these students: as
    many compared as are graded here, and every member of its groups one of them (a
    result added or removed since: None, and the page finds the groups itself)."""
    import json
    import os

    try:
        with open(os.path.join(out_dir, "summary.json"), encoding="utf-8") as handle:
            found = json.load(handle).get("integrity")
    except (OSError, ValueError, AttributeError):
        return None
    graded = {s.id for s in students if s.gradable}
    if not isinstance(found, dict) or not isinstance(found.get("groups"), list):
        return None
    try:
        fresh = found.get("compared") == len(graded) and all(
            sid in graded for group in found["groups"] for sid in group["members"]
        )
    except (TypeError, KeyError):
        return None
    return found if fresh else None


def _common(values: Iterable[str]) -> str:
    """One value, or the distinct values joined (the same batch normally has one)."""
    distinct = sorted({v for v in values if v})
    return ", ".join(distinct) if distinct else "?"


def _header(ctx: PageContext, sections: tuple[Section, ...]) -> str:
    t = ctx.t
    scored = sorted(s.score for s in ctx.graded if s.score is not None)
    median = fmt(quantile(scored, 0.5)) if scored else "–"
    mean = fmt(round(sum(scored) / len(scored), 1)) if scored else "–"
    full = sum(1 for s in ctx.graded if s.score is not None and s.score >= (s.max_score or 0))
    lab = _common(s.lab for s in ctx.students)
    figures = [
        (t("submissions"), len(ctx.students)),
        (t("graded"), len(ctx.graded)),
        (t("not_graded"), len(ctx.students) - len(ctx.graded)),
        (t("median"), median),
        (t("mean"), mean),
        (t("full_marks"), full),
        (t("flagged"), len(ctx.flags)),
        (t("flagged_strong"), sum(any(f.strong for f in fl) for fl in ctx.flags.values())),
    ]
    contents = [
        ("scores", t("scores")),
        ("checks", t("checks")),
        *((s.id, t.text(s.title)) for s in sections),
        ("integrity", t("integrity")),
        ("students", t("students")),
        ("who-failed", t("who_failed")),
        ("feedback", t("feedback")),
    ]
    if ctx.unreadable:
        contents.append(("unreadable", t("unreadable")))
    meta = t(
        "meta",
        grader=_common(s.grader_version for s in ctx.students),
        rubric=_common(s.rubric_version for s in ctx.students),
        language=_common(s.language for s in ctx.students),
    )
    return (
        f"<header><h1>{esc(t('title'))}</h1>"
        f'<p class="meta">{esc(t("subtitle", lab=lab, n=len(ctx.students)))}</p>'
        f'<p class="meta">{esc(meta)}</p>'
        '<dl class="figures">'
        + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in figures)
        + f'</dl><nav aria-label="{esc(t("nav"))}"><ol>'
        + "".join(f'<li><a href="#{k}">{esc(v)}</a></li>' for k, v in contents)
        + "</ol></nav></header>"
    )


def _section(ctx: PageContext, section: Section) -> str:
    """One of the lab's sections: its heading, and its body as the lab draws it."""
    return (
        f'<section id="{esc(section.id)}"><h2>{esc(ctx.t.text(section.title))}</h2>'
        f"{section.render(ctx)}</section>"
    )


def render_page(ctx: PageContext) -> str:
    """The page of a class (`ctx`), with the lab's sections of `ctx.spec`."""
    t = ctx.t
    sections: tuple[Section, ...] = ctx.spec.sections if ctx.spec is not None else ()
    lab = _common(s.lab for s in ctx.students)
    parts = (
        scores(ctx),
        checks(ctx),
        *(_section(ctx, s) for s in sections),
        integrity(ctx),
        table(ctx),
        who_failed(ctx),
        feedback(ctx),
        unreadable(ctx),
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{t.lang}"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="firsttoken-grader {esc(__version__)}">\n'
        f"<title>{esc(t('title'))} · {esc(lab)}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n"
        + _header(ctx, sections)
        + "\n<main>\n"
        + "\n".join(parts)
        + f"\n</main>\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


def page_context(data: ClassData, lang: str, spec: ClassReportSpec | None) -> PageContext:
    """The context every section is drawn from, in `lang`, for the lab's `spec`."""
    labels = Labels(lang, spec.messages_package if spec is not None else None)
    flags = {s.id: found for s, found in integrity_flags(list(data.students), spec)}
    return PageContext(data.students, labels, spec, data.unreadable, flags, data.integrity)


def render_report(
    data: ClassData, lang: str = "en", lab: LabRef | ClassReportSpec = INSTALLED
) -> str:
    """The page's HTML: a pure function of `data`, `lang` and the lab's `ClassReportSpec`
    (`lab`: a `Lab`, its name or "package.module:ATTRIBUTE", its spec, `INSTALLED` for
    the only installed lab, or None for no lab)."""
    return render_page(page_context(data, lang, spec_of(lab)))


def write_class_report(
    out_dir: Path,
    html_path: Path,
    lang: str,
    lab: LabRef = INSTALLED,
    read: tuple[list[Student], list[Unreadable]] | None = None,
) -> ClassData:
    """Write the class report of the batch folder `out_dir` to `html_path` (atomically),
    from its result files alone.

    `lab` is the graded lab (a `Lab`, its name or "package.module:ATTRIBUTE", as
    `grader batch` takes it; `INSTALLED`: the only installed lab): its `ClassReportSpec`
    gives the page its own sections and its integrity flags, and only its results are
    shown (a result of another lab is listed as unreadable). `read`: the folder's
    results as `read_results(out_dir)` gave them, when the caller has read them already
    (reading is most of the time a large class takes). Returns what the page shows."""
    from grader.system.atomic import write_atomic

    the_lab = lab_of(lab)
    data = load_class(out_dir, the_lab.name, read)
    page = render_report(data, lang, the_lab)
    write_atomic(str(html_path), page.encode("utf-8", "replace"))
    return data
