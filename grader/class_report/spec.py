"""What a lab tells the class report about itself: a `ClassReportSpec`.

The page's generic parts (scores, pass rates, the students, their feedback) need nothing
from the lab. Two parts do: the physics charts (which of the lab's artifacts hold the
numbers they draw, and which checks colour the marks) and the integrity flags (which
check outcomes are a reason to look twice). A lab says so in a `ClassReportSpec` in its
own package and names it in its `Lab` as `class_report="package.module:ATTRIBUTE"`; the
report imports it by that name, only when it draws a page, so `grader check` never does.
A lab without one gets a report with no physics charts and no integrity flags.

Check ids a lab's results do not have simply never match: they colour or flag nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PhysicsSpec:
    """Where the physics charts find their numbers, and which checks colour the marks.

    `prefill`, `cache` and `cancel` name the lab's artifacts whose values the three charts
    read (prefill: a list of `{docs, prompt_n, prompt_ms, ttft_ms}`; cache: `first`,
    `second` and `changed_prefix`, each `{prompt_n, ttft_ms}`; cancel: `{max_tokens,
    received_tokens, closed_at_ms, slot_idle_after_ms}`). A student's rising prefill line
    is drawn as "cache left on" when `prefill_cache_on` failed; a cache point is "bad"
    when one of `cache_checks` failed; a cancel point is "freed" / "busy" when
    `cancel_check` passed / failed, "not judged" otherwise.
    """

    prefill: str
    cache: str
    cancel: str
    prefill_cache_on: str | None = None
    cache_checks: tuple[str, ...] = ()
    cancel_check: str | None = None

    @property
    def artifacts(self) -> dict[str, str]:
        """The physics part (`prefill`, `cache`, `cancel`) -> the artifact that holds it."""
        return {"prefill": self.prefill, "cache": self.cache, "cancel": self.cancel}


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
    """What makes two students' submissions one run handed in twice.

    `files`: artifacts whose bytes no two honest runs share (a shared sha256 is the
    same file); `ids`: (check id, data key) of recorded identifiers unique to a run (a
    stream's chatcmpl id); `timings`: (check id, data key) of recorded times, each a
    number or a list of numbers, compared position by position. Two students are a
    pair when they share a file or an id, or when more than `max_near` of their timings
    lie within `near` (relative) of each other.
    """

    files: tuple[str, ...] = ()
    ids: tuple[tuple[str, str], ...] = ()
    timings: tuple[tuple[str, str], ...] = ()
    near: float = 0.005
    max_near: int = 5


@dataclass(frozen=True)
class ClassReportSpec:
    """What the class report knows of one lab: its physics charts and its integrity flags.

    `physics` None: no physics charts. `flags`: in the order the page lists them.
    `pairs`: how to tell two students who handed in one run (None: no comparison).
    `messages_package`: the package whose `messages/<lang>.toml` holds the flag labels.
    """

    physics: PhysicsSpec | None = None
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


INSTALLED: Any = _Installed()
"""The lab a function defaults to: the only installed one (`grader.labs.choose`)."""


def lab_of(lab: Any = INSTALLED) -> Any:
    """A `Lab`, given one, its installed name or its "package.module:ATTRIBUTE"
    (`INSTALLED`: the only installed lab), loaded by `grader.labs`."""
    from grader.labs import lab_of as load

    return load(None if lab is INSTALLED else lab)


def spec_of(lab: Any = INSTALLED) -> ClassReportSpec | None:
    """The `ClassReportSpec` of `lab` (a `Lab`, its name or reference, `INSTALLED` for the
    only installed lab), `lab` itself when it is a spec, and None for None (no lab). The
    lab's `class_report` ("package.module:ATTRIBUTE") is imported lazily, by
    `grader.labs`."""
    if lab is None or isinstance(lab, ClassReportSpec):
        return lab
    from grader.labs import report_spec

    spec: ClassReportSpec | None = report_spec(lab_of(lab))
    return spec
