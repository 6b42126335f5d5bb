"""sse.py's outline is what its syntax tree says.

`checks.source.outline` reads a passing sse.py from its syntax tree: the top-level
functions (name, `async`, line), their positional parameters with their defaults, and
the modules imported anywhere, as `ast` gives them here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks.source import _NO_DEFAULT, _signature, outline
from grader.reading.limits import Limits
from grader.reading.parsers import python_source
from tests.conftest import ROOT


def _tree_outline(text: str) -> tuple[list[tuple[str, bool, int]], set[str]]:
    tree = ast.parse(text)
    functions = [
        (node.name, isinstance(node, ast.AsyncFunctionDef), node.lineno)
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    imports: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            imports.add(node.module)
            imports.update(f"{node.module}.{alias.name}" for alias in node.names)
    return functions, imports


def _tree_signatures(text: str) -> list[list[tuple[str, object]]]:
    """Each top-level function's (name, default) positional parameters, by the tree."""
    found = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [*node.args.posonlyargs, *node.args.args]
            defaults: list[object] = [_NO_DEFAULT] * (len(params) - len(node.args.defaults))
            for default in node.args.defaults:
                try:
                    defaults.append(ast.literal_eval(default))
                except ValueError:
                    defaults.append(ast.unparse(default))
            found.append([(p.arg, d) for p, d in zip(params, defaults, strict=True)])
    return found


def _assert_outline_is_the_trees(text: str) -> None:
    read = outline(text)
    functions, imports = _tree_outline(text)
    assert [(f.name, f.is_async, f.line) for f in read.functions] == functions
    assert read.imports == imports
    assert [_signature(f, read) for f in read.functions] == _tree_signatures(text)


PARAM_DEFAULTS = ["64", "True", "None", "False", "0", "-1", "'x'", "0x40", "1.0", "(1, 2)",
                  "N", "f(1)", "[1,\n    2]", "lambda: 0", "{}"]  # fmt: skip
ANNOTATIONS = ["int", "'lambda'", "dict[str, int]", "lambda: int", "int | None"]


@st.composite
def parameter_lists(draw: st.DrawFn) -> str:
    """A valid parameter list: positional-only, positional (defaults once one has one),
    then `*args` or `*` with keyword-only ones, then `**kw`."""
    names = iter(f"p{i}" for i in range(40))
    defaulted = False

    def param() -> str:
        nonlocal defaulted
        text = next(names)
        if draw(st.booleans()):
            text += ": " + draw(st.sampled_from(ANNOTATIONS))
        if defaulted or draw(st.booleans()):
            defaulted = True
            text += (" = " if ":" in text else "=") + draw(st.sampled_from(PARAM_DEFAULTS))
        return text

    parts = [param() for _ in range(draw(st.integers(0, 3)))]
    if parts and draw(st.booleans()):
        parts.append("/")
    parts += [param() for _ in range(draw(st.integers(0, 3)))]
    star = draw(st.sampled_from(["", "*args", "*"]))
    if star:
        parts.append(star)
        for _ in range(draw(st.integers(int(star == "*"), 2))):  # a bare * needs one
            parts.append(next(names) + draw(st.sampled_from(["", "=1"])))
    if draw(st.booleans()):
        parts.append("**kw")
    trailing = draw(st.sampled_from(["", ","])) if parts else ""
    return ", ".join(parts) + trailing


STATEMENTS = [
    "import a.b as c, d",
    "import http.client",
    "from http import client",
    "from .x import y as z, w",
    "from . import q",
    "from ...m.n import (o,\n    p,)",
    "from m import *",
    "if True: import zz",
    "x = 1; import yy",
    "try:\n    import t1\nexcept ImportError:\n    from t2 import t3",
    "def g():\n    import inner\n    yield from range(3)",
    "class C:\n    import cls_mod\n    def m(self, a=64):\n        from deep import d",
    "@dec\ndef decorated(a=1):\n    raise E from F",
    "s = 'import fake; def fake(): pass'  # import fake2",
    '"""\ndef not_a_function(a=1):\n    import not_a_module\n"""',
    "async def fetch(url, tries=3):\n    async with s:\n        import in_async",
    "while x:\n    from w import v\nelse:\n    import e1",
    "match cmd:\n    case 1:\n        import in_case",
    "with open(p) as f: import in_with",
    "lambda_ = lambda: 0",
    "x: int = 3",
    "if a:\n    def nested(b=2):\n        pass",
    "def after(\n    a,\n    b=True,  # a comment\n):\n    return a",
    "def keywords(*, a=1):\n    pass",
    "def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):\n    pass",
    "\x0cdef paged(a=1):\n    pass",  # a form feed: the column is 1, the depth 0
    "import ｈttp.ｃlient\ndef ｓtream(ｍessages, max_tokens=64):\n    from ｊson import ｌoads",
    'def fmt(a=f"{{", b=1):\n    return f"}}{a:>{b}}"',  # f-strings: their text is no code
    'x = f"{x}def"',
    'print(f"{a}import", 1)',
    "s = f'{x!r:>10} from {y}'",
]


