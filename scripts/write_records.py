#!/usr/bin/env python3
"""Write each package's `records_generated.py`: the methods of its `@record` classes
(`grader.records`), as `dataclasses.dataclass` would make them from the same declaration.

A record is declared once, as a dataclass is, where it is used; this script reads those
declarations (their source, without importing them) and writes, for each, the `__init__`,
`__repr__`, `__eq__`, `__hash__` and, when frozen, `__setattr__` / `__delattr__` that
`record` attaches at import, so that nothing is compiled when the grader starts. Run it
after changing a record's fields or options (`tests/test_records.py` fails until then,
and so does importing the record). Usage: python scripts/write_records.py [--check]
"""

from __future__ import annotations

import ast
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "checks")
"""The top-level packages that declare records; each gets its own generated module (the
engine's knows nothing of the lab's)."""
GENERATED = "records_generated.py"
OPTIONS = ("frozen", "slots")
"""`record`'s options: `dataclass`'s `frozen` and `slots` (always `eq=True`)."""
FIELD_OPTIONS = ("default", "default_factory", "hash")
"""`field`'s options a record may use."""
OWN_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
"""Methods the generated ones would replace: a record may not define them."""


@dataclass(frozen=True)
class FieldDecl:
    name: str
    annotation: str
    default: bool = False
    """Has a default (a value or a factory)."""
    factory: bool = False
    hashed: bool = True


@dataclass(frozen=True)
class RecordDecl:
    module: str
    name: str
    frozen: bool
    slots: bool
    fields: tuple[FieldDecl, ...]
    post_init: bool

    @property
    def key(self) -> str:
        return f"{self.module}.{self.name}"


class DeclarationError(ValueError):
    """A record declaration this generator (or `dataclasses`) would not accept."""


def _constant_bool(node: ast.expr, where: str) -> bool:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, bool)):
        raise DeclarationError(f"{where}: options are True or False literals")
    return node.value


def _is_call_of(node: ast.expr | None, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and not node.args
    )


def _field(node: ast.AnnAssign, where: str) -> FieldDecl:
    if not isinstance(node.target, ast.Name):
        raise DeclarationError(f"{where}: a field is a plain name")
    name, annotation = node.target.id, ast.unparse(node.annotation)
    if annotation.startswith(("ClassVar", "InitVar", "KW_ONLY")):
        raise DeclarationError(f"{where}.{name}: {annotation} is not supported")
    if node.value is None:
        return FieldDecl(name, annotation)
    if not _is_call_of(node.value, "field"):
        return FieldDecl(name, annotation, default=True)
    options = {}
    for keyword in node.value.keywords:  # type: ignore[union-attr]
        if keyword.arg not in FIELD_OPTIONS:
            raise DeclarationError(f"{where}.{name}: field({keyword.arg}=) is not supported")
        options[keyword.arg] = keyword.value
    hashed = True if "hash" not in options else _constant_bool(options["hash"], where)
    return FieldDecl(
        name,
        annotation,
        default="default" in options or "default_factory" in options,
        factory="default_factory" in options,
        hashed=hashed,
    )


def declarations(path: Path, module: str) -> list[RecordDecl]:
    """The `@record(...)` classes at the top of the module at `path`."""
    found = []
    for node in ast.parse(path.read_text("utf-8")).body:
        if not isinstance(node, ast.ClassDef):
            continue
        decorator = next((d for d in node.decorator_list if _is_call_of(d, "record")), None)
        if decorator is None:
            continue
        where = f"{module}.{node.name}"
        options = dict.fromkeys(OPTIONS, False)
        for keyword in decorator.keywords:  # type: ignore[attr-defined]
            if keyword.arg not in OPTIONS:
                raise DeclarationError(f"{where}: record({keyword.arg}=) is not supported")
            options[keyword.arg] = _constant_bool(keyword.value, where)
        fields = tuple(_field(n, where) for n in node.body if isinstance(n, ast.AnnAssign))
        for before, after in itertools.pairwise(fields):
            if before.default and not after.default:
                raise DeclarationError(f"{where}.{after.name}: no default after a default")
        methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        if methods & set(OWN_METHODS):
            raise DeclarationError(f"{where} defines {sorted(methods & set(OWN_METHODS))}")
        found.append(
            RecordDecl(
                module, node.name, **options, fields=fields, post_init="__post_init__" in methods
            )
        )
    return found


