"""The student's client, `sse.py`, read as a syntax tree: never imported, never run.

What the check reads of the tree (its top-level functions' heads and the modules it
imports) is kept, as an `Outline`, instead of the tree: a tree weighs some 40 times its
source, and a near-cap sse.py's outweighed every other artifact but the log.
"""

from __future__ import annotations

import _ast  # the node classes `ast` re-exports: `ast` itself only to show a failure
from collections.abc import Iterator

from grader.engine import Context, Fail, check
from grader.limits import Limits
from grader.loading import Parsed, Parser
from grader.parsers import python_source
from grader.records import record

TYPE_CHECKING = False  # typing is for type checkers only: a check never imports it
if TYPE_CHECKING:
    import ast

SIGNATURE = "stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)"
_EXPECTED = [("messages", None), ("max_tokens", 64), ("cache_prompt", True), ("raw_out", None)]
_NO_DEFAULT = object()


@record(frozen=True, slots=True)
class FunctionHead:
    """A top-level `def` of sse.py without its body."""

    name: str
    is_async: bool
    line: int
    args: ast.arguments
    """Its parameters, their defaults' expressions included: compared, and shown."""


@record(frozen=True, slots=True)
class Outline:
    """What `sse_py.static` reads of sse.py's syntax tree."""

    functions: tuple[FunctionHead, ...]
    """The top-level function definitions, in the file's order."""
    imports: frozenset[str]
    """The modules imported anywhere in the file: `import a.b` gives a.b, `from a.b import
    c` gives a.b and a.b.c (so `from http import client` gives http.client)."""


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a statement (or an `except` handler, a `case`) that hold statements."""


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement of `tree`, nested ones too, in no particular order.

    Expressions are never entered (no statement is inside an expression), which skips
    most of a tree's nodes: an import is a statement, so this finds every one that
    `ast.walk` would, visiting a fraction of the nodes.
    """
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(block)


def outline(tree: ast.Module) -> Outline:
    """The outline of a parsed sse.py."""
    functions = tuple(
        FunctionHead(n.name, isinstance(n, _ast.AsyncFunctionDef), n.lineno, n.args)
        for n in tree.body
        if isinstance(n, (_ast.FunctionDef, _ast.AsyncFunctionDef))
    )
    imports: set[str] = set()
    for node in _statements(tree):
        if isinstance(node, _ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, _ast.ImportFrom) and node.module is not None:
            imports.add(node.module)
            imports.update(f"{node.module}.{alias.name}" for alias in node.names)
    return Outline(functions, frozenset(imports))


def client_source() -> Parser:
    """The parser of sse.py: Python source (`grader.parsers.python_source`), kept as its
    `Outline`, the tree let go."""
    parse_python = python_source()

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        parsed = parse_python(text, file, limits)
        if isinstance(parsed.value, _ast.Module):
            return Parsed(outline(parsed.value), parsed.problems, parsed.line_of)
        return parsed

    return parse


def _source(node: ast.AST) -> str:
    """The node as source text, shortened; absurd nodes (a 4,000-digit literal, deep
    nesting) can't be unparsed, and a message must never fail because of them."""
    import ast  # only here: a message shows the source, a passing check never does

    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, MemoryError):
        return "…"
    return text if len(text) <= 120 else text[:117] + "…"


def _literal(node: ast.expr) -> object:
    """`ast.literal_eval(node)`, or the node's source when it is not a literal (or an absurd
    one): compared as text. A constant is its value, which is all `literal_eval` makes of
    it, so the lab's defaults (64, True, None) need no `ast` module."""
    if isinstance(node, _ast.Constant):
        return node.value
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _source(node)


def _signature(args: ast.arguments) -> list[tuple[str, object]]:
    """(name, default) of the positional parameters; `_NO_DEFAULT` where there is none."""
    params = [*args.posonlyargs, *args.args]
    defaults: list[object] = [_NO_DEFAULT] * (len(params) - len(args.defaults))
    for node in args.defaults:
        defaults.append(_literal(node))
    return [(p.arg, d) for p, d in zip(params, defaults, strict=True)]


@check("sse_py.static", reads=("sse_py",))
def static(ctx: Context) -> None:
    """sse.py defines the lab's `stream(...)` signature and imports http.client."""
    source: Outline = ctx["sse_py"]
    functions = [f for f in source.functions if f.name == "stream"]
    if not functions:
        raise Fail(
            "no_stream",
            expected=SIGNATURE,
            found="—",
            at=ctx.at("sse_py", line=1),
        )
    func = functions[-1]
    if func.is_async:
        raise Fail(
            "async",
            expected=SIGNATURE,
            found="async def stream",
            at=ctx.at("sse_py", line=func.line),
        )
    found = _signature(func.args)
    expected = [
        (name, _NO_DEFAULT if name == "messages" else default) for name, default in _EXPECTED
    ]
    if found[: len(expected)] != expected or any(
        d is _NO_DEFAULT for _, d in found[len(expected) :]
    ):
        shown = f"stream({_source(func.args)})"
        raise Fail(
            "signature", expected=SIGNATURE, found=shown, at=ctx.at("sse_py", line=func.line)
        )
    if "http.client" not in source.imports:
        raise Fail(
            "no_http_client",
            expected="import http.client",
            found="—",
            at=ctx.at("sse_py", line=1),
        )
