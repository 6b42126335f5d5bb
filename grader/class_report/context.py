"""What every section of the class report is drawn from, the lab's own sections too.

A `PageContext` holds the students (read from the result files alone), the page's words
in one language (`Labels`), the lab's `ClassReportSpec` and the integrity flags, and
gives the pieces every section needs: a link to a student's feedback, a chart's figure
with its caption. A lab's section (`spec.Section`) is a function of this context.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grader.class_report.results import Student, Unreadable
from grader.class_report.svg import esc, fmt, many
from grader.engine.api import PARAMS_KEY
from grader.words.i18n import Catalog

FULL_WIDTH, HALF_WIDTH = 1140, 560  # SVG units = CSS pixels in the page's 1140 px column
NARROW_WIDTH = 720
"""A full-width chart is drawn twice: FULL_WIDTH for a wide window, and NARROW_WIDTH for a
narrow one and for print, where a 1140-unit chart would shrink its text to 8 px; CSS shows
one (`.wide-only`, `.narrow-only`). No chart is ever drawn larger than its own width."""


class Labels:
    """The page's words in one language, English for anything missing: `report.<key>`,
    and (`text`) any message id, of the lab's catalog first, then of the grader's."""

    def __init__(self, lang: str, lab_messages: str | None = None) -> None:
        packages = (lab_messages, "grader") if lab_messages else ("grader",)
        self.catalog = Catalog(lang, packages)
        self.lang = self.catalog.lang

    def __call__(self, key: str, **params: object) -> str:
        count = params.get("n", params.get("count"))
        full = f"report.{key}"
        if isinstance(count, int) and not isinstance(count, bool):  # "1 error", "2 errors"
            full = self.catalog.form(full, count)
        template = self.catalog.raw(full) or key
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


def percent(part: int, whole: int) -> str:
    """A share as a whole percent that never rounds to 0 or 100 unless it is."""
    if whole <= 0:
        return "–"
    if part == whole:
        return "100"
    if part == 0:
        return "0"
    return str(min(99, max(1, round(100 * part / whole))))


@dataclass
class PageContext:
    """The class as the page shows it: the students, the words, the lab's spec, the flags."""

    students: tuple[Student, ...]
    t: Labels
    spec: Any = None
    """The lab's `ClassReportSpec`, or None. `Any` only because a spec's sections render a
    `PageContext`: naming the class here would make context and spec import each other
    (tests/test_layout.py counts annotations too); `page` and `integrity_section` read it
    as a `ClassReportSpec | None`."""
    unreadable: tuple[Unreadable, ...] = ()
    flags: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    """Student id -> its integrity flags (`flags.Flag`), for the students that have any
    (`Any` for the same reason: `flags` imports `spec`)."""
    integrity: Mapping[str, Any] | None = None
    """The batch's class findings for these results (`page.stored_integrity`), if any."""

    def __post_init__(self) -> None:
        self.graded = [s for s in self.students if s.gradable]
        self.anchors = {s.id: anchor("student", s.id) for s in self.students}

    def params(self, check_id: str, name: str) -> list[float]:
        """The values the class's results were judged by for a check's rubric parameter
        `name` (`data["params"]`, kept by the runner), distinct and sorted: one, for a
        class graded with one rubric; none when no result ran the check. A lab's section
        draws them as the thresholds of its charts, never a number of its own."""
        values: set[float] = set()
        for student in self.graded:
            row = student.check(check_id)
            params = row.data.get(PARAMS_KEY) if row is not None else None
            value = params.get(name) if isinstance(params, dict) else None
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            ):
                values.add(float(value))
        return sorted(values)

    def many(self, ids: Sequence[str], text: str) -> str:
        """The tooltip of a mark that stands for several students: how many, `text`
        (their numbers), and their ids (the first dozen)."""
        if len(ids) == 1:
            return f"{ids[0]}: {text}"
        head = self.t("many", n=len(ids))
        more = self.t("many_more", n=len(ids) - 12)
        return many(ids, f"{head} {text}", more)

    def link(self, student_id: str) -> str:
        """The student's id, linked to its feedback on the page."""
        return f'<a class="sid" href="#{self.anchors[student_id]}">{esc(student_id)}</a>'

    def href(self, student_id: str) -> str:
        """The fragment of the student's feedback (a chart mark links there)."""
        return "#" + self.anchors[student_id]

    def score_text(self, student: Student) -> str:
        if not student.gradable or student.score is None:
            return self.t("not_graded_cell")
        return f"{fmt(student.score)}/{fmt(student.max_score or 0.0)}"

    def responsive(self, draw: Callable[[int, str], str]) -> str:
        """A full-width chart as two SVGs, `draw(width, id_suffix)`: the wide one and the
        narrow one (for narrow windows and print); the page's style shows one."""
        return (
            f'<div class="wide-only">{draw(FULL_WIDTH, "")}</div>'
            f'<div class="narrow-only">{draw(NARROW_WIDTH, "-narrow")}</div>'
        )

    def figure(self, svg: str, description: str, drawn: int, off_scale: int) -> str:
        """A chart with its caption: what it shows, how many graded students have no mark
        on it (`drawn` have one), how many values lie beyond its axes."""
        notes = [description]
        missing = len(self.graded) - drawn
        if missing:
            notes.append(self.t("no_mark", n=missing))
        if off_scale:
            notes.append(self.t("off_scale", n=off_scale))
        return f"<figure>{svg}<figcaption>{esc(' '.join(notes))}</figcaption></figure>"
