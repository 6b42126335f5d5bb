"""The student's client, `sse.py`, read as source: never imported, never run.

What the check reads of it (its top-level functions' heads and the modules it imports) is
kept, as an `Outline`, read from the tokens of the text the engine's parser accepted
(`grader.parsers.python_source`): no syntax tree is made for a file that passes, which
spares a cold `grader check` the `_ast` node classes (≈10 M instructions) and a near-cap
sse.py a tree some 40 times its size. Where the tokens do not say a thing plainly (a
parameter's default that is not a plain number, True, False or None, an annotation with
a lambda), the check asks the syntax tree, as it does to show a signature that fails.
"""

from __future__ import annotations

from grader.engine import Context, Fail, check
from grader.limits import Limits
from grader.loading import Parsed, Parser
from grader.parsers import DEDENT, INDENT, NAME, NEWLINE, NUMBER, python_source, python_tokens
from grader.records import record

TYPE_CHECKING = False  # typing is for type checkers only: a check never imports it
if TYPE_CHECKING:
    import ast

    Token = tuple[int, str, int]

SIGNATURE = "stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)"
_EXPECTED = [("messages", None), ("max_tokens", 64), ("cache_prompt", True), ("raw_out", None)]
_NO_DEFAULT = object()


@record(frozen=True, slots=True)
class FunctionHead:
    """A top-level `def` of sse.py without its body."""

    name: str
    is_async: bool
    line: int
    positional: tuple[str, ...] | None
    """Its positional parameters (`/`-only ones first), in order; None when its tokens do
    not say them plainly (then `signature` asks the syntax tree)."""
    defaults: tuple[object, ...]
    """The defaults of the last `len(defaults)` positional parameters: plain ints, True,
    False or None (as `ast.literal_eval` reads them)."""


@record(frozen=True, slots=True)
class Outline:
    """What `sse_py.static` reads of sse.py."""

    functions: tuple[FunctionHead, ...]
    """The top-level function definitions, in the file's order."""
    imports: frozenset[str]
    """The modules imported anywhere in the file: `import a.b` gives a.b, `from a.b import
    c` gives a.b and a.b.c (so `from http import client` gives http.client)."""
    text: str
    """The source, for what the tokens leave to the syntax tree (its size is capped: the
    tree's is not)."""


_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
_PLAIN = {"True": True, "False": False, "None": None}


def outline(text: str) -> Outline:
    """The outline of valid Python source.

    A statement starts a logical line (after NEWLINE, INDENT or DEDENT), follows a `;`, or
    follows a compound statement's `:` on its line (`if x: import y`); outside brackets,
    at a statement's start, `import` and `from` begin an import (`yield from` and `raise
    ... from` never stand there), and `def` or `async def` with no indentation a top-level
    function. Every statement is read, nested ones too, as `ast.walk` would find them.
    """
    tokens = python_tokens(text)
    functions: list[FunctionHead] = []
    imports: set[str] = set()
    depth = 0  # of indentation
    brackets = 0
    start = True  # at a statement's start
    at = 0
    while at < len(tokens):
        kind, string, line = tokens[at]
        at += 1
        if kind == INDENT:
            depth += 1
        elif kind == DEDENT:
            depth -= 1
        if kind in (NEWLINE, INDENT, DEDENT):
            start = True
            continue
        if string in _OPEN:
            brackets += 1
        elif string in _CLOSE:
            brackets -= 1
        elif brackets == 0 and (string == ";" or string == ":"):
            start = True
            continue
        if start and brackets == 0 and (kind == NAME or string == "async"):  # 3.11: ASYNC
            if string == "import" or string == "from":
                at = _import(tokens, at, string == "from", imports)
                continue
            is_async = string == "async" and at < len(tokens) and tokens[at][1] == "def"
            if depth == 0 and (string == "def" or is_async):
                at, head = _function(tokens, at + is_async, is_async, line)
                functions.append(head)
                continue
        start = False
    return Outline(tuple(functions), frozenset(imports), text)


def _import(tokens: list[Token], at: int, from_: bool, imports: set[str]) -> int:
    """Add the modules of the import statement whose `import` or `from` was just read to
    `imports`; returns where the tokens after its end (NEWLINE or `;`) begin."""
    module = None
    if from_:  # from [dots] a.b import ...: the dots are dropped, as `ImportFrom.module`
        parts = []
        while at < len(tokens) and tokens[at][1] != "import":
            if tokens[at][0] == NAME:
                parts.append(tokens[at][1])
            at += 1
        at += 1
        module = ".".join(parts) or None  # `from . import x` names no module
        if module is not None:
            imports.add(module)
    names: list[str] = []
    dotted: list[str] = []  # the name being read: a, b of a.b
    alias = False  # reading what follows `as`
    while at < len(tokens):
        kind, string, _ = tokens[at]
        at += 1
        end = kind == NEWLINE or string == ";"
        if end or string == ",":
            if dotted:
                names.append(".".join(dotted))
            dotted, alias = [], False
            if end:
                break
        elif string == "as":
            alias = True
        elif not alias and (kind == NAME or string == "*"):
            dotted.append(string)
    if not from_:
        imports.update(names)
    elif module is not None:
        imports.update(f"{module}.{name}" for name in names)
    return at


