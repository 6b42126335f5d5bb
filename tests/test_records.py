"""Records (`grader.records`): each behaves as the dataclass its declaration makes, and
the generated methods are what `scripts/write_records.py` writes from the declarations.

The model of a record is its own class statement, executed again with `record` and
`field` standing for `dataclasses.dataclass` and `dataclasses.field`: the same fields,
defaults, options and methods, built by dataclasses. Every record of every package is
compared with its model on values hypothesis draws (construction, defaults, equality,
hash, repr, signature, immutability).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import records
from grader.limits import DEFAULT_LIMITS, Limits
from tests.conftest import ROOT, assert_generated_current
from tests.test_cold_imports import CHECK_PATH

sys.path.insert(0, str(ROOT / "scripts"))
from write_records import PACKAGES, DeclarationError, declarations


def _all_records() -> list[type]:
    found = []
    for package in PACKAGES:
        for key in importlib.import_module(f"{package}.records_generated").RECORDS:
            module, _, name = key.rpartition(".")
            found.append(getattr(importlib.import_module(module), name))
    return found


RECORDS = _all_records()


def model_of(cls: type) -> type:
    """The dataclass `cls`'s own declaration makes, in its module's namespace."""
    return records.as_dataclasses(cls.__module__)[cls.__name__]


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.tuples(st.integers()),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
"""Field values of every kind a record holds: hashable or not, equal or not."""


def _outcome(make: Callable[[], Any]) -> Any:
    """What `make()` gives, or the kind and message of what it raised."""
    try:
        return make()
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def _shown(value: Any) -> str:
    """`repr` without object addresses (a default lambda is made once per class)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def _arguments(cls: type, data: st.DataObject) -> dict[str, Any]:
    """Every field without a default, and some of those with one."""
    out = {}
    for name, p in inspect.signature(cls).parameters.items():
        if p.default is inspect.Parameter.empty or data.draw(st.booleans()):
            out[name] = data.draw(VALUES)
    return out


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__name__}")
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_record_behaves_as_the_dataclass_its_declaration_makes(
    cls: type, data: st.DataObject
) -> None:
    model = model_of(cls)
    given_, other = _arguments(cls, data), _arguments(cls, data)
    mine, theirs = _outcome(lambda: cls(**given_)), _outcome(lambda: model(**given_))
    if isinstance(theirs, tuple) and theirs[:1] == ("raised",):  # a __post_init__ refused
        assert mine == theirs
        return
    assert _shown(mine) == _shown(theirs)
    assert (mine == cls(**given_)) == (theirs == model(**given_)) is True
    mine_other, theirs_other = _outcome(lambda: cls(**other)), _outcome(lambda: model(**other))
    assert (mine == mine_other) == (theirs == theirs_other)
    assert (mine != mine_other) == (theirs != theirs_other)
    assert _outcome(lambda: hash(mine)) == _outcome(lambda: hash(theirs))
    for name in records.field_names(cls):
        assert _outcome(lambda n=name: setattr(mine, n, 0)) == _outcome(
            lambda n=name: setattr(theirs, n, 0)
        )
        assert _shown(getattr(mine, name)) == _shown(getattr(theirs, name))
        assert _outcome(lambda n=name: delattr(mine, n)) == _outcome(
            lambda n=name: delattr(theirs, n)
        )


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_a_record_has_its_dataclass_s_signature_fields_and_layout(cls: type) -> None:
    model = model_of(cls)

    def parameters(of: type) -> str:  # `-> None` is dataclasses' own annotation
        return _shown(inspect.signature(of).replace(return_annotation=inspect.Signature.empty))

    assert parameters(cls) == parameters(model)
    assert records.field_names(cls) == tuple(f.name for f in dataclasses.fields(model))
    assert cls.__match_args__ == model.__match_args__
    assert getattr(cls, "__slots__", None) == getattr(model, "__slots__", None)
    assert (cls.__hash__ is None) == (model.__hash__ is None)
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"