@st.composite
def sources(draw: st.DrawFn) -> str:
    chunks = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            chunks.append(draw(st.sampled_from(STATEMENTS)))
        else:
            head = draw(st.sampled_from(["def", "async def"]))
            chunks.append(f"{head} f{len(chunks)}({draw(parameter_lists())}):\n    pass")
    text = "\n".join(chunks) + draw(st.sampled_from(["\n", "", "\n\n# end"]))
    return text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))


@settings(max_examples=400, deadline=None)
@given(sources())
def test_the_outline_of_generated_sources_is_their_trees(text: str) -> None:
    _assert_outline_is_the_trees(text)


SSE_FILES = sorted({*ROOT.glob("sample_submissions/**/sse.py"), *ROOT.glob("tests/data/**/sse.py")})


@pytest.mark.parametrize("path", SSE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_outline_of_every_sse_py_in_the_repository_is_its_trees(path: Path) -> None:
    text = path.read_text("utf-8", "replace")
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python: the parser refuses it before any outline")
    _assert_outline_is_the_trees(text)


def test_the_labs_signature_is_read_with_its_defaults() -> None:
    head = outline("def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None): pass")
    (stream,) = head.functions
    assert stream.positional == ("messages", "max_tokens", "cache_prompt", "raw_out")
    assert stream.defaults == (64, True, None)


def test_a_default_written_another_way_is_its_value() -> None:
    read = outline("def stream(messages, max_tokens=0x40): pass")
    (head,) = read.functions
    assert head.defaults == (64,)  # 0x40 is 64: literal_eval says so
    assert _signature(head, read) == [
        ("messages", _NO_DEFAULT),
        ("max_tokens", 64),
    ]


def _problems(text: str) -> list[tuple[str, int | None, int | None]]:
    parsed = python_source()(text, "sse.py", Limits())
    return [(p.message_id, p.location.line, p.location.column) for p in parsed.problems]


BROKEN = [
    "def f(:\n    pass",
    "def f()\n    pass",
    "x = (1,\n",
    "  indented = 1",
    "s = 'open",
    "if x:\npass",
    "print 'py2'",
    "a = 1 +",
    "x = ]",
    "def f(a, b=1, c): pass",
]  # a NUL byte: said with its line (tests/test_python_source_guards.py)


@pytest.mark.parametrize("text", BROKEN)
def test_a_syntax_error_is_the_one_compile_reports(text: str) -> None:
    """Same message, line and column as `compile` (the parser behind both is one)."""
    try:
        compile(text, "<sse.py>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        from grader.reading.parsers import _python_problem

        expected = [(_python_problem(exc.msg)[0], exc.lineno, exc.offset)]
    except ValueError:
        expected = [("python.unparseable", None, None)]
    assert _problems(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "def f(a, a): pass",  # a duplicate parameter
        "nonlocal x",
        "def f():\n    from os import *",
    ],
)
def test_a_program_no_python_can_compile_is_refused_though_it_parses(text: str) -> None:
    """The symbol table refuses what the parser lets through and the compiler would not:
    running such an sse.py fails before its first line."""
    with pytest.raises(SyntaxError):
        compile(text, "<sse.py>", "exec", dont_inherit=True)
    assert [problem[0] for problem in _problems(text)] == ["python.syntax"]


def test_valid_source_is_kept_as_its_text() -> None:
    text = "import http.client\n"
    assert python_source()(text, "sse.py", Limits()).value == text


@pytest.mark.parametrize("end", ["\r", "\r\n"], ids=["CR", "CRLF"])
def test_a_source_with_other_line_ends_is_outlined_as_with_lf(end: str) -> None:
    """Python reads a lone CR and CRLF as line ends, as LF: so does the outline."""
    text = "import http.client\ndef stream(messages, max_tokens=64):\n    import json\n"
    other, lf = outline(text.replace("\n", end)), outline(text)
    assert (other.functions, other.imports) == (lf.functions, lf.imports)


def test_a_function_after_a_form_feed_is_top_level() -> None:
    """A form feed (a page break) may start a line; Python counts no column for it."""
    text = "import os\n\x0cdef stream(messages, max_tokens=64): pass\n"
    assert [f.name for f in outline(text).functions] == ["stream"]


def test_a_name_typed_in_full_width_letters_is_the_name_python_reads() -> None:
    """Python normalizes identifiers (NFKC): an input method's full-width `ｓtream` is
    `stream`, and `ｈttp.client` is http.client."""
    read = outline("import ｈttp.client\ndef ｓtream(ｍessages, max_tokens=64): pass\n")
    assert "http.client" in read.imports
    assert [(f.name, f.positional) for f in read.functions] == [
        ("stream", ("messages", "max_tokens"))
    ]
