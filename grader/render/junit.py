"""JUnit XML, for CI systems and test reporters, written with the standard library.

One `<testsuite>` named for the lab inside `<testsuites>`, with the counts (`tests`,
`failures`, `errors`, `skipped`), the score and each check's points as suite properties
(`points:<check id>`, `max_points:<check id>`); one `<testcase>` per check, `classname`
`<lab>.<artifact>`, `name` the check id and `time` "0", and a `<failure>`, `<error>` or
`<skipped>` element with the message as `message` and the whole feedback (where,
expected / found, what to do, the common mistake) as text.

The document is valid against the Jenkins xunit plugin's strict `junit-10.xsd`
(`tests/data/junit-10.xsd`, held to it by `tests/render/test_junit_xsd.py`): that schema
allows properties on suites only and `skipped` on a suite, not on `<testsuites>`, and
gives a test case only `name`, `classname`, `time` and `group`. GitLab also reads a test
case's `file`, which the schema does not allow: `--format junit-gitlab`
(`grader.render.junit_gitlab`) is the same document with `file` on every test case that
has one (the file the check judged: `cancel.json`), for GitLab's test report.

`time` is "0" and there is no `timestamp` or `hostname`: the grader does not time each
check, and equal input gives equal bytes. Every string goes through ElementTree's
escaping, after dropping the characters XML 1.0 cannot carry at all (controls other
than tab, LF, CR; lone surrogates; U+FFFE, U+FFFF).

A submission that could not be graded is one test case, `not_gradable`, in error, so a
CI job never shows it as an empty green run. `<failure type="check_failed">` is the
student's; `<error type="grader_error">` is the grader's own failure (a crashed check,
or an internal error), `<error type="not_gradable">` a submission that could not be
graded; the suite's `grader_error` property says whether the grader failed at all.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from grader.engine.result import CheckResult, Result
from grader.render import RenderOptions
from grader.render.gradescope import feedback
from grader.words.i18n import format_value

_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
RESULT_TAG = {"failed": "failure", "error": "error", "skipped": "skipped"}
# `type` tells the two kinds of <error> apart: the grader's own failure, and a submission
# that could not be graded at all; a <failure> is always the student's work.
OUTCOME_TYPE = {
    "failed": {"type": "check_failed"},
    "error": {"type": "grader_error"},
}


def xml_text(text: str) -> str:
    """`text` without the characters that XML 1.0 does not allow anywhere."""
    return _ILLEGAL_XML.sub("", text)


def _element(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attributes.items()})


def _properties(parent: ET.Element, values: dict[str, str]) -> None:
    properties = _element(parent, "properties")
    for name, value in values.items():
        _element(properties, "property", name=name, value=value)


def judged_file(check: CheckResult, result: Result) -> str | None:
    """The file a check judged: where its finding is, else its artifact's file."""
    if check.location is not None and check.location.file:
        return check.location.file
    files = {a.name: a.file for a in result.artifacts}
    return files.get(check.artifact or "")


def _testcase(
    suite: ET.Element, check: CheckResult, result: Result, options: RenderOptions, gitlab: bool
) -> None:
    classname = f"{result.lab}.{check.artifact}" if check.artifact else result.lab
    attributes = {"classname": classname, "name": check.id, "time": "0"}
    file = judged_file(check, result) if gitlab else None
    if file:
        attributes["file"] = file
    case = _element(suite, "testcase", **attributes)
    tag = RESULT_TAG.get(check.status)
    if tag is None:
        return
    kind = OUTCOME_TYPE.get(check.status, {})
    outcome = _element(case, tag, message=check.message or check.title, **kind)
    body = "\n\n".join(t for t in (feedback(check, options), check.explanation) if t)
    if body:
        outcome.text = xml_text(body)


def _counts(result: Result) -> dict[str, str]:
    if not result.gradable:
        return {"tests": "1", "failures": "0", "errors": "1", "skipped": "0"}
    statuses = [c.status for c in result.checks]  # the counts are of the elements written
    return {
        "tests": str(len(statuses)),
        "failures": str(statuses.count("failed")),
        "errors": str(statuses.count("error")),
        "skipped": str(statuses.count("skipped")),
    }


def tree(result: Result, options: RenderOptions, gitlab: bool = False) -> ET.Element:
    """The `<testsuites>` element of the report (with GitLab's `file` on test cases
    when `gitlab`)."""
    counts = _counts(result)
    totals = {k: v for k, v in counts.items() if k != "skipped"}  # junit-10.xsd: suites only
    root = ET.Element("testsuites", {"name": xml_text(result.lab), **totals})
    suite = _element(root, "testsuite", name=result.lab, **counts)
    values = {
        "score": format_value(result.score),
        "max_score": format_value(result.max_score),
        "gradable": str(result.gradable).lower(),
        "grader_error": str(result.grader_error).lower(),
        "grader_version": result.grader_version,
        "rubric_version": result.rubric_version,
        "language": result.language,
    }
    for check in result.checks if result.gradable else ():
        values[f"points:{check.id}"] = format_value(check.points)
        values[f"max_points:{check.id}"] = format_value(check.max_points)
    _properties(suite, values)
    if not result.gradable:
        case = _element(suite, "testcase", classname=result.lab, name="not_gradable", time="0")
        title = options.catalog.raw("render.not_gradable") or "Not graded"
        kind = "grader_error" if result.grader_error else "not_gradable"
        error = _element(
            case, "error", message=f"{title}: {'; '.join(result.format_errors)}", type=kind
        )
        error.text = xml_text("\n".join(result.format_errors))
        return root
    for check in result.checks:
        _testcase(suite, check, result, options, gitlab)
    return root


def render(result: Result, options: RenderOptions, gitlab: bool = False) -> str:
    root = tree(result, options, gitlab)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
