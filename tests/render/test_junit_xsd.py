"""`--format junit` against the strict schema CI servers check it with, and
`--format junit-gitlab` as GitLab's test report reads it.

`tests/data/xsd/junit-10.xsd` is the Jenkins xunit plugin's schema, copied unchanged
(its README says from where). lxml validates with libxml2's XML Schema implementation.
GitLab's JUnit reader takes a test case's `name`, `classname`, `file` and `time`
(its documentation's "Unit test reports"): `file` names the file a check judged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.render import RenderOptions
from grader.render.junit import render
from grader.render.junit_gitlab import render as render_gitlab
from tests.conftest import EXPECTED, ROOT, graded

SCHEMA = etree.XMLSchema(etree.parse(str(ROOT / "tests" / "data" / "xsd" / "junit-10.xsd")))
OPTIONS = RenderOptions(catalog_for(LAB, "en"))


def errors_of(text: str) -> list[str]:
    document = etree.fromstring(text.encode("utf-8"))
    return [] if SCHEMA.validate(document) else [str(e) for e in SCHEMA.error_log]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_samples_junit_is_valid_against_junit_10_xsd(name: str) -> None:
    assert errors_of(render(graded(name), OPTIONS)) == []


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
def test_junit_in_every_language_is_valid_against_junit_10_xsd(lang: str) -> None:
    options = RenderOptions(catalog_for(LAB, lang))
    assert errors_of(render(graded("no_close_on_cancel"), options)) == []


def test_a_not_gradable_junit_is_valid_against_junit_10_xsd(capsys, tmp_path: Path) -> None:
    main(["check", str(tmp_path / "nope"), "--format", "junit"])
    assert errors_of(capsys.readouterr().out) == []


def test_the_schema_refuses_what_the_old_report_had() -> None:
    """The copy is the strict schema: properties in a test case fail it."""
    text = render(graded("correct"), OPTIONS).replace(
        '<testcase classname="first-token.health" name="health.schema" time="0" />',
        '<testcase classname="first-token.health" name="health.schema" time="0">'
        '<properties><property name="points" value="1" /></properties></testcase>',
    )
    assert errors_of(text) != []


def test_gitlab_gets_the_file_each_check_judged_and_a_time() -> None:
    root = etree.fromstring(render_gitlab(graded("no_close_on_cancel"), OPTIONS).encode())
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["cancel.slot_freed"].get("file") == "cancel.json"
    assert cases["health.schema"].get("file") == "health.json"
    assert {c.get("time") for c in cases.values()} == {"0"}


def test_gitlabs_report_differs_from_junit_by_the_file_attribute_alone() -> None:
    result = graded("cache_on_in_prefill")
    gitlab = etree.fromstring(render_gitlab(result, OPTIONS).encode())
    for case in gitlab.iter("testcase"):
        case.attrib.pop("file", None)
    assert etree.tostring(gitlab) == etree.tostring(
        etree.fromstring(render(result, OPTIONS).encode())
    )
