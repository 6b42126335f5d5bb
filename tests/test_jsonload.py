"""Strict JSON: each oddity is refused with its own message id and its line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.reading.jsonload import DECODE_BATCH, JsonError, PositionMap, StrictDecoder, _depth

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


# Texts made to hold what the strict decoder refuses (duplicates, long or huge numbers,
# NaN, lone surrogates, depth), for the many-texts reading below.

_NUMBERS = st.sampled_from(
    [
        "0",
        "-0",
        "7",
        "-12",
        "1.5",
        "-0.25",
        "1e5",
        "2E-3",
        "1e99",
        "9.99e307",
        "1e308",
        "1.8e308",
        "1e309",
        "-1e400",
        "1e-400",
        "1e099",
        "1E+099",
        "5e0400",
        "01",
        "1.",
        "-",
        ".5",
        "1e",
        "NaN",
        "Infinity",
        "-Infinity",
        "nan",
    ]
) | st.builds(
    lambda sign, head, tail, exp: sign + head + tail + exp,
    st.sampled_from(["", "-"]),
    st.integers(1, 130).map(lambda n: "1" + "2" * (n - 1)),
    st.sampled_from(["", ".5", ".", ".0001"]) | st.integers(1, 130).map(lambda n: "." + "3" * n),
    st.sampled_from(["", "e1", "E+2", "e-15", "e300", "e308", "e-999", "E0308"]),
)
_STRINGS = st.sampled_from(
    [
        '""',
        '"a"',
        '"k:v"',
        '"http://x"',
        '"\\u003a"',
        '"\\ud800"',
        '"\\udc00x"',
        '"\\ud83d\\ude00"',
        '"\\\\ud800"',
        '"a\\"b"',
        '"12345678901234567890123456789012345678901"',
        '"e0000"',
        '"NaN"',
        '"\\x"',
        '"tab\there"',
        '"\ud800"',
        '"b1-0c1e570"',
        '"at 1e999"',
        '"1E+400"',
    ]
)
_KEYS = st.sampled_from(['"a"', '"b"', '"a:b"', '""', '"\\u0061"', "'a'", "a"])
_SPACES = st.sampled_from(["", " ", "\n", "\r\n", "\t", "\u00a0", "\x0b"])


def _jsonish(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(_KEYS, _SPACES, children).map(lambda p: f"{p[0]}{p[1]}:{p[2]}")
    return (
        st.lists(children, max_size=4).map(lambda items: "[" + ",".join(items) + "]")
        | st.lists(pair, max_size=4).map(lambda pairs: "{" + ",".join(pairs) + "}")
        | st.tuples(st.integers(1, 12), children).map(lambda d: "[" * d[0] + d[1] + "]" * d[0])
    )


_TEXTS = st.tuples(
    _SPACES,
    st.recursive(
        _NUMBERS | _STRINGS | st.sampled_from(["true", "false", "null", "True", ""]),
        _jsonish,
        max_leaves=12,
    ),
    _SPACES,
    st.sampled_from(["", "", "", ",", "}", " x", "[", "\ufeff"]),
).map("".join)

_VALID_TEXTS = st.recursive(
    st.sampled_from(
        [
            *("0", "-12", "1.5", "2E-3", "9.99e307", "1e99", "1e308", "1e309", "1e-400", "1" * 45),
            *('"a"', '"k:v"', '"\\u003a"', '"b1-0c1e570"', '"\\ud800"', '"\\ud83d\\ude00"'),
            *("true", "null", "NaN"),
        ]
    ),
    lambda children: (
        st.lists(children, max_size=4).map(lambda items: "[" + ",".join(items) + "]")
        | st.lists(
            st.tuples(st.sampled_from(['"a"', '"b"', '"a:b"', '"\\u0061"']), children),
            max_size=4,
        ).map(lambda pairs: "{" + ",".join(f"{k}: {v}" for k, v in pairs) + "}")
        | st.tuples(st.integers(1, 12), children).map(lambda d: "[" * d[0] + d[1] + "]" * d[0])
    ),
    max_leaves=16,
)
"""Valid JSON but for what the decoder refuses: duplicates, long or huge numbers, NaN,
lone surrogates, depth; so that most texts get as far as the decoder's own tests."""

_DECODERS = [
    StrictDecoder(max_digits=max_digits, max_depth=max_depth)
    for max_digits, max_depth in [(100, 64), (10, 4), (3, 2), (0, 1), (40, 8)]
]


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"url": "http://x", "url": 2}',
        '{"a": {"b": 1, "b": 1}}',
        '[{"k": 1}, {"k": 2, "k": 3}]',
        '{"a": 1, "\\u0061": 2}',
    ],
)
def test_a_duplicate_key_is_refused_whether_or_not_a_string_holds_a_colon(text: str) -> None:
    assert problem(text).message_id == "json.duplicate_key"


