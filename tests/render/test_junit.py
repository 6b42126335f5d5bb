"""The JUnit XML renderer, read back by junitparser and by ElementTree.

junitparser stands for the CI consumers (it reads suites, cases, results and properties
as they do); ElementTree checks the raw document: attributes, properties and text.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Properties, Skipped, TestCase

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.engine.result import Result
from grader.render import RenderOptions
from grader.render.junit import render, xml_text
from tests.conftest import EXPECTED, graded

OPTIONS = RenderOptions(catalog_for(LAB, "en"))


def parsed(result: Result) -> JUnitXml:
    return JUnitXml.fromstring(render(result, OPTIONS).encode("utf-8"))


def root_of(result: Result) -> ET.Element:
    return ET.fromstring(render(result, OPTIONS).encode("utf-8"))


def case_properties(case: TestCase) -> dict[str, str]:
    properties = case.child(Properties)
    return {p.name: p.value for p in properties} if properties is not None else {}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_junitparser_counts_match_the_result(name: str) -> None:
    result = graded(name)
    suites = list(parsed(result))
    assert [s.name for s in suites] == ["first-token"]
    suite = suites[0]
    cases = list(suite)
    kinds = [type(r) for case in cases for r in case.result]
    assert len(cases) == suite.tests == len(result.checks)
    assert kinds.count(Failure) == suite.failures == result.summary.failed
    assert kinds.count(Error) == suite.errors == result.summary.error
    assert kinds.count(Skipped) == suite.skipped == result.summary.skipped


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_elementtree_reads_one_testcase_per_check(name: str) -> None:
    result = graded(name)
    root = root_of(result)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [c.id for c in result.checks]
    assert root.get("tests") == suite.get("tests") == str(len(result.checks))


def test_classname_is_lab_and_artifact() -> None:
    cases = {c.name: c for c in next(iter(parsed(graded("correct"))))}
    assert cases["prefill.cache_off"].classname == "first-token.prefill"
    assert cases["sse_py.static"].classname == "first-token.sse_py"


def test_every_checks_points_and_max_points_are_suite_properties() -> None:
    result = graded("no_close_on_cancel")
    properties = {p.name: p.value for p in next(iter(parsed(result))).properties()}
    for check in result.checks:
        assert properties[f"points:{check.id}"] == f"{check.points:g}"
        assert properties[f"max_points:{check.id}"] == f"{check.max_points:g}"


def test_no_testcase_carries_properties_which_junit_10_xsd_refuses() -> None:
    assert all(case_properties(c) == {} for c in next(iter(parsed(graded("correct")))))


def test_suite_has_score_and_max_score_properties() -> None:
    suite = next(iter(parsed(graded("no_close_on_cancel"))))
    properties = {p.name: p.value for p in suite.properties()}
    result = graded("no_close_on_cancel")
    assert (properties["score"], properties["max_score"]) == (
        f"{result.score:g}",
        f"{result.max_score:g}",
    )
    assert properties["gradable"] == "true"


def test_failure_carries_message_attribute_and_full_feedback() -> None:
    cases = {c.name: c for c in next(iter(parsed(graded("cache_on_in_prefill"))))}
    (failure,) = cases["prefill.cache_off"].result
    assert isinstance(failure, Failure)
    assert failure.message.startswith("For 0 docs prompt_n is 13")
    assert "prefill.json:4 (/0/prompt_n)" in failure.text
    assert "expected: 34   found: 13" in failure.text
    assert "what to do: " in failure.text and "Common mistake 2" in failure.text


def test_skipped_check_is_skipped_with_its_reason() -> None:
    cases = {c.name: c for c in next(iter(parsed(graded("derived/ttft_tokens_as_text"))))}
    (skipped,) = cases["ttft.medians"].result
    assert isinstance(skipped, Skipped) and "needs ttft.json" in skipped.message


def test_errored_check_is_an_error_element() -> None:
    result = graded("correct")
    broken = dataclasses.replace(result.checks[3], status="error", points=0.0, message="boom")
    summary = dataclasses.replace(result.summary, passed=result.summary.passed - 1, error=1)
    doc = parsed(
        dataclasses.replace(
            result, checks=[*result.checks[:3], broken, *result.checks[4:]], summary=summary
        )
    )
    suite = next(iter(doc))
    (error,) = list(suite)[3].result
    assert isinstance(error, Error) and error.message == "boom"
    assert (suite.errors, suite.failures) == (1, 0)


def test_passed_check_has_no_result_element() -> None:
    assert all(case.is_passed for case in next(iter(parsed(graded("correct")))))


def test_not_gradable_is_one_testcase_in_error(capsys, tmp_path: Path) -> None:
    code = main(["check", str(tmp_path / "nope"), "--format", "junit"])
    suite = next(iter(JUnitXml.fromstring(capsys.readouterr().out.encode("utf-8"))))
    (case,) = list(suite)
    (error,) = case.result
    assert code == 2
    assert (case.name, suite.errors, suite.tests) == ("not_gradable", 1, 1)
    assert "There is no folder" in error.message


def test_output_is_deterministic_without_timestamp_or_hostname() -> None:
    result = graded("derived/sse_no_done")
    first, second = render(result, OPTIONS), render(result, OPTIONS)
    assert first == second
    attributes = {a for element in root_of(result).iter() for a in element.attrib}
    assert attributes.isdisjoint({"timestamp", "hostname"})


def test_every_testcase_has_a_time_of_0_for_readers_that_want_one() -> None:
    cases = root_of(graded("correct")).iter("testcase")
    assert {c.get("time") for c in cases} == {"0"}


def test_characters_illegal_in_xml_are_removed_and_the_rest_kept() -> None:
    result = graded("role_chunk_counted")
    nasty = "bad\x00\x01\x08\x0b\x0c\x1f\ufffe end <&> \"quoted\" 'it' é 中文 ✓ 😀\ttab\nline"
    clean = "bad end <&> \"quoted\" 'it' é 中文 ✓ 😀\ttab\nline"
    checks = [
        dataclasses.replace(c, message=nasty, hint=nasty, found=nasty)
        if c.status == "failed"
        else c
        for c in result.checks
    ]
    text = render(dataclasses.replace(result, checks=checks), OPTIONS)
    root = ET.fromstring(text.encode("utf-8"))  # a parse error would raise here
    failure = root.find(".//failure")
    assert failure is not None
    assert failure.get("message") == clean
    assert "\x00" not in text and "\x0b" not in text
    assert f"found: {clean}" in (failure.text or "")
    assert JUnitXml.fromstring(text.encode("utf-8")) is not None


def test_xml_text_keeps_tab_newline_and_carriage_return() -> None:
    assert xml_text("a\tb\nc\rd\x7f") == "a\tb\nc\rd\x7f"
    assert xml_text("\x00\x1f\ud800") == ""
