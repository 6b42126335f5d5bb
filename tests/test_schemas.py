"""The schemas: valid 2020-12, the single source of each format, strict where the lab is."""

from __future__ import annotations

import copy
import json
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from checks import SCHEMAS
from checks.models import SCHEMA_OF
from grader.engine.result import result_schema
from grader.reading.schema import RESULT_SCHEMAS
from tests.conftest import CORRECT, ROOT


@pytest.mark.parametrize(
    ("schemas", "name"),
    [(SCHEMAS, n) for n in SCHEMAS.names()] + [(RESULT_SCHEMAS, n) for n in RESULT_SCHEMAS.names()],
)
def test_schema_is_valid_draft_2020_12(schemas, name: str) -> None:
    Draft202012Validator.check_schema(schemas.load(name))


def test_result_schema_file_is_generated_from_the_result_model() -> None:
    on_disk = json.loads((ROOT / "grader" / "schemas" / "result.schema.json").read_text("utf-8"))
    assert on_disk == result_schema(), "run: python scripts/write_result_schema.py"


@pytest.mark.parametrize("name", sorted(SCHEMA_OF))
def test_typed_model_has_the_schemas_keys(name: str) -> None:
    model = SCHEMA_OF[name]
    schema = SCHEMAS.load(name)
    assert set(typing.get_type_hints(model)) == set(schema["properties"])
    assert set(model.__required_keys__) == set(schema["required"])  # type: ignore[attr-defined]


def _ttft() -> dict:
    return json.loads((CORRECT / "ttft.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("change", "message_id"),
    [
        (lambda d: d["runs"][0].__setitem__("tokens", True), "schema.type"),
        (lambda d: d["runs"][0].__setitem__("tokens", 64.5), "schema.type"),
        (lambda d: d["runs"][0].__setitem__("tokens", "64"), "schema.type"),
        (lambda d: d["runs"][0].__setitem__("ttft_ms", -1), "schema.minimum"),
        (lambda d: d.__setitem__("ttft_p50", None), "schema.type"),
        (lambda d: d.pop("total_p50"), "schema.required"),
        (lambda d: d.__setitem__("runs", []), "schema.minItems"),
    ],
)
def test_ttft_schema_rejects_what_the_lab_rules_out(change, message_id: str) -> None:
    data = _ttft()
    change(data)
    assert [p.message_id for p in SCHEMAS.validate("ttft", data)][:1] == [message_id]


def test_bool_is_not_accepted_as_a_number() -> None:
    data = _ttft()
    data["ttft_p50"] = True
    problems = SCHEMAS.validate("ttft", data)
    assert problems and problems[0].params["found_type"] == "boolean"


def test_schema_problem_names_the_readable_path() -> None:
    data = _ttft()
    data["runs"][2]["tokens"] = "64"
    problem = SCHEMAS.validate("ttft", data)[0]
    assert problem.params["path"] == "runs[2].tokens"
    assert problem.location is not None and problem.location.pointer == "/runs/2/tokens"


def test_props_accepts_keys_a_newer_server_adds() -> None:
    props = json.loads((CORRECT / "props.json").read_text("utf-8"))
    newer = copy.deepcopy(props) | {"some_future_key": {"x": 1}}
    assert SCHEMAS.validate("props", newer) == []


def test_sse_chunk_accepts_reasoning_content_and_usage_chunks() -> None:
    assert (
        SCHEMAS.validate(
            "sse_chunk", {"choices": [{"index": 0, "delta": {"reasoning_content": "hm"}}]}
        )
        == []
    )
    assert (
        SCHEMAS.validate(
            "sse_chunk", {"choices": [], "usage": {"prompt_tokens": 3}, "timings": {"prompt_n": 3}}
        )
        == []
    )


_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5000)
    | st.floats(-1, 1e4, allow_nan=False)
    | st.sampled_from(["", "ok", "64", "chat.completion.chunk"]),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "runs",
                    "ttft_ms",
                    "total_ms",
                    "tokens",
                    "prompt_n",
                    "choices",
                    "delta",
                    "content",
                    "status",
                    "first",
                    "second",
                    "changed_prefix",
                    "timings",
                    "object",
                    "docs",
                ]
            ),
            kids,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(SCHEMAS.names()), value=_values)
def test_fast_path_never_accepts_what_jsonschema_rejects(name: str, value: object) -> None:
    if SCHEMAS.conforms(name, value):
        assert list(SCHEMAS.validator(name).iter_errors(value)) == []


@pytest.mark.parametrize("folder", ["correct", "no_close_on_cancel"])
def test_fast_path_accepts_the_real_captures(folder: str) -> None:
    for name, file in (("ttft", "ttft.json"), ("cache", "cache.json"), ("props", "props.json")):
        value = json.loads((ROOT / "sample_submissions" / folder / file).read_text("utf-8"))
        assert SCHEMAS.conforms(name, value)


def test_result_schema_version_has_a_changelog_entry() -> None:
    from grader.engine.result import SCHEMA_VERSION

    changelog = (ROOT / "docs" / "result-schema-changelog.md").read_text("utf-8")
    assert f"## {SCHEMA_VERSION} " in changelog


def test_errors_after_the_best_one_are_in_document_order_indexes_numerically() -> None:
    data = _ttft()
    data["runs"] = [dict(data["runs"][0]) for _ in range(12)]
    for index in (10, 2, 11):
        data["runs"][index]["tokens"] = "many"
    problems = SCHEMAS.validate("ttft", data)
    pointers = [p.location.pointer for p in problems if p.location]
    assert pointers == ["/runs/2/tokens", "/runs/10/tokens", "/runs/11/tokens"]


def test_of_equally_relevant_errors_the_first_in_the_file_comes_first() -> None:
    """jsonschema's best_match breaks ties by the path, so it would name the last one."""
    data = _ttft()
    for run in data["runs"]:
        run["ttft_ms"] = "x"
    problems = SCHEMAS.validate("ttft", data)
    assert [p.location.pointer for p in problems if p.location] == [
        f"/runs/{i}/ttft_ms" for i in range(len(data["runs"]))
    ]


def test_the_first_error_is_jsonschemas_best_match() -> None:
    from jsonschema.exceptions import best_match

    data = _ttft()
    data.pop("total_p50")
    data["runs"][0]["tokens"] = "many"
    data["ttft_p50"] = "fast"
    problems = SCHEMAS.validate("ttft", data)
    best = best_match(SCHEMAS.validator("ttft").iter_errors(data))
    assert problems[0].message_id == f"schema.{best.validator}"
    assert problems[0].location.pointer == "".join(f"/{p}" for p in best.absolute_path)
    rest = [p.location.pointer for p in problems[1:]]
    order = {"": 0, "/runs/0/tokens": 1, "/ttft_p50": 2}  # the file's keys: runs, ttft_p50
    assert rest == sorted(rest, key=lambda p: order[p or ""])