def _factory_fields(cls: type) -> list[str]:
    parameters = inspect.signature(cls).parameters
    return [n for n, p in parameters.items() if p.default is records.FACTORY]


def _required(cls: type) -> dict[str, Any]:
    """Values for the fields without a default: None, or the lab's own for a `Lab` (whose
    `__post_init__` checks them, and its artifacts' caps against its `limits`)."""
    from checks import LAB
    from grader.lab import Lab

    parameters = inspect.signature(cls).parameters
    names = [n for n, p in parameters.items() if p.default is inspect.Parameter.empty]
    if cls is Lab:
        return {n: getattr(LAB, n) for n in [*names, "limits"]}
    return dict.fromkeys(names)


@pytest.mark.parametrize(
    "cls", [c for c in RECORDS if _factory_fields(c)], ids=lambda c: f"{c.__module__}.{c.__name__}"
)
def test_a_factory_default_is_made_anew_for_each_record(cls: type) -> None:
    given_ = _required(cls)
    one, two = cls(**given_), cls(**given_)
    for name in set(_factory_fields(cls)) - set(given_):
        assert getattr(one, name) == getattr(two, name)
        assert getattr(one, name) is not getattr(two, name)


def test_the_generated_methods_are_what_the_script_writes_from_the_declarations() -> None:
    assert_generated_current("write_records.py")


def test_a_record_changed_since_its_methods_were_generated_refuses_to_be_built() -> None:
    changed = type("Limits", (), {"__module__": "grader.limits", "__annotations__": {"a": "int"}})
    with pytest.raises(TypeError, match=r"run scripts/write_records\.py"):
        records.record(frozen=True)(changed)


def test_the_generator_refuses_a_field_option_a_record_does_not_support(tmp_path: Path) -> None:
    source = tmp_path / "odd.py"
    source.write_text(
        "@record(frozen=True)\nclass Odd:\n    a: int = field(default=1, repr=False)\n", "utf-8"
    )
    with pytest.raises(DeclarationError, match="repr"):
        declarations(source, "odd")


def test_the_generator_refuses_a_field_without_default_after_one_with(tmp_path: Path) -> None:
    source = tmp_path / "odd.py"
    source.write_text("@record()\nclass Odd:\n    a: int = 1\n    b: int\n", "utf-8")
    with pytest.raises(DeclarationError, match="no default after a default"):
        declarations(source, "odd")


def test_replace_makes_a_changed_copy_through_init() -> None:
    changed = records.replace(DEFAULT_LIMITS, json_depth=3)
    assert changed == Limits(json_depth=3)
    assert DEFAULT_LIMITS.json_depth == 64


def test_replace_refuses_a_name_that_is_no_field() -> None:
    with pytest.raises(TypeError, match="no field 'depth'"):
        records.replace(DEFAULT_LIMITS, depth=3)


def test_a_frozen_record_refuses_assignment_as_a_frozen_dataclass_does() -> None:
    with pytest.raises(
        dataclasses.FrozenInstanceError, match="cannot assign to field 'json_depth'"
    ):
        DEFAULT_LIMITS.json_depth = 3  # type: ignore[misc]


def test_a_frozen_slotted_record_pickles_and_unpickles_equal() -> None:
    from checks.formats.llama_log_model import Figures, TaskTiming

    timing = TaskTiming(3, 10, 25.5, 12, prompt_figures=Figures(2.1, 470.6), prefixed=True)
    assert pickle.loads(pickle.dumps(timing)) == timing


def test_no_class_the_check_path_imports_is_a_dataclass() -> None:
    """Each dataclass costs a check's start about a millisecond (issue 13)."""
    made_by_dataclasses = [
        f"{name}.{cls.__name__}"
        for name in sorted(CHECK_PATH)
        for cls in vars(importlib.import_module(name)).values()
        if isinstance(cls, type) and cls.__module__ == name and dataclasses.is_dataclass(cls)
    ]
    assert made_by_dataclasses == []
