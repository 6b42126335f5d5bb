"""What a lab tells the class report about itself: a `ClassReportSpec`.

The page's generic parts (scores, pass rates, the students, their feedback) need nothing
from the lab. Three parts do: the lab's own sections (its charts of the class, drawn
from the measurements its results carry: a `Section` is a function of the page), the
integrity flags (which check outcomes are a reason to look twice) and the pairs (what
makes two submissions one run). A lab says so in a `ClassReportSpec` in its own package
and names it in its `Lab` as `class_report="package.module:ATTRIBUTE"`; `grader.engine.labs`
imports it by that name, only when a page is drawn, so `grader check` never does. A lab
without one gets a report with no sections of its own and no integrity flags.

Check ids a lab's results do not have simply never match: they flag nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING


@dataclass(frozen=True)
class Section:
    """A section of the class report that a lab contributes: its charts of the class.

    `id` is the section's fragment id (and the page's contents link to it), `title` the
    catalog id of its heading (in the lab's catalog), and `render` draws its body from
    the page's `PageContext` (the students as their results say, the page's words, links
    to each student's feedback): HTML, every text in it escaped (`svg.esc`; the charts of
    `grader.class_report.charts` escape their own). It reads the measurements the lab's
    results carry (`checks[].data`), never a submission's files.
    """

    id: str
    title: str
    render: Callable[[PageContext], str]


@dataclass(frozen=True)
class FlagRule:
    """One kind of integrity flag and when a student gets it.

    Every check of the student's result whose id is in `checks` and whose status is
    `status` raises one flag of kind `key` (its message is the evidence), provided every
    check in `if_passed` passed. With `note`, only a check whose message id ends in
    `.<note>` counts (a passing check that said, e.g., "unconfirmed"), and with
    `except_note` a check whose message id ends in it does not. `strong`: the
    files contradict their source; otherwise the flag is only worth a look. `label` is
    the catalog id of the flag's description, in the spec's `messages_package`.
    """

    key: str
    strong: bool
    checks: tuple[str, ...]
    label: str
    status: str = "failed"
    note: str | None = None
    if_passed: tuple[str, ...] = ()
    except_note: str | None = None


@dataclass(frozen=True)
class PairSpec:
    """What makes students' submissions one run handed in more than once.

    `files`: artifacts whose bytes no two honest runs share (a shared sha256 is the
    same file); `ids`: (check id, data key) of recorded identifiers unique to a run (a
    stream's id); `keys`: (check id, data key) of a run's recorded fingerprint keys,
    opaque strings (two runs sharing `min_keys` of them are one run, however rescaled
    or re-encoded; the lab knows what they are made of, the engine only counts them);
    `timings`: (check id, data key) of recorded times, each a number or a list of
    numbers, compared position by position. Students are one run when they share a
    file or an id, `min_keys` keys, or so many timings within `near` (relative) of each
    other that chance is not the reason: more than `max_near`, and enough that the
    class's own pairs expect at most `chance` such pairs of honest students by chance
    (`grader.class_report.pairs.near_needed_of`; a larger class needs more, since
    chance pairs grow with the square of its size). The students linked are one group
    (`grader.class_report.groups`), found through buckets of these values, never by
    comparing every pair.
    """

    files: tuple[str, ...] = ()
    ids: tuple[tuple[str, str], ...] = ()
    timings: tuple[tuple[str, str], ...] = ()
    near: float = 0.005
    max_near: int = 5
    chance: float = 0.05
    keys: tuple[tuple[str, str], ...] = ()
    min_keys: int = 6


@dataclass(frozen=True)
class ClassReportSpec:
    """What the class report knows of one lab: its own sections and its integrity flags.

    `sections`: the lab's sections, in the order the page shows them (after the pass
    rates). `flags`: in the order the page lists them. `pairs`: how to tell two students
    who handed in one run (None: no comparison). `messages_package`: the package whose
    `messages/<lang>.toml` holds the flag labels and the sections' words.
    """

    sections: tuple[Section, ...] = ()
    flags: tuple[FlagRule, ...] = ()
    messages_package: str | None = None
    pairs: PairSpec | None = None

    @property
    def flag_labels(self) -> dict[str, str]:
        """Flag kind -> the catalog id of its description (the first rule's, per kind)."""
        labels: dict[str, str] = {}
        for rule in self.flags:
            labels.setdefault(rule.key, rule.label)
        return labels

    @property
    def strong_flags(self) -> frozenset[str]:
        return frozenset(rule.key for rule in self.flags if rule.strong)


class _Installed:
    def __repr__(self) -> str:
        return "INSTALLED"


INSTALLED = _Installed()
"""The lab a function defaults to: the only installed one (`grader.engine.labs.choose`)."""

if TYPE_CHECKING:
    from grader.class_report.context import PageContext
    from grader.engine.lab import Lab

    LabRef = Lab | str | _Installed | None
    """A lab as these functions take it: a `Lab`, its installed name or its
    "package.module:ATTRIBUTE", `INSTALLED`, or None (no lab)."""


def lab_of(lab: LabRef = INSTALLED) -> Lab:
    """A `Lab`, given one, its installed name or its "package.module:ATTRIBUTE"
    (`INSTALLED`: the only installed lab), loaded by `grader.engine.labs`."""
    from grader.engine.labs import lab_of as load

    return load(None if isinstance(lab, _Installed) else lab)


def spec_of(lab: LabRef | ClassReportSpec = INSTALLED) -> ClassReportSpec | None:
    """The `ClassReportSpec` of `lab` (a `Lab`, its name or reference, `INSTALLED` for the
    only installed lab), `lab` itself when it is a spec, and None for None (no lab). The
    lab's `class_report` ("package.module:ATTRIBUTE") is imported lazily, by
    `grader.engine.labs`."""
    if lab is None or isinstance(lab, ClassReportSpec):
        return lab
    from grader.engine.labs import report_spec

    the_lab = lab_of(lab)
    spec = report_spec(the_lab)
    if spec is not None and not isinstance(spec, ClassReportSpec):
        raise TypeError(f"{the_lab.class_report} is a {type(spec).__name__}, not a ClassReportSpec")
    return spec
