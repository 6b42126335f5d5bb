"""The indented JSON writer gives exactly the bytes `json.dumps(indent=2)` gives."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.reading.jsontext import dumps_indented

_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(_values)
def test_the_text_is_json_dumps_with_an_indent_of_two(value: object) -> None:
    want = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    assert dumps_indented(value, allow_nan=False) == want


@given(st.dictionaries(st.integers() | st.floats() | st.booleans() | st.none(), st.integers()))
def test_keys_that_are_not_strings_are_written_as_json_dumps_writes_them(value: dict) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_tuples_are_arrays_and_empty_containers_stay_on_their_line() -> None:
    value = {"a": (1, [], {}), "b": []}
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_a_number_json_has_no_name_for_is_refused_unless_allowed(number: float) -> None:
    with pytest.raises(ValueError):
        dumps_indented([number], allow_nan=False)
    assert dumps_indented([number]) == json.dumps([number], indent=2)


def test_a_value_json_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"a": object()})
