"""A validated value keeps only what its schema declares (`grader.reading.schema_declared`).

The shape a schema gives, the value cut down to it, and, on the official
JSON-Schema-Test-Suite, the rule that makes it safe: a valid value cut down is still
valid, and holds nothing the value did not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from grader.reading.schema_declared import declared, pruned, pruned_all

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"
GROUPS = [
    pytest.param(group, id=f"{path.stem}: {group['description']}")
    for path in sorted(SUITE.glob("*.json"))
    for group in json.loads(path.read_text("utf-8"))
]

TIMINGS = {
    "$id": "urn:test:timings",
    "type": "object",
    "properties": {"prompt_n": {"type": "integer"}, "prompt_ms": {"type": "number"}},
}
CHUNK = {
    "$id": "urn:test:chunk",
    "type": "object",
    "required": ["choices"],
    "properties": {
        "choices": {"type": "array", "items": {"properties": {"index": {"type": "integer"}}}},
        "timings": {"$ref": "urn:test:timings"},
        "usage": {"type": "object"},
    },
}
SET = {TIMINGS["$id"]: TIMINGS, CHUNK["$id"]: CHUNK}


def _shape(schema: object) -> object:
    by_id = {schema["$id"]: schema} if isinstance(schema, dict) and "$id" in schema else {}
    return declared(schema, {**SET, **by_id})


def test_an_object_keeps_only_the_members_its_properties_name() -> None:
    value = {"prompt_n": 5, "padding": ["x"] * 3, "prompt_ms": 1.5}
    assert pruned(value, _shape(TIMINGS)) == {"prompt_n": 5, "prompt_ms": 1.5}


def test_the_kept_members_stay_in_the_documents_order() -> None:
    value = {"prompt_ms": 1.5, "extra": 1, "prompt_n": 5}
    assert list(pruned(value, _shape(TIMINGS))) == ["prompt_ms", "prompt_n"]


def test_a_reference_to_another_schema_of_the_set_is_followed() -> None:
    value = {"choices": [], "timings": {"prompt_n": 1, "extra": True}}
    assert pruned(value, _shape(CHUNK)) == {"choices": [], "timings": {"prompt_n": 1}}


def test_each_item_of_an_array_is_cut_down_by_the_items_schema() -> None:
    value = {"choices": [{"index": 0, "logprobs": None}, {"index": 1}]}
    assert pruned(value, _shape(CHUNK)) == {"choices": [{"index": 0}, {"index": 1}]}


def test_a_free_form_object_is_kept_whole() -> None:
    value = {"choices": [], "usage": {"prompt_tokens": 3, "nested": {"a": 1}}}
    assert pruned(value, _shape(CHUNK)) == value


def test_a_member_only_required_is_declared_and_kept_whole() -> None:
    schema = {"required": ["a"], "properties": {"b": {"type": "integer"}}}
    value = {"a": {"deep": [1, 2]}, "b": 2, "c": 3}
    assert pruned(value, _shape(schema)) == {"a": {"deep": [1, 2]}, "b": 2}


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
        {"properties": {"a": {}}, "additionalProperties": True},
        {"properties": {"a": {}}, "patternProperties": {"^x": {}}},
        {"properties": {"a": {}}, "unevaluatedProperties": False},
        {"properties": {"a": {}}, "minProperties": 2},
        {"anyOf": [{"properties": {"a": {}}}, {"properties": {"c": {}}}]},
        {"properties": {"a": {}}, "const": {"a": 1, "c": 2}},
    ],
    ids=["additional-schema", "additional-true", "pattern", "unevaluated", "min-properties",
         "anyOf", "const"],
)  # fmt: skip
def test_a_schema_that_admits_or_counts_unnamed_members_keeps_the_value_whole(
    schema: dict,
) -> None:
    value = {"a": 1, "c": 2}
    assert pruned(value, _shape(schema)) is value


def test_additional_properties_false_admits_nothing_more_to_keep() -> None:
    schema = {"properties": {"a": {"properties": {"b": {}}}}, "additionalProperties": False}
    assert pruned({"a": {"b": 1, "x": 2}}, _shape(schema)) == {"a": {"b": 1}}


def test_a_schema_that_refers_back_to_itself_keeps_the_value_whole() -> None:
    schema = {"properties": {"name": {}, "child": {"$ref": "#"}}}
    value = {"name": "a", "x": 1, "child": {"name": "b", "x": 2}}
    assert pruned(value, _shape(schema)) == {"name": "a", "child": {"name": "b", "x": 2}}


def test_a_value_of_another_type_than_its_shape_is_kept_as_it_is() -> None:
    assert pruned([1, 2], _shape(TIMINGS)) == [1, 2]
    assert pruned({"index": 0}, [{"index": None}]) == {"index": 0}


def test_a_value_with_nothing_undeclared_is_the_very_same_object() -> None:
    value = {"choices": [{"index": 0}], "timings": {"prompt_n": 1}, "usage": {"x": 1}}
    assert pruned(value, _shape(CHUNK)) is value


def _within(small: object, big: object) -> bool:
    """`small` is `big` with some object members left out, at any depth."""
    if isinstance(big, dict):
        return isinstance(small, dict) and all(
            k in big and _within(v, big[k]) for k, v in small.items()
        )
    if isinstance(big, list):
        return isinstance(small, list) and len(small) == len(big) and all(
            _within(a, b) for a, b in zip(small, big, strict=True)
        )  # fmt: skip
    return small is big


def _padded(value: object) -> object:
    """`value` with one more member in every object, at any depth."""
    if isinstance(value, dict):
        return {**{k: _padded(v) for k, v in value.items()}, "zz_padding": [{"x": 1}]}
    if isinstance(value, list):
        return [_padded(v) for v in value]
    return value


def _valid_values(group: dict) -> list[object]:
    """The group's valid instances, and each padded one the schema still admits."""
    validator = Draft202012Validator(group["schema"])
    found = [case["data"] for case in group["tests"] if validator.is_valid(case["data"])]
    return found + [_padded(v) for v in found if validator.is_valid(_padded(v))]


