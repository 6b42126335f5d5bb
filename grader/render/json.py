"""The machine-readable result: one JSON document valid against result.schema.json.

Keys keep the model's order and the output ends with a newline; with no timestamps and
no absolute paths added, equal input gives equal bytes.
"""

from __future__ import annotations

from grader.engine.result import Result
from grader.render import RenderOptions


def render(result: Result, options: RenderOptions) -> str:
    return result.to_json()
