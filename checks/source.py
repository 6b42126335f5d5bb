"""The student's client, `sse.py`, read as source: never imported, never run.

What the check reads of it (its top-level functions' heads, the modules it imports, how
it reads the stream) is kept, as an `Outline`, read from the syntax tree (`ast`) of the
text the engine's parser accepted (`grader.reading.parsers.python_source`); the tree itself is
let go, and made again only to show a signature that fails.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from grader.engine.api import Context, Fail, check
from grader.reading.limits import Limits
from grader.reading.loading import Parsed, Parser
from grader.reading.parsers import python_source
from grader.reading.pysource import python_tree

SIGNATURE = "stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)"
_EXPECTED = [("messages", None), ("max_tokens", 64), ("cache_prompt", True), ("raw_out", None)]
_NO_DEFAULT = object()


@dataclass(frozen=True, slots=True)
class FunctionHead:
    """A top-level `def` of sse.py without its body."""

    name: str
    is_async: bool
    line: int
    positional: tuple[str, ...]
    """Its positional parameters (`/`-only ones first), in order."""
    defaults: tuple[object, ...]
    """The defaults of the last `len(defaults)` positional parameters, as
    `ast.literal_eval` reads them, or their source when they are no literal (`_literal`)."""


@dataclass(frozen=True, slots=True)
class Outline:
    """What `sse_py.static` reads of sse.py."""

    functions: tuple[FunctionHead, ...]
    """The top-level function definitions, in the file's order."""
    imports: frozenset[str]
    """The modules imported anywhere in the file: `import a.b` gives a.b, `from a.b import
    c` gives a.b and a.b.c (so `from http import client` gives http.client)."""
    text: str
    """The source, to show a signature that fails (its size is capped: the tree's is
    not)."""
    calls: frozenset[str] = frozenset()
    """The names called anywhere (`resp.readline()` gives readline, `urlopen(...)`
    urlopen)."""
    iterates_stream: bool = False
    """A `for` loops over a response, a socket file or a name, as a line-by-line read
    does (`for line in resp:`), not over a body read whole (`resp.read().splitlines()`)."""
    reads_whole_lines: bool = False
    """A body read whole is split into lines (`resp.read().split(...)`)."""
    newline_literal: bool = False
    """A string or bytes literal holds a newline escape: an SSE parser of its own splits
    what `recv()` returns there."""
    closes_in_with: bool = False
    """A `with` statement opens a connection, response or socket, which it closes."""


_OPENERS = frozenset(
    (
        "urlopen",
        "HTTPConnection",
        "HTTPSConnection",
        "getresponse",
        "create_connection",
        "socket",
        "makefile",
        "closing",
    )
)
"""What a `with` statement opens that is the client's connection, response or socket."""
_STREAM_OPENERS = frozenset(("urlopen", "getresponse", "makefile"))
"""Calls that give a response or a socket's file, which a `for` reads line by line."""
_WHOLE = frozenset(("read", "readlines", "split", "splitlines", "decode", "getvalue"))
"""Names in a loop's iterable that say the body was read whole first."""
_LINE_SPLITS = frozenset(("split", "splitlines"))
_LINE_END = re.compile(r"\r\n|\r|\n")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def outline(text: str) -> Outline:
    """The outline of valid Python source, from its syntax tree (`python_tree`, which
    never fails where the parser passed): its top-level functions, the modules imported
    anywhere (`import a.b` gives a.b; `from a.b import c`, a.b and a.b.c; the dots of a
    relative import are dropped, and `from . import x` names no module), and how it
    reads the stream (`_Reading`). The tree is let go once read: it is some 40 times the
    source's size."""
    tree = python_tree(text)
    functions = [
        FunctionHead(
            node.name,
            isinstance(node, ast.AsyncFunctionDef),
            node.lineno,
            *_positional(node.args),
        )
        for node in tree.body
        if isinstance(node, _FUNCTIONS)
    ]
    reading = _Reading(text)
    reading.read(tree)
    return Outline(
        tuple(functions),
        frozenset(reading.imports),
        text,
        frozenset(reading.calls),
        reading.iterates_stream,
        reading.reads_whole_lines,
        reading.newline_literal,
        reading.closes_in_with,
    )


def _names(node: ast.AST) -> list[str]:
    """The names in `node`, in the order they are written: each variable, attribute and
    keyword argument's."""
    found: list[tuple[int, int, str]] = []
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.append((child.end_lineno or 0, child.end_col_offset or 0, child.id))
        elif isinstance(child, ast.Attribute):
            found.append((child.end_lineno or 0, child.end_col_offset or 0, child.attr))
        elif isinstance(child, ast.keyword) and child.arg is not None:
            found.append((child.lineno, child.col_offset, child.arg))
    return [name for _, _, name in sorted(found)]


