"""The engine's layout keeps its promises: it knows no lab, it has no import cycle, and
each of its modules does one job of at most about 400 lines, in a package that imports
only the packages below it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

GRADER = ROOT / "grader"
MAX_LINES = 400
LAB_WORDS = re.compile(
    r"prefill|ttft|cache_prompt|cancel task|sse_raw|voice-llm|/root/voice|slot_idle|n_ctx",
    re.IGNORECASE,
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in GRADER.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(path: Path, modules: dict[str, Path], annotations: bool = True) -> set[str]:
    """Every grader module `path` imports, at the top or inside a function; with
    `annotations=False`, not those imported only for a type checker (`if TYPE_CHECKING:`)."""
    out: set[str] = set()
    tree = ast.parse(path.read_text("utf-8"))
    if not annotations:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
                node.body = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
    return out


def test_no_module_of_the_engine_names_the_first_token_lab() -> None:
    """The issue's done-when: `grep -rniE "prefill|ttft|..." grader/` finds nothing."""
    hits = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(GRADER.rglob("*"))
        if path.is_file() and path.suffix in (".py", ".toml", ".json")
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if LAB_WORDS.search(line)
    ]
    assert hits == []


def test_the_engine_has_no_import_cycle() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    cycles = []

    def visit(name: str, trail: list[str], done: set[str]) -> None:
        if name in trail:
            cycles.append([*trail[trail.index(name) :], name])
            return
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, [*trail, name], done)
        done.add(name)

    done: set[str] = set()
    for name in sorted(graph):
        visit(name, [], done)
    assert cycles == []


def test_every_module_of_the_engine_is_small() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text("utf-8").splitlines())
        for path in GRADER.rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


LAYERS = (
    "words",
    "system",
    "reading",
    "engine",
    "render",
    "export",
    "class_report",
    "batch",
    "fuzzing",
    "cli",
)
"""The engine's packages from the bottom up: each may import only the packages before
it (docs/architecture.md says what each owns)."""
TOP_LEVEL_MOST = 12


def test_the_engine_has_at_most_a_dozen_top_level_modules() -> None:
    top = [p.name for p in GRADER.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()]
    assert len(top) <= TOP_LEVEL_MOST, sorted(top)


def test_every_package_of_the_engine_has_its_place_in_the_layers() -> None:
    packages = {p.name for p in GRADER.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(LAYERS)


def test_every_package_says_what_it_owns() -> None:
    for name in LAYERS:
        tree = ast.parse((GRADER / name / "__init__.py").read_text("utf-8"))
        assert ast.get_docstring(tree), name


def test_no_package_imports_one_above_it() -> None:
    """Data flows one way: files are read (`reading`), graded (`engine`), rendered and
    gathered (`render`, `export`, `class_report`, `batch`), and the command line (`cli`)
    drives it all; a `__main__` (`python -m`) is an entry point, above everything. An
    annotation may name a class of any package (`if TYPE_CHECKING:` imports nothing)."""
    modules = _modules()
    upward = []
    for name, path in sorted(modules.items()):
        parts = name.split(".")
        if len(parts) < 3 or parts[-1] == "__main__":
            continue
        here = LAYERS.index(parts[1])
        for other in sorted(_imports(path, modules, annotations=False)):
            below = other.split(".")
            if len(below) >= 2 and below[1] in LAYERS and LAYERS.index(below[1]) > here:
                upward.append(f"{name} -> {other}")
    assert upward == []
