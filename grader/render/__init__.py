"""Renderers: each turns a `Result` into one output format, and nothing else.

A renderer is a module with `render(result: Result, options: RenderOptions) -> str`.
They are looked up by format name and imported only when chosen, so a format's
dependencies cost nothing to the others. A new format is a new module and one line here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `grader --help` lists FORMATS without importing any of this
    from typing import Protocol

    from grader.engine.lab import Lab
    from grader.engine.result import Result
    from grader.engine.rubric import Rubric
    from grader.words.i18n import Catalog

    class Renderer(Protocol):
        def __call__(self, result: Result, options: RenderOptions) -> str: ...


FORMATS = {
    "text": "grader.render.text",
    "json": "grader.render.json",
    "gradescope": "grader.render.gradescope",
    "prairielearn": "grader.render.prairielearn",
    "junit": "grader.render.junit",
    "junit-gitlab": "grader.render.junit_gitlab",
    "markdown": "grader.render.markdown",
}


@dataclass(frozen=True)
class RenderOptions:
    catalog: Catalog
    color: bool = False
    verbose: bool = False
    quiet: bool = False
    width: int = 80
    """Terminal columns the text report wraps to (the CLI passes the terminal's)."""
    rubric: Rubric | None = None
    """The `Rubric` the result was graded with, for what a platform is told
    besides the result (Gradescope's visibility); None: the defaults."""
    lab: Lab | None = None
    """The graded `Lab`, for what it declares to platforms (a leaderboard)."""
    sample: str | None = None
    """The bundled sample asked for by name (`grader check --sample NAME`): the text
    report then names it, says what it shows and that it is a public sample."""


def renderer(name: str) -> Renderer:
    """The renderer of format `name`, behind the boundary every output crosses: it sees
    the result with every string made visible (`grader.words.visible`), so no format can
    print a student's control characters or undecodable bytes raw."""
    from grader.words.visible import visible_result

    module = importlib.import_module(FORMATS[name])
    render: Renderer = module.render

    def render_visible(result: Result, options: RenderOptions) -> str:
        return render(visible_result(result), options)

    return render_visible
