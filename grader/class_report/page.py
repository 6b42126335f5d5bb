"""The class report's HTML: one self-contained page, assembled and escaped here.

The page shows the score distribution (histogram, with the median); the pass rate of
every check, worst first, each linking to the list of the students who failed it (and
why, in the words of their feedback); the lab's physics, one mark per student (when the
lab has a `PhysicsSpec`); the integrity flags its `FlagRule`s raise; a table of students
(sortable by a few lines of our own script; without script it is sorted by id) linking
to each student's feedback, rendered in the page.

Inline CSS, inline SVG charts (`grader.charts`), one short inline script, no network
(`assets`). Every text a student controls (the submission id is a file name, messages
quote their files) is escaped with `esc`. The UI labels come from the `[report]` table
of grader/messages/<lang>.toml (the flag labels from the lab's catalog) in English,
Japanese, Korean or Chinese; each student's feedback stays in the language it was graded
in. The same data give the same bytes: no timestamp, no absolute path, everything sorted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.charts import (
    OKABE_ITO,
    Axis,
    BarRow,
    Bin,
    Guide,
    Mark,
    StripMark,
    Style,
    bar_chart,
    esc,
    fmt,
    histogram_chart,
    linear_axis,
    log_axis,
    quantile,
    strip_chart,
    xy_chart,
)
from grader.class_report.assets import CSP, CSS, SCRIPT
from grader.class_report.flags import integrity_flags
from grader.class_report.pairs import find_pairs
from grader.class_report.physics import Physics, read_physics
from grader.class_report.results import CheckRow, Student, Unreadable, read_results
from grader.class_report.spec import INSTALLED, ClassReportSpec, spec_of
from grader.class_report.stats import (
    cache_points,
    cancel_points,
    pass_rates,
    prefill_lines,
    score_histogram,
)
from grader.i18n import Catalog

FULL_WIDTH, HALF_WIDTH = 1140, 560  # SVG units = CSS pixels in the page's 1140 px column


class Labels:
    """The page's words in one language, English for anything missing: `report.<key>`,
    and (`text`) any message id, of the lab's catalog first, then of the grader's."""

    def __init__(self, lang: str, lab_messages: str | None = None) -> None:
        packages = (lab_messages, "grader") if lab_messages else ("grader",)
        self.catalog = Catalog(lang, packages)
        self.lang = self.catalog.lang

    def __call__(self, key: str, **params: object) -> str:
        template = self.catalog.raw(f"report.{key}") or key
        return template.format(**params) if params else template

    def text(self, message_id: str, **params: object) -> str:
        template = self.catalog.raw(message_id) or message_id
        return template.format(**params) if params else template


_SLUG = re.compile(r"[^A-Za-z0-9_.-]")


def anchor(prefix: str, text: str) -> str:
    """A fragment id for `text`: readable when it is plain, made unique with a hash when
    characters had to be replaced."""
    slug = _SLUG.sub("_", text)
    if slug != text or not slug:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{slug[:60]}-{digest}"
    return f"{prefix}-{slug}"


def _percent(part: int, whole: int) -> str:
    """A share as a whole percent that never rounds to 0 or 100 unless it is."""
    if whole <= 0:
        return "–"
    if part == whole:
        return "100"
    if part == 0:
        return "0"
    return str(min(99, max(1, round(100 * part / whole))))


def _score_text(student: Student, t: Labels) -> str:
    if not student.gradable or student.score is None:
        return t("not_graded_cell")
    return f"{fmt(student.score)}/{fmt(student.max_score or 0.0)}"


@dataclass(frozen=True)
class ClassData:
    """Everything the page shows, read from a batch folder."""

    students: tuple[Student, ...]
    unreadable: tuple[Unreadable, ...] = ()
    physics: Mapping[str, Physics] | None = None


def load_class(out_dir: Path | str) -> ClassData:
    students, unreadable = read_results(out_dir)
    return ClassData(tuple(students), tuple(unreadable), read_physics(out_dir))


def _common(values: Iterable[str]) -> str:
    """One value, or the distinct values joined (the same batch normally has one)."""
    distinct = sorted({v for v in values if v})
    return ", ".join(distinct) if distinct else "?"


class _Page:
    """Builds the HTML of a `ClassData` in one language."""

    def __init__(self, data: ClassData, lang: str, spec: ClassReportSpec | None) -> None:
        self.data = data
        self.spec = spec
        self.physics_spec = spec.physics if spec is not None else None
        self.t = Labels(lang, spec.messages_package if spec is not None else None)
        self.students = list(data.students)
        self.graded = [s for s in self.students if s.gradable]
        self.anchors = {s.id: anchor("student", s.id) for s in self.students}
        self.flags = {s.id: f for s, f in integrity_flags(self.students, spec)}

    # ---- pieces

    def w(self, key: str, **params: object) -> str:
        """A word of the lab's physics section (`class_report.physics.<key>`)."""
        return self.t.text(f"class_report.physics.{key}", **params)

    def link(self, student_id: str) -> str:
        return f'<a class="sid" href="#{self.anchors[student_id]}">{esc(student_id)}</a>'

    def href(self, student_id: str) -> str:
        return "#" + self.anchors[student_id]

    def header(self) -> str:
        t, w = self.t, self.w
        scores = sorted(s.score for s in self.graded if s.score is not None)
        median = fmt(quantile(scores, 0.5)) if scores else "–"
        mean = fmt(round(sum(scores) / len(scores), 1)) if scores else "–"
        full = sum(1 for s in self.graded if s.score is not None and s.score >= (s.max_score or 0))
        lab = _common(s.lab for s in self.students)
        figures = [
            (t("submissions"), len(self.students)),
            (t("graded"), len(self.graded)),
            (t("not_graded"), len(self.students) - len(self.graded)),
            (t("median"), median),
            (t("mean"), mean),
            (t("full_marks"), full),
            (t("flagged"), len(self.flags)),
            (t("flagged_strong"), sum(any(f.strong for f in fl) for fl in self.flags.values())),
        ]
        sections = [
            ("scores", t("scores")),
            ("checks", t("checks")),
            ("physics", w("physics")),
            ("integrity", t("integrity")),
            ("students", t("students")),
            ("who-failed", t("who_failed")),
            ("feedback", t("feedback")),
        ]
        if self.physics_spec is None:  # the lab has no physics charts
            sections.remove(("physics", w("physics")))
        if self.data.unreadable:
            sections.append(("unreadable", t("unreadable")))
        meta = t(
            "meta",
            grader=_common(s.grader_version for s in self.students),
            rubric=_common(s.rubric_version for s in self.students),
            language=_common(s.language for s in self.students),
        )
        return (
            f"<header><h1>{esc(t('title'))}</h1>"
            f'<p class="meta">{esc(t("subtitle", lab=lab, n=len(self.students)))}</p>'
            f'<p class="meta">{esc(meta)}</p>'
            '<dl class="figures">'
            + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in figures)
            + f'</dl><nav aria-label="{esc(t("nav"))}"><ol>'
            + "".join(f'<li><a href="#{k}">{esc(v)}</a></li>' for k, v in sections)
            + "</ol></nav></header>"
        )

    def scores(self) -> str:
        t = self.t
        hist = score_histogram(self.students)
        bins = []
        whole = all(float(s.score or 0).is_integer() for s in self.graded)
        for b in hist.bins:
            last = min(b.hi - 1 if whole else b.hi, hist.max_score)
            span = fmt(b.lo) if last <= b.lo else f"{fmt(b.lo)}–{fmt(last)}"
            bins.append(Bin(b.lo, b.hi, len(b.ids), t("bin_tooltip", range=span, n=len(b.ids))))
        markers = []
        if hist.median is not None:
            markers.append((hist.median, t("median_marker", value=fmt(hist.median))))
        svg = histogram_chart(
            "chart-scores",
            t("scores_title"),
            t("scores_x", max=fmt(hist.max_score)),
            t("scores_y"),
            bins,
            Style(t("scores_y"), OKABE_ITO["blue"]),
            markers=markers,
            width=FULL_WIDTH,
            height=300,
        )
        ungraded = len(self.students) - len(self.graded)
        note = (
            f"<figcaption>{esc(t('scores_ungraded', n=ungraded))}</figcaption>" if ungraded else ""
        )
        return (
            f'<section id="scores"><h2>{esc(t("scores"))}</h2>'
            f"<figure>{svg}{note}</figure></section>"
        )

    def checks(self) -> str:
        t = self.t
        rates = pass_rates(self.students)
        styles = {
            "passed": Style(t("passed"), OKABE_ITO["blue"], "square", line_width=0),
            "failed": Style(t("failed"), OKABE_ITO["vermillion"], "square", line_width=0),
            "skipped": Style(t("skipped"), OKABE_ITO["grey"], "square", line_width=0),
            "error": Style(t("error"), OKABE_ITO["reddish_purple"], "square", line_width=0),
        }
        rows = []
        for r in rates:
            pct = _percent(r.passed, r.ran)
            note = (
                t("rate_note_failed", rate=pct, n=len(r.failed_ids))
                if r.failed_ids
                else t("rate_note", rate=pct)
            )
            rows.append(
                BarRow(
                    r.id,
                    (
                        ("passed", r.passed),
                        ("failed", len(r.failed_ids)),
                        ("skipped", len(r.skipped_ids)),
                        ("error", len(r.error_ids)),
                    ),
                    r.ran,
                    note,
                    t(
                        "rate_tooltip",
                        id=r.id,
                        passed=r.passed,
                        failed=len(r.failed_ids),
                        skipped=len(r.skipped_ids),
                        error=len(r.error_ids),
                    )
                    + f" — {r.title}",
                    "#" + anchor("check", r.id),
                )
            )
        svg = bar_chart(
            "chart-checks",
            t("checks_title"),
            t("checks_x"),
            styles,
            rows,
            y_label=t("checks_y"),
            width=FULL_WIDTH,
        )
        empty = "" if rates else f'<p class="muted">{esc(t("no_results"))}</p>'
        return (
            f'<section id="checks"><h2>{esc(t("checks"))}</h2><p>{esc(t("checks_intro"))}</p>'
            f"{empty}<figure>{svg}</figure></section>"
        )

    def who_failed(self) -> str:
        """Per check (worst first), the students who failed it, broke it or skipped it, with
        their message; each check a `<details>` the pass-rate chart links to."""
        t = self.t
        blocks = []
        clean_checks = []
        for r in pass_rates(self.students):
            if not (r.failed_ids or r.skipped_ids or r.error_ids):
                clean_checks.append(
                    f'<li id="{anchor("check", r.id)}"><code>{esc(r.id)}</code> {esc(r.title)}</li>'
                )
                continue
            counts = " ".join(
                f'<span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span>'
                for label, ids, status in (
                    ("failed_by", r.failed_ids, "failed"),
                    ("error_for", r.error_ids, "error"),
                    ("skipped_for", r.skipped_ids, "skipped"),
                )
                if ids
            )
            lists = []
            for label, ids, status in (
                ("failed_by", r.failed_ids, "failed"),
                ("error_for", r.error_ids, "error"),
                ("skipped_for", r.skipped_ids, "skipped"),
            ):
                if ids:
                    items = "".join(
                        f"<li>{self.link(i)}: {esc(r.messages.get(i, ''))}</li>" for i in ids
                    )
                    lists.append(
                        f'<p><span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span></p>'
                        f'<ul class="who">{items}</ul>'
                    )
            blocks.append(
                f'<details class="check-detail" id="{anchor("check", r.id)}"><summary>'
                f"<code>{esc(r.id)}</code> {esc(r.title)} "
                f'<span class="muted">· {esc(t("rate_note", rate=_percent(r.passed, r.ran)))}'
                f"</span> {counts}</summary>{''.join(lists)}</details>"
            )
        if clean_checks:
            blocks.append(
                f"<h3>{esc(t('nobody_failed'))}</h3>"
                f'<ul class="who clean">{"".join(clean_checks)}</ul>'
            )
        return (
            f'<section id="who-failed"><h2>{esc(t("who_failed"))}</h2>'
            f'<p class="muted">{esc(t("who_failed_intro"))}</p>{"".join(blocks)}</section>'
        )

    def _figure(self, svg: str, description: str, drawn: int, off_scale: int) -> str:
        """The chart with its caption: what it shows, who has no mark, what is off scale."""
        notes = [description]
        missing = len(self.graded) - drawn
        if missing:
            notes.append(self.t("no_mark", n=missing))
        if off_scale:
            notes.append(self.t("off_scale", n=off_scale))
        return f"<figure>{svg}<figcaption>{esc(' '.join(notes))}</figcaption></figure>"

    def physics(self) -> str:
        if self.physics_spec is None:
            return ""
        w = self.w
        head = f'<section id="physics"><h2>{esc(w("physics"))}</h2>'
        if self.data.physics is None:
            return head + f'<p class="muted">{esc(w("physics_none"))}</p></section>'
        physics = self.data.physics
        return (
            head
            + f"<p>{esc(w('physics_intro'))}</p>"
            + self._prefill_chart(physics)
            + '<div class="pair">'
            + self._cache_chart(physics)
            + self._cancel_chart(physics)
            + "</div></section>"
        )

    def _prefill_chart(self, physics: Mapping[str, Physics]) -> str:
        w = self.w
        lines = prefill_lines(self.students, physics, self.spec)
        x = linear_axis(
            w("prefill_x"),
            [float(p[0]) for line in lines for p in line.points],
        )
        y = linear_axis(w("prefill_y"), [p[1] for line in lines for p in line.points])
        styles = {
            "rising": Style(
                w("prefill_rising"),
                OKABE_ITO["blue"],
                "circle",
                "",
                1.0,
                0.45,
            ),
            "cache_on": Style(
                w("prefill_cache_on"),
                OKABE_ITO["orange"],
                "square",
                "5 3",
                1.6,
                0.9,
            ),
            "flat": Style(
                w("prefill_flat"),
                OKABE_ITO["vermillion"],
                "triangle",
                "",
                2.4,
                0.95,
            ),
        }
        marks = [
            Mark(
                tuple((float(n), ms) for n, ms, _ in line.points),
                line.kind,
                f"{line.id}: "
                + "; ".join(
                    w("prefill_point", docs=d, prompt_n=n, ttft=fmt(ms)) for n, ms, d in line.points
                ),
                self.href(line.id),
            )
            for line in lines
        ]
        off = sum(
            1
            for line in lines
            for n, ms, _ in line.points
            if not (x.contains(n) and y.contains(ms))
        )
        svg = xy_chart(
            "chart-prefill",
            w("prefill_title"),
            x,
            y,
            styles,
            marks,
            description=w("prefill_desc"),
            width=FULL_WIDTH,
            height=440,
        )
        return self._figure(svg, w("prefill_desc"), len(lines), off)

    def _cache_chart(self, physics: Mapping[str, Physics]) -> str:
        w = self.w
        points = cache_points(self.students, physics, self.spec)
        values = [p.first.ttft_ms for p in points] + [p.second.ttft_ms for p in points]
        both = log_axis("", values)
        x = Axis(w("cache_x"), both.lo, both.hi, both.ticks, log=True)
        y = Axis(w("cache_y"), both.lo, both.hi, both.ticks, log=True)
        styles = {
            "ok": Style(w("cache_ok"), OKABE_ITO["blue"], "circle", "", 1.0, 0.7),
            "bad": Style(
                w("cache_bad"),
                OKABE_ITO["vermillion"],
                "triangle",
                "",
                1.0,
                0.95,
            ),
        }
        marks = [
            Mark(
                ((p.first.ttft_ms, p.second.ttft_ms),),
                "ok" if p.ok else "bad",
                w(
                    "cache_tooltip",
                    id=p.id,
                    first=fmt(p.first.ttft_ms),
                    first_n=p.first.prompt_n,
                    second=fmt(p.second.ttft_ms),
                    second_n=p.second.prompt_n,
                ),
                self.href(p.id),
            )
            for p in points
        ]
        guides = [
            Guide(((both.lo, both.lo), (both.hi, both.hi)), w("cache_same")),
            Guide(
                ((both.lo, both.lo / 10), (both.hi, both.hi / 10)),
                w("cache_tenfold"),
            ),
        ]
        off = sum(
            1 for p in points if not (x.contains(p.first.ttft_ms) and y.contains(p.second.ttft_ms))
        )
        svg = xy_chart(
            "chart-cache",
            w("cache_title"),
            x,
            y,
            styles,
            marks,
            guides=guides,
            description=w("cache_desc"),
            width=HALF_WIDTH,
            height=500,
        )
        return self._figure(svg, w("cache_desc"), len(points), off)

    def _cancel_chart(self, physics: Mapping[str, Physics]) -> str:
        w = self.w
        points = cancel_points(self.students, physics, self.spec)
        x = log_axis(
            w("cancel_x"),
            [p.run.slot_idle_after_ms for p in points],
            floor=0.1,
        )
        rows = {
            "freed": Style(w("cancel_freed"), OKABE_ITO["blue"], "circle"),
            "busy": Style(w("cancel_busy"), OKABE_ITO["vermillion"], "triangle"),
        }
        if any(p.status == "other" for p in points):
            rows["other"] = Style(w("cancel_other"), OKABE_ITO["grey"], "diamond")
        marks = [
            StripMark(
                p.run.slot_idle_after_ms,
                p.status,
                w(
                    "cancel_tooltip",
                    id=p.id,
                    idle=fmt(p.run.slot_idle_after_ms),
                    closed=fmt(p.run.closed_at_ms),
                    received=p.run.received_tokens,
                    max_tokens=p.run.max_tokens,
                ),
                p.id,
                self.href(p.id),
            )
            for p in points
        ]
        off = sum(1 for p in points if not x.contains(p.run.slot_idle_after_ms))
        svg = strip_chart(
            "chart-cancel",
            w("cancel_title"),
            x,
            rows,
            marks,
            description=w("cancel_desc"),
            width=HALF_WIDTH,
        )
        return self._figure(svg, w("cancel_desc"), len(points), off)

    def pairs(self) -> str:
        """The pairs of students whose submissions are one run, with the evidence."""
        t = self.t
        found = find_pairs(self.students, self.spec.pairs if self.spec is not None else None)
        head = f"<h3>{esc(t('pairs'))}</h3><p>{esc(t('pairs_intro'))}</p>"
        if not found:
            return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
        rows = []
        for pair in found:
            evidence = []
            if pair.files:
                evidence.append(t("pair_files", files=", ".join(pair.files)))
            if pair.ids:
                evidence.append(t("pair_ids", ids=", ".join(pair.ids)))
            spec = self.spec.pairs if self.spec is not None else None
            if spec is not None and pair.near > spec.max_near:
                percent = f"{spec.near * 100:g}"
                evidence.append(
                    t("pair_near", near=pair.near, compared=pair.compared, percent=percent)
                )
            rows.append(
                f"<tr><td>{self.link(pair.a)}</td><td>{self.link(pair.b)}</td>"
                f"<td>{esc('; '.join(evidence))}</td></tr>"
            )
        return (
            head + f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("pairs"))}">'
            f'<table class="flags"><thead><tr><th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col">{esc(t("col_evidence"))}</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )

    def integrity(self) -> str:
        t = self.t
        head = (
            f'<section id="integrity"><h2>{esc(t("integrity"))}</h2>'
            f"<p>{esc(t('integrity_intro'))}</p>"
        )
        flagged = integrity_flags(self.students, self.spec)
        if not flagged:
            return head + f'<p class="muted">{esc(t("no_flags"))}</p>' + self.pairs() + "</section>"
        labels = self.spec.flag_labels if self.spec is not None else {}
        strong = self.spec.strong_flags if self.spec is not None else frozenset()
        rows = []
        for student, flags in flagged:
            for number, flag in enumerate(flags):
                cell = (
                    f'<td rowspan="{len(flags)}">{self.link(student.id)}</td>'
                    if number == 0
                    else ""
                )
                severity = "strong" if flag.strong else "weak"
                rows.append(
                    f'<tr>{cell}<td><span class="badge {severity}">{esc(t(severity))}</span> '
                    f"{esc(t.text(labels[flag.key]))}</td>"
                    f"<td><code>{esc(flag.check_id)}</code>: {esc(flag.message)}</td></tr>"
                )
        kinds = []
        for key, label in labels.items():
            ids = {s.id for s, flags in flagged if any(f.key == key for f in flags)}
            if ids:
                severity = "strong" if key in strong else "weak"
                kinds.append(
                    f'<li><span class="badge {severity}">{len(ids)}</span> '
                    f"{esc(t.text(label))}</li>"
                )
        legend = (
            f'<p><span class="badge strong">{esc(t("strong"))}</span> '
            f'<span class="badge weak">{esc(t("weak"))}</span></p>'
        )
        return (
            head
            + legend
            + f'<ul class="kinds">{"".join(kinds)}</ul>'
            + f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("integrity"))}">'
            f'<table class="flags"><thead><tr><th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col">{esc(t("col_flag"))}</th>'
            f'<th scope="col">{esc(t("col_evidence"))}</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            + self.pairs()
            + "</section>"
        )

    def table(self) -> str:
        t = self.t
        rows = []
        for s in self.students:
            flags = self.flags.get(s.id, ())
            strong = sum(f.strong for f in flags)
            failed = sum(c.status == "failed" for c in s.checks)
            other = sum(c.status in ("skipped", "error") for c in s.checks)
            score = s.score if s.gradable and s.score is not None else -1
            not_passed = " ".join(c.id for c in s.not_passed)
            flag_text = "".join(
                f' <span class="badge {kind}" title="{esc(t(kind))}">{count}</span>'
                for kind, count in (("strong", strong), ("weak", len(flags) - strong))
                if count
            )
            rows.append(
                f"<tr><td>{self.link(s.id)}</td>"
                f'<td class="num score" data-sort="{score:.6g}">{esc(_score_text(s, t))}</td>'
                f'<td class="num">{failed if s.gradable else ""}</td>'
                f'<td class="num">{other if s.gradable else ""}</td>'
                f'<td class="num" data-sort="{strong * 1000 + len(flags)}">{flag_text}</td>'
                f'<td class="mono">{esc(not_passed)}</td></tr>'
            )
        return (
            f'<section id="students"><h2>{esc(t("students"))}</h2>'
            f'<p class="js-only muted">{esc(t("sort_hint"))}</p>'
            f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("students"))}">'
            '<table class="sortable"><thead><tr>'
            f'<th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_score"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_failed"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_skipped"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_flags"))}</th>'
            f'<th scope="col">{esc(t("col_failed_checks"))}</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
        )

    def _check_item(self, c: CheckRow) -> str:
        t = self.t
        facts = []
        if c.where:
            facts.append((t("where"), f"<code>{esc(c.where)}</code>"))
        if c.expected is not None:
            facts.append((t("expected"), f"<code>{esc(c.expected)}</code>"))
        if c.found is not None:
            facts.append((t("found"), f"<code>{esc(c.found)}</code>"))
        dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts)
        return (
            f'<li><p><span class="badge s-{c.status}">{esc(t(c.status))}</span> '
            f"<code>{esc(c.id)}</code> {esc(c.title)} "
            f'<span class="muted">({esc(t("points", points=fmt(c.points), max=fmt(c.max_points)))})'
            "</span></p>"
            + (f"<p>{esc(c.message)}</p>" if c.message else "")
            + (f"<dl>{dl}</dl>" if dl else "")
            + (f'<p class="hint">→ {esc(c.hint)}</p>' if c.hint else "")
            + (f'<p class="why">{esc(c.explanation)}</p>' if c.explanation else "")
            + "</li>"
        )

    def feedback(self) -> str:
        t = self.t
        blocks = []
        for s in self.students:
            failed = sum(c.status == "failed" for c in s.checks)
            badge = (
                f' <span class="badge s-failed">{failed} {esc(t("failed"))}</span>'
                if failed
                else ""
            )
            body = []
            if s.submission:
                body.append(
                    f'<p class="muted">{esc(t("folder"))}: <code>{esc(s.submission)}</code></p>'
                )
            if not s.gradable:
                errors = "".join(f"<li>{esc(e)}</li>" for e in s.format_errors)
                body.append(f"<p><strong>{esc(t('not_gradable'))}</strong></p><ul>{errors}</ul>")
            else:
                issues = s.not_passed
                if issues:
                    body.append("<ol>" + "".join(self._check_item(c) for c in issues) + "</ol>")
                else:
                    body.append(f"<p>{esc(t('all_passed', n=len(s.checks)))}</p>")
                passed = [c for c in s.checks if c.status == "passed"]
                if passed and issues:
                    items = "".join(
                        f"<li><code>{esc(c.id)}</code> {esc(c.title)}"
                        + (f' <span class="muted">— {esc(c.message)}</span>' if c.message else "")
                        + "</li>"
                        for c in passed
                    )
                    body.append(
                        f"<details><summary>{esc(t('passed_list', n=len(passed)))}</summary>"
                        f"<ul>{items}</ul></details>"
                    )
                if s.file_problems:
                    problems = "".join(f"<li><code>{esc(p)}</code></li>" for p in s.file_problems)
                    body.append(f"<p>{esc(t('file_problems'))}</p><ul>{problems}</ul>")
            body.append(f'<p><a href="#students">{esc(t("back"))}</a></p>')
            blocks.append(
                f'<details class="student" id="{self.anchors[s.id]}">'
                f'<summary><span class="sid">{esc(s.id)}</span> · {esc(_score_text(s, t))}{badge}'
                "</summary>"
                f'<div class="feedback" lang="{esc(s.language)}">{"".join(body)}</div></details>'
            )
        return (
            f'<section id="feedback"><h2>{esc(t("feedback"))}</h2>'
            f'<p class="muted">{esc(t("feedback_intro"))}</p>{"".join(blocks)}</section>'
        )

    def unreadable(self) -> str:
        if not self.data.unreadable:
            return ""
        t = self.t
        items = "".join(
            f"<li><code>{esc(u.name)}</code>: {esc(u.reason)}</li>" for u in self.data.unreadable
        )
        return (
            f'<section id="unreadable"><h2>{esc(t("unreadable"))}</h2>'
            f"<p>{esc(t('unreadable_intro'))}</p><ul>{items}</ul></section>"
        )

    def html(self) -> str:
        t = self.t
        lab = _common(s.lab for s in self.students)
        return (
            "<!DOCTYPE html>\n"
            f'<html lang="{self.t.lang}"><head><meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="firsttoken-grader {esc(__version__)}">\n'
            f"<title>{esc(t('title'))} · {esc(lab)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n"
            + self.header()
            + "\n<main>\n"
            + "\n".join(
                (
                    self.scores(),
                    self.checks(),
                    self.physics(),
                    self.integrity(),
                    self.table(),
                    self.who_failed(),
                    self.feedback(),
                    self.unreadable(),
                )
            )
            + f"\n</main>\n<script>{SCRIPT}</script>\n</body></html>\n"
        )


def render_report(data: ClassData, lang: str = "en", lab: Any = INSTALLED) -> str:
    """The page's HTML: a pure function of `data`, `lang` and the lab's `ClassReportSpec`
    (`lab`: a `Lab`, its "package:attribute" name, its spec, or None for no lab)."""
    return _Page(data, lang, spec_of(lab)).html()
