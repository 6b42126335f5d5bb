"""Strict JSON: each oddity is refused with its own message id and its line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.jsonload import JsonError, PositionMap, StrictDecoder

decoder = StrictDecoder(max_digits=100, max_depth=64)


def problem(text: str):
    with pytest.raises(JsonError) as info:
        decoder.decode(text, "f.json")
    return info.value.problem


@pytest.mark.parametrize(
    ("text", "message_id", "line"),
    [
        ("", "json.empty", 1),
        ("   \n\t", "json.empty", 1),
        ('{"a": 1', "json.truncated", 1),
        ('{"a": 1} x', "json.trailing_data", 1),
        ('{\n"a": NaN}', "json.not_a_number", 2),
        ('{\n"a":\n Infinity}', "json.not_a_number", 3),
        ("[-Infinity]", "json.not_a_number", 1),
        ('{"a": 1,\n "a": 2}', "json.duplicate_key", 2),
        ('{"a": 1e400}', "json.number_too_large", 1),
        ('{"a": -1e400}', "json.number_too_large", 1),
        ('{"a": ' + "9" * 100_000 + "}", "json.number_too_long", 1),
        ("[" * 10_000 + "]" * 10_000, "json.too_deep", 1),
        ('{"a": 01}', "json.leading_zero", 1),
    ],
)
def test_refused_json_gets_its_message_and_line(text: str, message_id: str, line: int) -> None:
    found = problem(text)
    assert found.message_id == message_id
    assert found.location is not None and found.location.line == line


def test_duplicate_key_problem_points_at_the_key() -> None:
    found = problem('{"runs": [{"t": 1, "t": 2}]}')
    assert found.location is not None and found.location.pointer == "/runs/0/t"


def test_nesting_at_the_limit_is_accepted() -> None:
    assert decoder.decode("[" * 64 + "]" * 64, "f.json") is not None


def test_ordinary_json_decodes_to_python_values() -> None:
    assert decoder.decode('{"a": [1, 2.5, true, null, "x"]}', "f.json") == {
        "a": [1, 2.5, True, None, "x"]
    }


def test_position_map_finds_the_line_of_a_pointer() -> None:
    text = '{\n  "runs": [\n    {"ttft_ms": 1},\n    {"ttft_ms": 2}\n  ]\n}'
    positions = PositionMap(text)
    assert positions.line_of("/runs/1/ttft_ms") == 4
    assert positions.line_of("/runs/1/missing") == 4  # nearest enclosing value


@given(st.text(max_size=200))
def test_any_text_decodes_or_raises_json_error(text: str) -> None:
    try:
        decoder.decode(text, "f.json")
    except JsonError as error:
        assert error.problem.message_id.startswith("json.")


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=5),
        lambda kids: (
            st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3)
        ),
        max_leaves=10,
    )
)
def test_every_finite_json_value_round_trips(value: object) -> None:
    import json

    assert decoder.decode(json.dumps(value), "f.json") == value


def test_a_lone_surrogate_escape_is_refused_with_its_line() -> None:
    found = problem('{\n"status": "\\ud800"}')
    assert found.message_id == "json.lone_surrogate"
    assert found.location is not None and found.location.line == 2


def test_a_surrogate_pair_escape_is_a_character_and_accepted() -> None:
    assert decoder.decode('{"s": "\\ud83d\\ude00"}', "f.json") == {"s": "😀"}


def test_an_escaped_backslash_before_u_d800_is_plain_text() -> None:
    assert decoder.decode('{"s": "\\\\ud800"}', "f.json") == {"s": "\\ud800"}
