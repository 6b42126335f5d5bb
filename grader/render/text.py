"""The human report, shaped like pytest's, for a terminal of 80 × 24.

First a line of marks per lab step (✓ passed, ✗ failed, – skipped, ! error), then every
check that did not pass with its place, message, expected vs found and what to do (a
broken file with each of its problems, in document order), the checks skipped for one
cause in one line, each common mistake explained once; last, so that the last screen is
the useful one, a short summary of what did not pass, what to do first, and the score.
`-q` leaves out the marks; `-v` lists every check and every problem. Every paragraph is
wrapped to the terminal's width (`grader.words.wrap`). Colour only when asked (the CLI
asks on a terminal without NO_COLOR).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict

from grader.engine.result import ArtifactResult, CheckResult, Result
from grader.render import RenderOptions
from grader.render.common import (
    evidence_line,
    expected_found,
    files_in_line,
    grader_error_line,
    labelled,
    step_of,
    where,
)
from grader.words.i18n import Catalog, format_value
from grader.words.wrap import COLOUR, cells, wrap

MARKS = {"passed": "✓", "failed": "✗", "skipped": "–", "error": "!"}
COLORS = {"passed": "32", "failed": "31", "skipped": "33", "error": "35"}
PAD = "    "
SHOWN_PROBLEMS = 5
"""Problems of a broken file shown without -v."""


def _paint(text: str, code: str, on: bool) -> str:
    return f"\033[{code}m{text}\033[0m" if on else text


def _pts(check: CheckResult) -> str:
    return f"{format_value(check.points)}/{format_value(check.max_points)}"


def _marks(result: Result, options: RenderOptions) -> list[str]:
    """One `step ✓✓✗` token per lab step, in the order the steps first appear."""
    groups: dict[str, list[str]] = {}
    for check in result.checks:
        mark = _paint(MARKS[check.status], COLORS[check.status], options.color)
        groups.setdefault(step_of(check.id), []).append(mark)
    tokens = [f"{name} {''.join(marks)}" for name, marks in groups.items()]
    lines, line = [], ""
    for token in tokens:
        if line and cells(line) + 2 + cells(token) > options.width:
            lines.append(line)
            line = ""
        line = f"{line}  {token}" if line else token
    return [*lines, line] if line else lines


def _unpainted(text: str) -> str:
    return COLOUR.sub("", text)


def _heading(check: CheckResult, options: RenderOptions, id_width: int = 0) -> str:
    """`✗ id  0/4  title`, the title wrapped under itself."""
    head = f"{MARKS[check.status]} {check.id:<{id_width}}  {_pts(check)}  "
    lines = wrap(check.title, options.width, " " * cells(head), first=head)
    mark = _paint(MARKS[check.status], COLORS[check.status], options.color)
    return "\n".join([mark + lines[0][1:], *lines[1:]])


def _problems(artifact: ArtifactResult, options: RenderOptions) -> list[str]:
    """A broken file's problems in document order, the first few unless -v."""
    ordered = sorted(
        artifact.problems,
        key=lambda p: (
            (p.location.line or 0, p.location.column or 0) if p.location is not None else (0, 0)
        ),
    )
    shown = ordered if options.verbose else ordered[:SHOWN_PROBLEMS]
    lines: list[str] = []
    for problem in shown:
        place = where(problem.location) or artifact.file
        said = labelled(options.catalog, place, problem.message)
        lines += wrap(said, options.width, PAD + "  ", first=PAD)
    if len(ordered) > len(shown):
        more = options.catalog.text("render.more", {"count": len(ordered) - len(shown)})
        lines.append(f"{PAD}{more} (-v)")
    return lines


def _details(
    check: CheckResult, result: Result, options: RenderOptions, explained: set[str]
) -> list[str]:
    """Everything a student needs to fix one check."""
    t, width = options.catalog, options.width
    lines = [_heading(check, options)]
    artifact = next((a for a in result.artifacts if a.name == check.artifact), None)
    if check.id.endswith(".schema") and artifact is not None and artifact.problems:
        lines += _problems(artifact, options)
    else:
        place = where(check.location)
        if place:
            lines.append(PAD + place)
        if check.message:
            lines += wrap(check.message, width, PAD)
        shown = expected_found(check, t, " · ")
        if shown:
            lines += wrap(shown, width, PAD)
    if check.hint:
        lines += wrap(f"→ {check.hint}", width, PAD + "  ", first=PAD)
    if check.explanation and check.explanation not in explained:
        explained.add(check.explanation)
        lines += ["", *wrap(check.explanation, width, PAD)]
    return lines


def _waiting(
    skipped: list[CheckResult], result: Result, catalog: Catalog, options: RenderOptions
) -> list[str]:
    """The skipped checks, one paragraph per first cause."""
    by_cause: dict[str, list[CheckResult]] = {}
    for check in skipped:
        by_cause.setdefault(check.cause or check.id, []).append(check)
    lines: list[str] = []
    for cause, checks in by_cause.items():
        points = format_value(sum(c.max_points for c in checks))
        ids = ", ".join(c.id for c in checks)
        mark = _paint(MARKS["skipped"], COLORS["skipped"], options.color)
        if cause.endswith(".schema"):
            artifact = next((a for a in result.artifacts if f"{a.name}.schema" == cause), None)
            file = artifact.file if artifact is not None else cause
            text = catalog.plural(
                "render.waiting_file",
                len(checks),
                {"count": len(checks), "file": file, "points": points},
            )
        else:
            text = catalog.plural(
                "render.waiting_check",
                len(checks),
                {"count": len(checks), "check": cause, "points": points},
            )
        lines += wrap(labelled(catalog, text or cause, ids), options.width, PAD, first=f"{mark} ")
    return lines