@pytest.mark.parametrize("group", GROUPS)
def test_a_valid_value_cut_down_is_still_valid_and_holds_nothing_new(group: dict) -> None:
    validator = Draft202012Validator(group["schema"])
    shape = _shape(group["schema"])
    for value in _valid_values(group):
        kept = pruned(value, shape)
        assert validator.is_valid(kept), (value, kept)
        assert _within(kept, value)


def test_the_suite_cuts_down_many_of_its_valid_values() -> None:
    """The comparison above is not empty: many valid values lose a member."""
    cut = 0
    for param in GROUPS:
        group = param.values[0]
        shape = _shape(group["schema"])
        cut += sum(pruned(v, shape) != v for v in _valid_values(group))
    assert cut >= 30


@pytest.mark.parametrize("group", GROUPS)
def test_many_values_cut_down_together_are_each_cut_down_as_alone(group: dict) -> None:
    shape = _shape(group["schema"])
    values = _valid_values(group)
    assert pruned_all(values, shape) == [pruned(v, shape) for v in values]


_JSON = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["choices", "index", "timings", "prompt_n", "x"]), inner)
    ),
    max_leaves=10,
)


@settings(deadline=None)
@given(st.lists(_JSON, max_size=5))
def test_values_cut_down_together_are_those_cut_down_one_by_one(values: list[object]) -> None:
    shape = _shape(CHUNK)
    together = pruned_all(values, shape)
    assert together == [pruned(v, shape) for v in values]
    if all(pruned(v, shape) is v for v in values):
        assert together is values


def test_values_with_nothing_undeclared_are_the_very_same_list() -> None:
    values = [{"choices": [{"index": 0}]}, {"choices": [], "timings": {"prompt_n": 1}}]
    assert pruned_all(values, _shape(CHUNK)) is values


def test_one_undeclared_member_deep_in_one_value_cuts_that_value_down() -> None:
    values = [{"choices": [{"index": 0}]}, {"choices": [{"index": 1, "x": 2}]}]
    assert pruned_all(values, _shape(CHUNK)) == [
        {"choices": [{"index": 0}]},
        {"choices": [{"index": 1}]},
    ]