@pytest.mark.parametrize(
    ("text", "message_id"),
    [
        ("[" + "1" * 101 + "]", "json.number_too_long"),
        ("[" + "1" * 60 + "." + "1" * 60 + "]", "json.number_too_long"),
        ("[1" + "0" * 38 + "e99]", None),
        ("[1e308]", None),
        ("[1e309]", "json.number_too_large"),
        ("[1e0309]", "json.number_too_large"),
        ('["' + "1" * 200 + '"]', None),
    ],
)
def test_numbers_near_the_limits_are_refused_only_past_them(text: str, message_id: str) -> None:
    if message_id is None:
        assert decoder.decode(text, "f.json") == json.loads(text)
    else:
        assert problem(text).message_id == message_id


def test_a_string_of_digits_as_long_as_a_refused_number_is_accepted() -> None:
    text = '["' + "9" * 39 + '", "' + "9" * 200 + '"]'
    assert decoder.decode(text, "f.json") == ["9" * 39, "9" * 200]


def test_a_document_with_a_hex_build_id_decodes() -> None:
    text = '{"build_info": "b1-0c1e570", "n_ctx": 4096}'
    assert decoder.decode(text, "f.json") == {"build_info": "b1-0c1e570", "n_ctx": 4096}


def test_a_document_with_a_lone_surrogate_is_refused() -> None:
    assert problem('{"s": "\\ud800"}').message_id == "json.lone_surrogate"


# Many texts at once (`StrictDecoder.decode_all`, a stream's events): the values `decode`
# gives each of them, or None whenever `decode` refuses any (then each is decoded by
# `decode`, which says what and where).


def _each(strict: StrictDecoder, texts: list[str]) -> list[object] | None:
    try:
        return [strict.decode(text, "f.json") for text in texts]
    except JsonError:
        return None


@settings(deadline=None)
@given(st.lists(_TEXTS | _VALID_TEXTS, max_size=4), st.sampled_from(_DECODERS))
def test_many_texts_decode_together_as_each_alone_or_not_at_all(
    texts: list[str], strict: StrictDecoder
) -> None:
    together = strict.decode_all(texts)
    if together is not None:
        assert repr(together) == repr(_each(strict, texts))


@settings(deadline=None)
@given(st.lists(_VALID_TEXTS, max_size=4), st.sampled_from(_DECODERS))
def test_many_texts_are_refused_together_when_any_is_refused_alone(
    texts: list[str], strict: StrictDecoder
) -> None:
    if _each(strict, texts) is None:
        assert strict.decode_all(texts) is None


@pytest.mark.parametrize(
    "texts",
    [
        ['{"a": 1}', '{"a": 1, "a": 2}'],
        ['{"url": "http://x"}', '{"k": 1, "k": 2}'],
        ['{"n": 1e999}'],
        ["[-1e400]"],
        ["[" + "1" * 101 + "]"],
        ['{"s": "\\ud800"}', '{"s": "\ud800"}'],
        ["[" * 65 + "]" * 65],
        ["NaN"],
        [""],
        ["{}x"],
        ["1", "2,3"],
    ],
)
def test_one_text_that_decode_refuses_is_left_to_it(
    texts: list[str],
) -> None:
    assert decoder.decode_all(texts) is None


def test_texts_over_several_batches_decode_together_as_each_alone() -> None:
    texts = [f'{{"i": {i}, "t": "{i}:00"}}' for i in range(2 * DECODE_BATCH + 5)]
    assert decoder.decode_all(texts) == [decoder.decode(text, "f.json") for text in texts]


def test_a_text_refused_in_a_later_batch_refuses_them_all() -> None:
    texts = ['{"a": 1}'] * (DECODE_BATCH + 3) + ['{"a": 1, "a": 2}']
    assert decoder.decode_all(texts) is None


def test_each_batch_is_accepted_before_the_next_is_decoded() -> None:
    """`accept` sees each batch's values in order; once it refuses one, no later text
    is decoded (a hostile file costs at most a batch beyond the exact way)."""
    seen: list[list[object]] = []
    texts = [f"[{i}]" for i in range(3 * DECODE_BATCH)]
    assert decoder.decode_all(texts, lambda values: seen.append(values) or True) is not None
    assert [len(values) for values in seen] == [DECODE_BATCH] * 3
    assert seen[1][0] == [DECODE_BATCH]
    seen.clear()
    assert decoder.decode_all(texts, lambda values: seen.append(values) and False) is None
    assert len(seen) == 1


def test_texts_of_plain_values_decode_together() -> None:
    texts = ['{"url": "http://x", "n": 1.5}', "[1, 2]", '"b1-0c1e570"', '{"e": "1e570"}']
    assert decoder.decode_all(texts) == [
        {"url": "http://x", "n": 1.5},
        [1, 2],
        "b1-0c1e570",
        {"e": "1e570"},
    ]


@pytest.mark.parametrize(
    ("value", "depth"),
    [(1, 0), ([], 1), ({"a": [1, {"b": 2, "c": [-1.5]}]}, 4), ([[[]]], 3)],
)
def test_depth_counts_the_nested_containers(value: object, depth: int) -> None:
    assert _depth(value) == depth


def test_a_document_nested_deeper_than_the_limit_is_refused() -> None:
    assert problem("[" * 65 + "]" * 65).message_id == "json.too_deep"