def package_declarations(package: str) -> list[RecordDecl]:
    """Every record of `package`, module by module in path order."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.name == GENERATED:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.extend(declarations(path, module))
    return found


def _tuple(items: list[str]) -> str:
    """Python source of a tuple of these expressions (one item keeps its comma)."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _methods(decl: RecordDecl) -> list[str]:
    """The source lines of the function making `decl`'s methods."""
    names = [f.name for f in decl.fields]
    function = "_" + decl.key.replace(".", "_")
    lines = [
        "",
        "",
        f"def {function}(cls, defaults, factories):",
        f'    """The methods of `{decl.key}`."""',
    ]
    defaulted = [f for f in decl.fields if f.default]
    if defaulted:
        lines.append(f"    {_tuple([f'd_{f.name}' for f in defaulted])} = defaults")
    factories = [f for f in decl.fields if f.factory]
    if factories:
        lines.append(f"    {_tuple([f'f_{f.name}' for f in factories])} = factories")
    if decl.frozen and decl.slots:
        # each slot's own setter: a third cheaper than object.__setattr__, which first
        # looks the name up on the class (a near-cap log makes 100,000 records)
        lines += [f"    set_{f.name} = cls.{f.name}.__set__" for f in decl.fields]
    elif decl.frozen:
        lines.append("    set_field = object.__setattr__")
    parameters = ["self"] + [
        f"{f.name}: {f.annotation}" + (f" = d_{f.name}" if f.default else "") for f in decl.fields
    ]
    lines += ["", f"    def __init__({', '.join(parameters)}):"]
    body = []
    for f in decl.fields:
        value = f"f_{f.name}() if {f.name} is FACTORY else {f.name}" if f.factory else f.name
        if decl.frozen and decl.slots:
            body.append(f"set_{f.name}(self, {value})")
        elif decl.frozen:
            body.append(f"set_field(self, {f.name!r}, {value})")
        else:
            body.append(f"self.{f.name} = {value}")
    if decl.post_init:
        body.append("self.__post_init__()")
    lines += [f"        {line}" for line in body or ["pass"]]
    shown = ", ".join(f"{n}={{self.{n}!r}}" for n in names)
    mine = [f"self.{n}" for n in names]
    theirs = [f"other.{n}" for n in names]
    lines += [
        "",
        "    def __repr__(self):",
        f'        return f"{{self.__class__.__qualname__}}({shown})"',
        "",
        "    def __eq__(self, other):",
        "        if other.__class__ is self.__class__:",
        f"            return {_tuple(mine) if names else '()'} == "
        f"{_tuple(theirs) if names else '()'}",
        "        return NotImplemented",
    ]
    methods = ["__init__", "__repr__", "__eq__"]
    if decl.frozen:
        hashed = [f"self.{f.name}" for f in decl.fields if f.hashed]
        lines += [
            "",
            "    def __hash__(self):",
            f"        return hash({_tuple(hashed) if hashed else '()'})",
            "",
            "    def __setattr__(self, name, value):",
            f"        if type(self) is cls or name in {tuple(names)!r}:",
            "            raise cannot_assign(name)",
            "        super(cls, self).__setattr__(name, value)",
            "",
            "    def __delattr__(self, name):",
            f"        if type(self) is cls or name in {tuple(names)!r}:",
            "            raise cannot_delete(name)",
            "        super(cls, self).__delattr__(name)",
        ]
        methods += ["__hash__", "__setattr__", "__delattr__"]
    lines += ["", f"    return {{{', '.join(f'{m!r}: {m}' for m in methods)}}}"]
    return lines


def render(package: str) -> str:
    """The text of `package`'s generated module."""
    decls = package_declarations(package)
    lines = [
        f'"""The methods of the records of `{package}`, as `dataclasses` makes them from the',
        "same declarations: generated by scripts/write_records.py, never edited by hand",
        "(`tests/test_records.py` fails when this is out of date). `grader.records.record`",
        'attaches them to each class."""',
        "",
        "from __future__ import annotations",
        "",
        "from grader.records import FACTORY, cannot_assign, cannot_delete",
    ]
    for decl in decls:
        lines += _methods(decl)
    lines += ["", "", "RECORDS = {"]
    for decl in decls:
        names = tuple(f.name for f in decl.fields)
        function = "_" + decl.key.replace(".", "_")
        lines.append(f"    {decl.key!r}: ({names!r}, {decl.frozen}, {decl.slots}, {function}),")
    lines += [
        "}",
        '"""Each record, by module and name: (its fields, frozen, slots, its methods\' maker)."""',
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    from generated_files import write_or_check

    return write_or_check(((ROOT / p / GENERATED, render(p)) for p in PACKAGES), argv, ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