def _root_causes(result: Result) -> list[CheckResult]:
    """The checks that did not pass on their own account (failed or broke), the one
    most others wait for first."""
    waiting: dict[str, int] = {}
    for check in result.checks:
        if check.status == "skipped" and check.cause:
            waiting[check.cause] = waiting.get(check.cause, 0) + 1
    own = [c for c in result.checks if c.status in ("failed", "error")]
    return sorted(own, key=lambda c: -waiting.get(c.id, 0))


def _summary(result: Result, options: RenderOptions) -> list[str]:
    """pytest's short summary: one line per check that did not pass on its own account
    (cut to the width), what to do first, then the score."""
    t, width = options.catalog, options.width
    out: list[str] = []
    roots = _root_causes(result)
    for check in result.checks:
        if check.status not in ("failed", "error"):
            continue
        mark = _paint(MARKS[check.status], COLORS[check.status], options.color)
        text = labelled(t, check.id, check.message or check.title)
        out.append(f"{mark} {_fit(text, width - 2)}")
    skipped = sum(c.status == "skipped" for c in result.checks)
    if skipped:
        mark = _paint(MARKS["skipped"], COLORS["skipped"], options.color)
        total = t.plural("render.skipped_total", skipped, {"count": skipped})
        out.append(f"{mark} {total or skipped}")
    first = next((c for c in roots if c.hint), None)
    if first is not None:
        out += wrap(
            t.text("render.first", {"check": first.id, "hint": first.hint}) or first.hint or "",
            width,
            "  ",
        )
    return out


def _fit(text: str, width: int) -> str:
    """`text` on one line of at most `width` columns, with … where it was cut."""
    text = " ".join(text.split())
    if cells(text) <= width:
        return text
    out, used = "", 0
    for char in text:
        if used + cells(char) > width - 1:
            break
        out, used = out + char, used + cells(char)
    return out + "…"


def _all_checks(result: Result, options: RenderOptions) -> Iterable[str]:
    """-v: one line per check, and every note of a passing one."""
    id_width = max((len(c.id) for c in result.checks), default=10)
    for check in result.checks:
        yield _heading(check, options, id_width)
        if check.status == "passed" and check.message:
            yield from wrap(check.message, options.width, PAD)


def _fit_path(lab: str, path: str, width: int) -> str:
    """`lab · path` on one line; a path too long for it loses its beginning, not the
    folder's own name at its end."""
    head = f"{lab} · "
    room = width - 1 - cells(head)
    if cells(path) <= room:
        return head + path
    tail = ""
    for char in reversed(path):
        if cells(tail) + cells(char) > room - 1:
            break
        tail = char + tail
    return head + "…" + tail


def _header(result: Result, options: RenderOptions) -> list[str]:
    """The report's first lines: the lab and the folder, or for a sample asked for by
    name, the sample, what it shows, and that it is a public one."""
    t = options.catalog
    if options.sample is None:
        return [_fit_path(result.lab, result.submission, options.width)]
    name = {"sample": options.sample}
    out = wrap(
        f"{result.lab} · {t.text('render.sample_header', name)}", options.width, "  ", first=""
    )
    lesson = t.raw(f"samples.{options.sample}")
    if lesson:
        said = t.text("render.sample_lesson", {"lesson": lesson}) or lesson
        out += wrap(said, options.width, "  ", first="  ")
    out += wrap(t.text("render.sample_public", name) or "", options.width, "  ", first="  ")
    return out


def render(result: Result, options: RenderOptions) -> str:
    t = options.catalog
    if not result.gradable:
        title = t.raw("render.not_gradable") or "Not graded"
        return "".join(
            "\n".join(wrap(labelled(t, title, e), options.width, "  ", first="")) + "\n"
            for e in result.format_errors
        )
    out = _header(result, options)
    found = files_in_line(result, t)
    if found:
        out += wrap(found, options.width, "  ", first="")
    if options.verbose:
        out += ["", *_all_checks(result, options)]
    elif not options.quiet:
        out += _marks(result, options)
    explained: set[str] = set()
    for check in result.checks:
        if check.status in ("failed", "error"):
            out += ["", *_details(check, result, options, explained)]
        elif (
            check.status == "passed"
            and check.message
            and not options.quiet
            and (check.message_id or "").rsplit(".", 1)[-1] not in ("valid",)
            and not options.verbose
        ):
            mark = _paint(MARKS["passed"], COLORS["passed"], options.color)
            note = labelled(t, f"{mark} {check.id}", "")
            out += ["", *wrap(check.message, options.width, PAD, first=note)]
    skipped = [c for c in result.checks if c.status == "skipped"]
    if skipped:
        out += ["", *_waiting(skipped, result, t, options)]
    summary = t.text("render.summary", asdict(result.summary)) or ""
    marks = f"{format_value(result.score)}/{format_value(result.max_score)} — {summary}"
    score = labelled(t, t.raw("render.score") or "Score", marks)
    status = "passed" if result.score == result.max_score else "failed"
    evidence = evidence_line(result, t)
    if evidence and not options.quiet:  # what backs the numbers, before what to do first
        out += ["", *wrap(evidence, options.width, "  ", first="")]
    short = _summary(result, options)
    out += ["", *short] if short else []
    out.append(_paint(_fit(score, options.width), COLORS[status], options.color))
    warning = grader_error_line(result, t)
    if warning:
        out += wrap(f"{MARKS['error']} {warning}", options.width, "  ", first="")
    return "\n".join(out) + "\n"