def _function(tokens: list[Token], at: int, is_async: bool, line: int) -> tuple[int, FunctionHead]:
    """Read the head of the top-level function whose name is at `at` (its `def` was just
    read); returns where the tokens after its parameters begin, and the head."""
    name = tokens[at][1]
    at += 1
    level = 0
    while not (tokens[at][1] == "(" and level == 0):  # past type parameters, `def f[T](`
        level += tokens[at][1] in _OPEN
        level -= tokens[at][1] in _CLOSE
        at += 1
    at += 1
    params: list[Token] = []
    level = 1
    while at < len(tokens):
        token = tokens[at]
        at += 1
        level += token[1] in _OPEN
        level -= token[1] in _CLOSE
        if level == 0:
            break
        params.append(token)
    read = _positional(params)
    positional, defaults = read if read is not None else (None, ())
    return at, FunctionHead(name, is_async, line, positional, defaults)


def _positional(params: list[Token]) -> tuple[tuple[str, ...], tuple[object, ...]] | None:
    """The positional parameters and their defaults, from the tokens between a `def`'s
    parentheses; None unless each is a name, perhaps annotated (no lambda), with perhaps a
    plain default (`_plain`)."""
    names: list[str] = []
    defaults: list[object] = []
    level = 0
    parts: list[list[Token]] = [[]]
    for token in params:  # split at the commas outside brackets
        string = token[1]
        level += string in _OPEN
        level -= string in _CLOSE
        if string == "," and level == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    for part in parts:
        if not part or part[0][1] == "/":
            continue  # the end (a trailing comma), or where positional-only ones end
        if part[0][1] in ("*", "**"):
            break  # what follows is keyword-only
        name = part[0]
        rest = part[1:]
        if name[0] != NAME or any(token[1] == "lambda" for token in rest):
            return None
        if rest and rest[0][1] == ":":  # an annotation: up to its "=" outside brackets
            level, cut = 0, len(rest)
            for index, (_, string, _) in enumerate(rest):
                level += string in _OPEN
                level -= string in _CLOSE
                if string == "=" and level == 0:
                    cut = index
                    break
            rest = rest[cut:]
        if not rest:
            names.append(name[1])
            continue
        if len(rest) != 2 or rest[0][1] != "=":
            return None
        value = _plain(rest[1])
        if value is _NO_DEFAULT:
            return None
        names.append(name[1])
        defaults.append(value)
    return tuple(names), tuple(defaults)


def _plain(token: Token) -> object:
    """The value of a default written as one plain token: a decimal int without leading
    zeros, True, False or None; `_NO_DEFAULT` for anything else."""
    kind, string, _ = token
    if kind == NAME:
        return _PLAIN.get(string, _NO_DEFAULT)
    if (
        kind == NUMBER
        and string.isascii()
        and string.isdigit()
        and (string == "0" or string[0] != "0")
    ):
        return int(string)
    return _NO_DEFAULT


def client_source() -> Parser:
    """The parser of sse.py: Python source (`grader.parsers.python_source`), kept as its
    `Outline`."""
    parse_python = python_source()

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        parsed = parse_python(text, file, limits)
        if isinstance(parsed.value, str):
            return Parsed(outline(parsed.value), parsed.problems, parsed.line_of)
        return parsed

    return parse


def _tree_args(source: Outline, head: FunctionHead) -> ast.arguments:
    """The parameters of `head` in the syntax tree of the source: for what its tokens do
    not say plainly, and to show it."""
    import ast

    tree = ast.parse(source.text)
    return next(
        node.args
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name == head.name
        and node.lineno == head.line
    )


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
    one): compared as text."""
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _source(node)


def _signature(head: FunctionHead, source: Outline) -> list[tuple[str, object]]:
    """(name, default) of the positional parameters; `_NO_DEFAULT` where there is none.
    From the tokens when they said them plainly, else from the syntax tree."""
    if head.positional is not None:
        missing = len(head.positional) - len(head.defaults)
        return list(zip(head.positional, [_NO_DEFAULT] * missing + [*head.defaults], strict=True))
    args = _tree_args(source, head)
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
    found = _signature(func, source)
    expected = [
        (name, _NO_DEFAULT if name == "messages" else default) for name, default in _EXPECTED
    ]
    if found[: len(expected)] != expected or any(
        d is _NO_DEFAULT for _, d in found[len(expected) :]
    ):
        shown = f"stream({_source(_tree_args(source, func))})"
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
