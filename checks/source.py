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

from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.engine import Context, Fail, check
from grader.limits import Limits
from grader.loading import Parsed, Parser
from grader.parsers import (
    DEDENT,
    INDENT,
    NAME,
    NEWLINE,
    NUMBER,
    python_source,
    python_tokens,
)

if TYPE_CHECKING:
    import ast
    from collections.abc import Iterator
    from typing import Any

    Token = tuple[Any, ...]  # (text, type, line, ...): `grader.parsers.python_tokens`

SIGNATURE = "stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)"
_EXPECTED = [("messages", None), ("max_tokens", 64), ("cache_prompt", True), ("raw_out", None)]
_NO_DEFAULT = object()


@dataclass(frozen=True, slots=True)
class FunctionHead:
    """A top-level `def` of sse.py without its body."""

    name: str
    is_async: bool
    line: int
    positional: tuple[str, ...] | None
    """Its positional parameters (`/`-only ones first), in order; None when its tokens do
    not say them plainly (then `_signature` asks the syntax tree)."""
    defaults: tuple[object, ...]
    """The defaults of the last `len(defaults)` positional parameters: plain ints, True,
    False or None (as `ast.literal_eval` reads them)."""


@dataclass(frozen=True, slots=True)
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


_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
_PLAIN = {"True": True, "False": False, "None": None}
_WORDS = frozenset(("import", "from", "def", "async", "for", "with", "(", "="))
_STRING = 3  # token.STRING, the same number in every Python 3
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


def outline(text: str) -> Outline:
    """The outline of valid Python source, from its tokens (text, type, line, ...), in one
    pass: none is kept beyond the statement being read (a near-cap
    sse.py has some 50,000, which as a list would outweigh the log's events beside them).

    Only a few tokens say anything, beside the INDENT and DEDENT that tell the depth.
    `def` and `import` are keywords: each begins a function (top-level outside every
    block, whatever its column: a form feed may come first; `async` before it makes it a
    coroutine) and an import statement. `from` begins an
    import when an `import` follows before the statement's end (`yield from` and `raise
    ... from` have none). So every statement is read, nested ones too, as `ast.walk`
    would find them.
    """
    tokens = python_tokens(text)
    functions: list[FunctionHead] = []
    imports: set[str] = set()
    reading = _Reading()
    depth = 0  # INDENTs less DEDENTs so far: 0 outside every block
    previous: Token = ("", 0)
    for token in tokens:
        word = token[0]
        if word not in _WORDS:
            if token[1] == INDENT:
                depth += 1
            elif token[1] == DEDENT:
                depth -= 1
            elif token[1] == _STRING:
                reading.literal(word)
            previous = token
            continue
        if word == "(":
            reading.call(previous)
        elif word == "=":
            if previous[1] == NAME:
                reading.assignment(_identifier(previous[0]), tokens)
        elif word in ("for", "with"):
            reading.header(word, tokens)
        elif word == "import":
            imports.update(_imported(tokens))
        elif word == "from":
            parts = []  # the module's names, up to `import` if this is an import
            for token in tokens:  # the statement's next tokens
                if token[0] in ("import", ";") or token[1] == NEWLINE:
                    break
                if token[1] == NAME:
                    parts.append(_identifier(token[0]))
            if token[0] == "import":
                names = _imported(tokens)
                # the dots of `from ..m import x` are dropped, as `ImportFrom.module`; `from
                # . import x` names no module
                if parts:
                    module = ".".join(parts)
                    imports.add(module)
                    imports.update(f"{module}.{name}" for name in names)
        elif depth == 0:  # a `def` or `async` outside every block: a top-level function
            line, is_async = token[2], word == "async"
            if not is_async or next(tokens)[0] == "def":  # not `async for` or `async with`
                functions.append(_function(tokens, is_async, line))
        previous = token
    return Outline(
        tuple(functions),
        frozenset(imports),
        text,
        frozenset(reading.calls),
        reading.iterates_stream,
        reading.reads_whole_lines,
        reading.newline_literal,
        reading.closes_in_with,
    )