_READ = frozenset(
    {
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Import,
        ast.ImportFrom,
        ast.ClassDef,
        ast.Call,
        ast.Attribute,
        ast.Assign,
        ast.AnnAssign,
        ast.keyword,
        ast.With,
        ast.AsyncWith,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.JoinedStr,
        ast.Constant,
    }
)
"""The kinds of node `_Reading.read` reads something of (a parsed tree's nodes are of
these classes exactly, never of subclasses)."""


def _called(node: ast.Call) -> str | None:
    """The name a call calls: `readline` of `resp.readline()`, `urlopen` of `urlopen(u)`."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _Reading:
    """What `outline` learns of sse.py in one walk of its tree: the modules it imports,
    and how it reads the stream (the names it calls, the names it binds to a response or
    socket file, the loops over them, a body read whole and split into lines, a newline
    literal, a `with` that opens the connection). A static sketch, never a run, for a
    check that asks what the client does, not how it is written."""

    def __init__(self, text: str) -> None:
        self.lines = _LINE_END.split(text)
        self.imports: set[str] = set()
        self.calls: set[str] = set()
        self.streams: set[str] = set()  # names bound to a response or a socket's file
        self.iterates_stream = False
        self.reads_whole_lines = False
        self.newline_literal = False
        self.closes_in_with = False

    def read(self, tree: ast.Module) -> None:
        """Walk the tree in the order it is written (a name is a stream from the line
        that binds it on), one node at a time (no recursion: a file may nest deeply).
        Each node on the stack carries whether it is inside a value bound to a name (a
        comprehension there is a list made, not a loop over the stream)."""
        top = set(map(id, tree.body))
        stack: list[tuple[ast.AST, bool]] = [(tree, False)]
        while stack:
            node, bound_value = stack.pop()
            children = list(ast.iter_child_nodes(node))
            value: ast.AST | None = None  # the child that is a value bound to a name
            if type(node) not in _READ:  # a node of no kind read here: only its children
                pass
            elif isinstance(node, _FUNCTIONS):
                if id(node) not in top:  # a method or nested function: `def name(`
                    self.calls.add(node.name)
                else:  # what a top-level function's parameters hold is no code it runs
                    children = [c for c in children if c is not node.args]
            elif isinstance(node, ast.Import):
                self.imports.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                self.imports.add(node.module)
                self.imports.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.ClassDef) and (node.bases or node.keywords):
                self.calls.add(node.name)
            elif isinstance(node, ast.Call):
                name = _called(node)
                if name is not None:
                    self.calls.add(name)
            elif isinstance(node, ast.Attribute):
                self._whole_lines(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                if isinstance(target, ast.Tuple) and target.elts:
                    target = target.elts[-1]
                bound = target.id if isinstance(target, ast.Name) else None
                if isinstance(target, ast.Attribute):
                    bound = target.attr
                if bound is not None:
                    if self._opens_stream(node.value):
                        self.streams.add(bound)
                    value = node.value
            elif isinstance(node, ast.keyword) and node.arg is not None:
                value = node.value
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if set(_names(item.context_expr)) & _OPENERS:
                        self.closes_in_with = True
                    binds = item.optional_vars
                    if isinstance(binds, ast.Name) and self._opens_stream(item.context_expr):
                        self.streams.add(binds.id)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                self._loop(node.iter)
            elif isinstance(node, ast.comprehension) and not bound_value:
                self._loop(node.iter)  # `[line for line in resp]`; a list bound to a name
                # (`lines = [line for line in resp]`) is the body read whole
            elif isinstance(node, ast.JoinedStr):
                self._literal(node)
                children = [c for c in children if not isinstance(c, ast.Constant)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                self._literal(node)
            stack.extend((c, bound_value or c is value) for c in reversed(children))

    def _literal(self, node: ast.expr) -> None:
        """A string or bytes literal holding a newline escape (a backslash and an n as
        written, not in a raw string): an SSE parser of its own splits what `recv()`
        returns there."""
        if self.newline_literal:
            return
        text = self._source(node)
        quote = min((i for i in (text.find("'"), text.find('"')) if i >= 0), default=0)
        self.newline_literal = "r" not in text[:quote].lower() and "\\n" in text

    def _source(self, node: ast.expr) -> str:
        """The text `node` is written as (its columns are UTF-8 bytes)."""
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        end = node.end_col_offset or 0
        if first == last:
            return _columns(self.lines[first], node.col_offset, end)
        return "\n".join(
            [
                _columns(self.lines[first], node.col_offset, None),
                *self.lines[first + 1 : last],
                _columns(self.lines[last], 0, end),
            ]
        )

    def _whole_lines(self, split: ast.Attribute) -> None:
        """A split into lines (`split`, `splitlines`) of what `.read()`, with nothing in
        its parentheses, gave (`resp.read().decode().splitlines()`)."""
        if self.reads_whole_lines or split.attr not in _LINE_SPLITS:
            return
        value = split.value
        while isinstance(value, (ast.Call, ast.Attribute)):
            if isinstance(value, ast.Call):
                func = value.func
                read = isinstance(func, ast.Attribute) and func.attr == "read"
                if read and not (value.args or value.keywords):
                    self.reads_whole_lines = True
                    return
                value = func
            else:
                value = value.value

    def _opens_stream(self, node: ast.expr) -> bool:
        """Whether `node` gives a response or socket file itself, not a body read from it
        (`conn.getresponse()`, not `conn.getresponse().read()`)."""
        names = set(_names(node))
        return bool(names & _STREAM_OPENERS) and not names & _WHOLE

    def _loop(self, iterable: ast.expr) -> None:
        """A `for` loop's (or comprehension's) iterable: a stream it reads line by line."""
        names = _names(iterable)
        if set(names) & _WHOLE:
            return  # a body read whole, then split
        if self._opens_stream(iterable) or (names and names[-1] in self.streams):
            self.iterates_stream = True


def _columns(line: str, start: int, end: int | None) -> str:
    """`line[start:end]` counted in UTF-8 bytes, as the syntax tree counts columns."""
    if line.isascii():
        return line[start:end]
    return line.encode("utf-8", "surrogatepass")[start:end].decode("utf-8", "replace")


def _positional(args: ast.arguments) -> tuple[tuple[str, ...], tuple[object, ...]]:
    """The positional parameters (`/`-only ones first) and the defaults of the last
    ones, each as `ast.literal_eval` reads it, or its source when it is no literal."""
    params = [*args.posonlyargs, *args.args]
    return tuple(p.arg for p in params), tuple(_literal(node) for node in args.defaults)


def client_source() -> Parser:
    """The parser of sse.py: Python source (`grader.reading.parsers.python_source`), kept as its
    `Outline`."""
    parse_python = python_source()

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        parsed = parse_python(text, file, limits)
        if isinstance(parsed.value, str):
            return Parsed(outline(parsed.value), parsed.problems, parsed.line_of)
        return parsed

    return parse


def _tree_args(source: Outline, head: FunctionHead) -> ast.arguments:
    """The parameters of `head` in the syntax tree of the source, to show them."""
    tree = python_tree(source.text)  # never fails where the parser passed, at any depth
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
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, MemoryError):
        return "…"
    return text if len(text) <= 120 else text[:117] + "…"


def _literal(node: ast.expr) -> object:
    """`ast.literal_eval(node)`, or the node's source when it is not a literal (or an absurd
    one): compared as text."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _source(node)


