"""The lab's generated validators (`schemas/validators.py`, `grader.schema_gen`): current,
used, and never trusted when a schema file is not the one they were made from."""

from __future__ import annotations

import shutil
from pathlib import Path

import schemas.validators as generated
from checks import SCHEMAS
from grader.schema import SchemaSet
from tests.conftest import assert_generated_current


def test_the_generated_module_is_what_the_schemas_give_now() -> None:
    assert_generated_current("write_validators.py")


def test_the_lab_validates_with_the_generated_functions() -> None:
    assert set(generated.VALIDATORS) == set(SCHEMAS.names())
    for name in SCHEMAS.names():
        assert SCHEMAS.fast(name) is generated.VALIDATORS[name], name


def test_an_edited_schema_is_validated_by_the_closures(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    shutil.copytree(SCHEMAS.folder, folder)
    path = folder / "ttft.schema.json"
    path.write_text(path.read_text("utf-8") + "\n", "utf-8")  # the same schema, other bytes
    edited = SchemaSet(str(folder), generated="schemas.validators")
    assert edited.generated_tests() == {}
    assert edited.fast("ttft") is not generated.VALIDATORS["ttft"]


def test_a_missing_generated_module_is_validated_by_the_closures() -> None:
    schemas = SchemaSet(SCHEMAS.folder, generated="schemas.no_such_module")
    assert schemas.generated_tests() == {}
    assert schemas.refusal("ttft") is None
