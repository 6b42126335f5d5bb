"""What `grader check` does beyond grading one folder into one output: a bundled sample
by name (`--sample`), more outputs in one run (`--also FORMAT:FILE`) and a subset of the
checks (`--step`, `--check`). Imported only when one of those is asked for: a plain
check never pays for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.system.output import say
from grader.system.output import write as _write

if TYPE_CHECKING:
    from grader.cli.commands import Arguments
    from grader.engine.lab import Lab
    from grader.engine.result import Result
    from grader.engine.rubric import Rubric
    from grader.words.i18n import Catalog
    from grader.words.problems import Param


def also_outputs(values: list[str] | None, catalog: Catalog) -> list[tuple[str, str]] | None:
    """`--also FORMAT:FILE`, each as (format, file); None (having said why) when one is
    not a format of the grader with a file."""
    from grader.render import FORMATS

    found = []
    for value in values or ():
        fmt, colon, path = value.partition(":")
        if fmt not in FORMATS or not colon or not path:
            formats = ", ".join(sorted(FORMATS))
            say(catalog.text("cli.bad_also", {"value": value, "formats": formats}) or value)
            return None
        found.append((fmt, path))
    return found


def wanted_checks(lab: Lab, args: Arguments, catalog: Catalog) -> set[str] | None:
    """The check ids `--step` and `--check` ask for (empty: every check); None (having
    said why, with the nearest names) when one names no step or check of the lab."""
    ids = lab.all_check_ids()
    steps = {cid.split(".", 1)[0] for cid in ids}
    wanted: set[str] = set()
    for option, names, known in (
        ("step", getattr(args, "step", None), sorted(steps)),
        ("check", getattr(args, "check", None), ids),
    ):
        for name in (n.strip() for n in (names or "").split(",") if n.strip()):
            if name not in known:
                import difflib  # only for a name to correct: a cold check imports none

                close = difflib.get_close_matches(name, known, n=1)
                params = {"value": name, "similar": close[0] if close else "",
                          "names": ", ".join(known)}  # fmt: skip
                key = f"cli.unknown_{option}{'_similar' if close else ''}"
                say(catalog.text(key, params) or name)
                return None
            wanted |= {c for c in ids if c.split(".", 1)[0] == name} if option == "step" else {name}
    return wanted


def subset(result: Result, wanted: set[str], args: Arguments, catalog: Catalog) -> Result:
    """The result of the checks asked for alone (graded with all the others, so that what
    they wait for was judged), its score theirs; the rest said on stderr, never hidden."""
    from dataclasses import replace

    from grader.engine.result import Summary

    if not result.gradable:
        return result
    kept = [c for c in result.checks if c.id in wanted]
    statuses = [c.status for c in kept]
    left = len(result.checks) - len(kept)
    asked = ", ".join(v for v in (args.step, args.check) if v)
    points = sum(c.max_points for c in kept)
    params: dict[str, Param] = {
        "asked": asked,
        "count": len(kept),
        "points": f"{points:g}",
        "rest": left,
    }
    say(catalog.text("cli.subset", params) or asked)
    return replace(
        result,
        checks=kept,
        score=sum(c.points for c in kept),
        max_score=points,
        summary=Summary(
            passed=statuses.count("passed"),
            failed=statuses.count("failed"),
            skipped=statuses.count("skipped"),
            error=statuses.count("error"),
        ),
    )


def render_as(
    fmt: str,
    path: str,
    result: Result,
    catalog: Catalog,
    lab: Lab | None = None,
    rubric: Rubric | None = None,
    sample: str | None = None,
) -> None:
    """The result in format `fmt`, written atomically into `path` (no colour, 80 columns)."""
    from grader.render import RenderOptions, renderer

    options = RenderOptions(catalog, rubric=rubric, lab=lab, sample=sample)
    _write(renderer(fmt)(result, options), path)


def say_sample_hint(lab: Lab, catalog: Catalog) -> None:
    """Say how to try the grader on the lab's bundled sample, if it ships one."""
    from grader.engine.samples import sample_folder

    if lab.sample and sample_folder(lab, lab.sample) is not None:
        say(catalog.text("cli.try_sample", {"sample": lab.sample}) or lab.sample)


def sample_folder_named(lab: Lab, name: str, catalog: Catalog, fmt: str = "text") -> str | None:
    """The folder of the bundled sample `name`; None (having said why) when there is none.
    A format other than text gets on stderr what the text report says at its top: that
    this is a public sample, which scores nothing of its own when handed in."""
    import difflib

    from grader.engine.samples import sample_folder, sample_names

    folder = sample_folder(lab, name)
    if folder is not None:
        if fmt != "text":
            say(catalog.text("render.sample_public", {"sample": name}) or name)
        return folder
    names = sample_names(lab)
    close = difflib.get_close_matches(name, names, n=1)
    key = "cli.no_such_sample_similar" if close else "cli.no_such_sample"
    params = {"sample": name, "similar": close[0] if close else "", "names": ", ".join(names)}
    say(catalog.text(key if names else "cli.no_samples", params) or name)
    return None
