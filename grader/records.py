"""Records: value classes declared as dataclasses are, built with nothing compiled at import.

A cold `grader check` is mostly start-up (issue 13: within 4x the interpreter's own), and
`@dataclass` compiles and executes the source of each class's `__init__`, `__repr__`,
`__eq__`, `__hash__` and `__setattr__` every time the program starts: about a millisecond
per class, for the forty-odd classes a check imports. A `@record` class is declared the
way a dataclass is, once, where it is used (annotated fields, defaults,
`field(default_factory=...)`, methods); those same methods, as the dataclass would make
them, were written from that declaration by `scripts/write_records.py` into its package's
`records_generated` module, plain Python compiled into the module's .pyc like any other.
`record` only attaches them to the class (after building it with `__slots__` for
`slots=True`, as dataclasses does). So the declaration is the one definition and the
generated module never a second one: it is regenerated, never edited, and
`tests/test_records.py` fails when it is out of date, and compares every record with the
dataclass its declaration makes.

A record is not a dataclass (`dataclasses.fields` and `replace` refuse it): `field_names`,
`fields_of` and `replace` here do their jobs, and `as_dataclasses` gives the dataclasses
the declarations make, for tools that read dataclasses (pydantic writing the result's
JSON Schema) and for the tests.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
    R = TypeVar("R")
else:

    def dataclass_transform(**_options: Any) -> Callable[[Any], Any]:
        """Tells a type checker that `record` makes dataclass-like classes; nothing at run
        time."""
        return lambda decorator: decorator


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A field with no default."""


class _Factory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


FACTORY: Any = _Factory()
"""The default `__init__` shows for a field whose default a factory makes, as a
dataclass's shows `<factory>`: the factory is called when the argument is left out."""


class Field:
    """What `field(...)` declares beside a field's type: its default or default factory,
    and whether the record's hash leaves it out."""

    __slots__ = ("default", "default_factory", "hash")

    def __init__(self, default: Any, default_factory: Any, hash: bool | None) -> None:
        self.default = default
        self.default_factory = default_factory
        self.hash = hash


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] = MISSING,
    hash: bool | None = None,
) -> Any:
    """A field's default (`default`, or a `default_factory` called for each record) and,
    with `hash=False`, its leaving the record's hash: `dataclasses.field`'s options that
    records use (the generator refuses others)."""
    return Field(default, default_factory, hash)


def field_names(record: Any) -> tuple[str, ...]:
    """The fields of a record (or record class), in declaration order."""
    return record.__record_fields__


def fields_of(record: Any) -> dict[str, Any]:
    """A record's fields by name, the values themselves (not copied: `dataclasses.asdict`
    without its recursion and deep copies)."""
    return {name: getattr(record, name) for name in record.__record_fields__}


def is_record(value: Any) -> bool:
    """Whether `value` is a record (not a record class)."""
    return hasattr(type(value), "__record_fields__")


def replace(record: R, /, **changes: Any) -> R:
    """A copy of `record` with `changes`, as `dataclasses.replace` makes one (through
    `__init__`, so a factory default is not called again and `__post_init__` runs)."""
    values = {name: getattr(record, name) for name in record.__record_fields__}  # type: ignore[attr-defined]
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(record).__qualname__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})


def as_dataclasses(module: str, *, evaluate_annotations: bool = False) -> dict[str, type]:
    """The dataclasses the record declarations of `module` make, by name: each class
    statement executed again, in declaration order, in a copy of the module's namespace
    where `record` and `field` are `dataclasses.dataclass` and `dataclasses.field`. With
    `evaluate_annotations`, the module's `if TYPE_CHECKING:` blocks run first and each
    annotation is evaluated (a field typed with an earlier record of the module is then
    typed with its dataclass); else annotations stay strings, as the module has them.
    Reads the module's source: for tools and tests, never while grading."""
    import __future__

    import ast
    import dataclasses

    namespace = {
        **vars(sys.modules[module]),
        "record": dataclasses.dataclass,
        "field": dataclasses.field,
    }
    path = namespace["__file__"]
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    flags = 0 if evaluate_annotations else __future__.annotations.compiler_flag
    made = {}
    for node in tree.body:
        checking = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        if checking and evaluate_annotations:  # the names the annotations use
            body = ast.Module(node.body, type_ignores=[])
            exec(compile(body, path, "exec", flags, True), namespace)
        declared = namespace.get(node.name) if isinstance(node, ast.ClassDef) else None
        if hasattr(declared, "__record_fields__"):
            code = compile(ast.Module([node], type_ignores=[]), path, "exec", flags, True)
            exec(code, namespace)
            made[node.name] = namespace[node.name]
    return made


def cannot_assign(name: str) -> AttributeError:
    """The error assigning to a frozen record's field raises: dataclasses' own
    `FrozenInstanceError` (an AttributeError), imported only when it happens."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot assign to field {name!r}")


def cannot_delete(name: str) -> AttributeError:
    """The error deleting a frozen record's field raises, as for a frozen dataclass."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    """A frozen slotted record's pickled state, as dataclasses gives one (pickle's own
    restore would assign, which a frozen record refuses)."""
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, name, value)


@dataclass_transform(field_specifiers=(field,))
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]:
    """Make the class a record: a dataclass with these options (and `eq=True`), built
    from the methods `scripts/write_records.py` generated from its declaration."""

    def build(cls: type[T]) -> type[T]:
        key = f"{cls.__module__}.{cls.__qualname__}"
        names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063 (no inspect)
        package = cls.__module__.partition(".")[0]
        __import__(f"{package}.records_generated")
        generated = sys.modules[f"{package}.records_generated"].RECORDS.get(key)
        if generated is None or generated[:3] != (names, frozen, slots):
            raise TypeError(
                f"{key} changed since its methods were generated: run scripts/write_records.py"
            )
        make_methods = generated[3]
        defaults, factories = [], []
        for name in names:
            declared = cls.__dict__.get(name, MISSING)
            if isinstance(declared, Field):
                if declared.default_factory is not MISSING:
                    defaults.append(FACTORY)
                    factories.append(declared.default_factory)
                    if not slots:
                        delattr(cls, name)
                    continue
                declared = declared.default
                if not slots:
                    setattr(cls, name, declared)
            if declared is not MISSING:
                defaults.append(declared)
        if slots:
            cls = _slotted(cls, names)
        for method, function in make_methods(cls, tuple(defaults), tuple(factories)).items():
            function.__qualname__ = f"{cls.__qualname__}.{method}"
            setattr(cls, method, function)
        cls.__record_fields__ = names  # type: ignore[attr-defined]
        cls.__match_args__ = names  # type: ignore[attr-defined]
        if not frozen:
            cls.__hash__ = None  # type: ignore[assignment]  # as a mutable dataclass's
        elif slots:
            cls.__getstate__ = _getstate  # type: ignore[attr-defined]
            cls.__setstate__ = _setstate  # type: ignore[attr-defined]
        return cls

    return build


def _slotted(cls: type[T], names: tuple[str, ...]) -> type[T]:
    """The class made again with `__slots__` (a class's slots are fixed when it is made),
    without the defaults its body held, as `dataclass(slots=True)` makes it."""
    body = {k: v for k, v in cls.__dict__.items() if k not in names}
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = names
    slotted = type(cls)(cls.__name__, cls.__bases__, body)
    slotted.__qualname__ = cls.__qualname__
    return slotted