def _signature(head: FunctionHead, source: Outline) -> list[tuple[str, object]]:
    """(name, default) of the positional parameters; `_NO_DEFAULT` where there is none."""
    missing = len(head.positional) - len(head.defaults)
    return list(zip(head.positional, [_NO_DEFAULT] * missing + [*head.defaults], strict=True))


CLIENT_MODULES = ("http.client", "urllib.request", "socket")
"""The standard library's ways to speak HTTP and read a stream as it comes."""


def stdlib_client(source: Outline) -> bool:
    """sse.py imports one of the standard library's clients (`import urllib` too, when
    it calls urlopen: the lab's pods import urllib.request with it)."""
    if any(module in source.imports for module in CLIENT_MODULES):
        return True
    return "urllib" in source.imports and "urlopen" in source.calls


def reads_line_by_line(source: Outline) -> bool:
    """The client reads the stream a line at a time: `readline()` (http.client's or
    urllib's response, a socket's file), a loop over the response or the socket's file
    itself, or `recv()` with a parser of its own that splits at newlines. Reading the
    body whole (`resp.read()`) and splitting it afterwards is no stream."""
    if "readline" in source.calls:
        return True
    if source.iterates_stream and not source.reads_whole_lines:
        return True
    receives = bool(source.calls & {"recv", "recv_into"})
    return receives and source.newline_literal


def closes(source: Outline) -> bool:
    """The client closes the connection: `.close()` (or a socket's `shutdown()`), or a
    `with` block around the connection, the response or the socket."""
    return bool(source.calls & {"close", "shutdown"}) or source.closes_in_with


@check("sse_py.static", reads=("sse_py",))
def static(ctx: Context) -> None:
    """sse.py defines the lab's `stream(...)` signature with a standard-library client that
    reads the stream line by line and closes the connection (http.client, urllib.request
    or a socket)."""
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
    if not stdlib_client(source):
        raise Fail(
            "no_stdlib_client",
            expected=" | ".join(CLIENT_MODULES),
            found="—",
            at=ctx.at("sse_py", line=1),
        )
    if not reads_line_by_line(source):
        raise Fail(
            "not_line_by_line",
            expected="readline()",
            found="—",
            at=ctx.at("sse_py", line=func.line),
        )
    if not closes(source):
        raise Fail(
            "never_closes",
            expected=".close()",
            found="—",
            at=ctx.at("sse_py", line=func.line),
        )
