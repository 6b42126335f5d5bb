"""The JSON copies of the shipped TOML files (`grader.tomlfile`): current, and never
trusted when they are not."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.tomlfile import CACHE_SUFFIX, TOMLDecodeError, cache_text, load_cached, loads
from tests.conftest import ROOT, assert_generated_current

sys.path.insert(0, str(ROOT / "scripts"))
from write_toml_caches import shape_of, shipped_toml


def test_every_shipped_toml_file_has_a_current_json_copy() -> None:
    assert_generated_current("write_toml_caches.py")


@pytest.mark.parametrize("path", shipped_toml(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_json_copy_holds_what_tomllib_reads_in_its_readers_shape(path: Path) -> None:
    text = path.read_text("utf-8")
    copy = json.loads(path.with_name(path.name + CACHE_SUFFIX).read_text("utf-8"))
    shape = shape_of(path)
    assert copy["data"] == (loads(text) if shape is None else shape(loads(text)))


def test_a_catalogs_copy_holds_its_dotted_ids() -> None:
    copy = json.loads((ROOT / "grader" / "messages" / ("en.toml" + CACHE_SUFFIX)).read_text())
    assert copy["shape"] == "grader.i18n.flatten"
    assert all(isinstance(v, str) for v in copy["data"].values())


def _dotted(table: dict[str, Any]) -> dict[str, Any]:
    return {f"{k}.{kk}": vv for k, v in table.items() for kk, vv in v.items()}


def test_a_copy_in_the_callers_shape_is_read_in_it(tmp_path: Path) -> None:
    toml = tmp_path / "m.toml"
    text = '[a]\nb = "c"\n'
    toml.write_text(text, "utf-8")
    copy = json.loads(cache_text(text, _dotted))
    assert copy["data"] == {"a.b": "c"}
    copy["data"] = {"a.b": "from the copy"}
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text(json.dumps(copy), "utf-8")
    assert load_cached(text, str(toml), _dotted) == {"a.b": "from the copy"}


def test_a_copy_in_another_shape_is_not_used(tmp_path: Path) -> None:
    toml = tmp_path / "m.toml"
    text = '[a]\nb = "c"\n'
    toml.write_text(text, "utf-8")
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text(cache_text(text), "utf-8")
    assert load_cached(text, str(toml), _dotted) == {"a.b": "c"}
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text(cache_text(text, _dotted), "utf-8")
    assert load_cached(text, str(toml)) == {"a": {"b": "c"}}


def test_a_copy_made_from_another_text_is_not_used(tmp_path: Path) -> None:
    toml = tmp_path / "m.toml"
    toml.write_text('a = "new"\n', "utf-8")
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text(cache_text('a = "old"\n'), "utf-8")
    assert load_cached(toml.read_text("utf-8"), str(toml)) == {"a": "new"}


def test_a_current_copy_is_read_instead_of_the_toml(tmp_path: Path) -> None:
    toml = tmp_path / "m.toml"
    text = 'a = "toml"\n'
    toml.write_text(text, "utf-8")
    copy = json.loads(cache_text(text))
    copy["data"] = {"a": "from the copy"}
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text(json.dumps(copy), "utf-8")
    assert load_cached(text, str(toml)) == {"a": "from the copy"}


def test_a_missing_or_broken_copy_falls_back_to_the_toml(tmp_path: Path) -> None:
    toml = tmp_path / "m.toml"
    toml.write_text("a = 1\n", "utf-8")
    assert load_cached("a = 1\n", str(toml)) == {"a": 1}
    (tmp_path / ("m.toml" + CACHE_SUFFIX)).write_text("{not json", "utf-8")
    assert load_cached("a = 1\n", str(toml)) == {"a": 1}


def test_text_that_is_not_toml_raises_the_modules_own_error() -> None:
    with pytest.raises(TOMLDecodeError):
        loads("a = = 1")
