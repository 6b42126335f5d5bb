"""The student's client, `sse.py`, read as a syntax tree: never imported, never run."""

from __future__ import annotations

import ast

from grader.engine import Context, Fail, check

SIGNATURE = "stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)"
_EXPECTED = [("messages", None), ("max_tokens", 64), ("cache_prompt", True), ("raw_out", None)]
_NO_DEFAULT = object()


def _source(node: ast.AST) -> str:
    """The node as source text, shortened; absurd nodes (a 4,000-digit literal, deep
    nesting) can't be unparsed, and a message must never fail because of them."""
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, MemoryError):
        return "…"
    return text if len(text) <= 120 else text[:117] + "…"


def _signature(func: ast.FunctionDef) -> list[tuple[str, object]]:
    """(name, default) of the positional parameters; `_NO_DEFAULT` where there is none."""
    params = [*func.args.posonlyargs, *func.args.args]
    defaults: list[object] = [_NO_DEFAULT] * (len(params) - len(func.args.defaults))
    for node in func.args.defaults:
        try:
            defaults.append(ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            defaults.append(_source(node))  # not a literal, or an absurd one: compare as text
    return [(p.arg, d) for p, d in zip(params, defaults, strict=True)]


def _uses_http_client(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "http.client" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.module == "http.client"
            or (node.module == "http" and any(a.name == "client" for a in node.names))
        ):
            return True
    return False


@check("sse_py.static", reads=("sse_py",))
def static(ctx: Context) -> None:
    """sse.py defines the lab's `stream(...)` signature and imports http.client."""
    tree: ast.Module = ctx["sse_py"]
    functions = [
        n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "stream"
    ]
    if not functions:
        raise Fail(
            "no_stream",
            expected=SIGNATURE,
            found="—",
            at=ctx.at("sse_py", line=1),
        )
    func = functions[-1]
    if isinstance(func, ast.AsyncFunctionDef):
        raise Fail(
            "async",
            expected=SIGNATURE,
            found="async def stream",
            at=ctx.at("sse_py", line=func.lineno),
        )
    found = _signature(func)
    expected = [
        (name, _NO_DEFAULT if name == "messages" else default) for name, default in _EXPECTED
    ]
    if found[: len(expected)] != expected or any(
        d is _NO_DEFAULT for _, d in found[len(expected) :]
    ):
        shown = f"stream({_source(func.args)})"
        raise Fail(
            "signature", expected=SIGNATURE, found=shown, at=ctx.at("sse_py", line=func.lineno)
        )
    if not _uses_http_client(tree):
        raise Fail(
            "no_http_client",
            expected="import http.client",
            found="—",
            at=ctx.at("sse_py", line=1),
        )