class _Reading:
    """What `outline` learns of how sse.py reads the stream, statement by statement: the
    names it calls, the names it binds to a response or socket file, the loops over
    them, a body read whole and split into lines, a newline literal, a `with` that opens
    the connection. Read from tokens, as the rest of the outline: a static sketch, never
    a run, for a check that asks what the client does, not how it is written."""

    def __init__(self) -> None:
        self.calls: set[str] = set()
        self.streams: set[str] = set()  # names bound to a response or a socket's file
        self.iterates_stream = False
        self.reads_whole_lines = False
        self.newline_literal = False
        self.closes_in_with = False

    def literal(self, text: str) -> None:
        if not self.newline_literal:
            quote = min((i for i in (text.find("'"), text.find('"')) if i >= 0), default=0)
            self.newline_literal = "r" not in text[:quote].lower() and "\\n" in text

    def call(self, before: Token) -> None:
        if before[1] == NAME:
            self.calls.add(_identifier(before[0]))

    def _statement(self, tokens: Iterator[Token], stop: frozenset[str]) -> list[Token]:
        """The tokens of the rest of a statement or clause, up to its NEWLINE, a `stop`
        word outside brackets, or a closing bracket it did not open; the calls and
        literals among them noted on the way."""
        read: list[Token] = []
        level = 0
        for token in tokens:
            string, kind = token[0], token[1]
            if kind == NEWLINE or (level == 0 and string in stop):
                break
            if string in _CLOSE:
                level -= 1
                if level < 0:
                    break
            elif string in _OPEN:
                level += 1
                if string == "(" and read:
                    self.call(read[-1])
            elif kind == _STRING:
                self.literal(string)
            read.append(token)
        words = [t[0] for t in read]
        for index, word in enumerate(words[:-2]):  # `.read()` and then a split into lines
            whole = word == "read" and words[index + 1 : index + 3] == ["(", ")"]
            if whole and _LINE_SPLITS & set(words[index + 3 : index + 12]):
                self.reads_whole_lines = True
        return read

    def _opens_stream(self, read: list[Token]) -> bool:
        """Whether these tokens give a response or socket file itself, not a body read
        from it (`conn.getresponse()`, not `conn.getresponse().read()`)."""
        names = {t[0] for t in read if t[1] == NAME}
        return bool(names & _STREAM_OPENERS) and not names & _WHOLE

    def assignment(self, name: str, tokens: Iterator[Token]) -> None:
        """`name = ...`: a name bound to a response or socket file is a stream."""
        if self._opens_stream(self._statement(tokens, frozenset((";",)))):
            self.streams.add(name)

    def header(self, word: str, tokens: Iterator[Token]) -> None:
        """A `for` loop's or `with` statement's head, after its keyword."""
        stop = frozenset((":", "if", "for", "async", ";"))
        read = self._statement(tokens, stop)
        words = [t[0] for t in read]
        if word == "with":
            if set(words) & _OPENERS:
                self.closes_in_with = True
            for index, w in enumerate(words[:-1]):  # `with urlopen(...) as resp`
                if w == "as" and self._opens_stream(read[:index]):
                    self.streams.add(_identifier(words[index + 1]))
            return
        if "in" not in words:
            return
        iterable = read[words.index("in") + 1 :]
        names = [_identifier(t[0]) for t in iterable if t[1] == NAME]
        if set(names) & _WHOLE:
            return  # a body read whole, then split
        if self._opens_stream(iterable) or (names and names[-1] in self.streams):
            self.iterates_stream = True


def _identifier(name: str) -> str:
    """A name as the parser reads it: NFKC-normalized (PEP 3131), so `ｓtream` typed with
    a full-width letter, as an input method may give it, is the function `stream`."""
    if name.isascii():
        return name
    from unicodedata import normalize

    return normalize("NFKC", name)


def _imported(tokens: Iterator[Token]) -> list[str]:
    """The names an import statement imports, read from `tokens` up to its end (NEWLINE
    or `;`): each dotted name of `import a.b, c as d` (a.b and c), or of `from m import
    (x as y, z)` (x and z)."""
    names: list[str] = []
    dotted: list[str] = []  # the name being read: a, b of a.b
    alias = False  # reading what follows `as`
    for token in tokens:
        string, kind = token[0], token[1]
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
            dotted.append(_identifier(string))
    return names


def _function(tokens: Iterator[Token], is_async: bool, line: int) -> FunctionHead:
    """The head of the function whose name `tokens` give next (its `def` just read), its
    tokens read up to its parameters' closing parenthesis."""
    name = _identifier(next(tokens)[0])
    level = 0
    for token in tokens:  # past type parameters, `def f[T](`
        if token[0] == "(" and level == 0:
            break
        level += token[0] in _OPEN
        level -= token[0] in _CLOSE
    params: list[Token] = []
    level = 1
    for token in tokens:
        level += token[0] in _OPEN
        level -= token[0] in _CLOSE
        if level == 0:
            break
        params.append(token)
    read = _positional(params)
    positional, defaults = read if read is not None else (None, ())
    return FunctionHead(name, is_async, line, positional, defaults)


def _positional(params: list[Token]) -> tuple[tuple[str, ...], tuple[object, ...]] | None:
    """The positional parameters and their defaults, from the tokens between a `def`'s
    parentheses; None unless each is a name, perhaps annotated (no lambda), with perhaps a
    plain default (`_plain`)."""
    parts: list[list[Token]] = [[]]
    level = 0
    for token in params:  # split at the commas outside brackets
        string = token[0]
        level += string in _OPEN
        level -= string in _CLOSE
        if string == "," and level == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    names: list[str] = []
    defaults: list[object] = []
    for part in parts:
        if not part or part[0][0] == "/":
            continue  # the end (a trailing comma), or where positional-only ones end
        if part[0][0] in ("*", "**"):
            break  # what follows is keyword-only
        name, rest = part[0], part[1:]
        if name[1] != NAME or any(token[0] == "lambda" for token in rest):
            return None
        if rest and rest[0][0] == ":":  # an annotation: up to its "=" outside brackets
            level, cut = 0, len(rest)
            for index, token in enumerate(rest):
                level += token[0] in _OPEN
                level -= token[0] in _CLOSE
                if token[0] == "=" and level == 0:
                    cut = index
                    break
            rest = rest[cut:]
        if rest:
            value = _plain(rest[1]) if len(rest) == 2 and rest[0][0] == "=" else _NO_DEFAULT
            if value is _NO_DEFAULT:
                return None
            defaults.append(value)
        names.append(_identifier(name[0]))
    return tuple(names), tuple(defaults)


def _plain(token: Token) -> object:
    """The value of a default written as one plain token: a decimal int without leading
    zeros, True, False or None; `_NO_DEFAULT` for anything else."""
    string, kind = token[:2]
    if kind == NAME:
        return _PLAIN.get(string, _NO_DEFAULT)
    plain_int = string.isascii() and string.isdigit() and (string == "0" or string[0] != "0")
    return int(string) if kind == NUMBER and plain_int else _NO_DEFAULT


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

    from grader.parsers import python_tree

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
