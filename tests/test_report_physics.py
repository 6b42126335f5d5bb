"""The lab's section of the class report: its physics charts, drawn from results alone.

The measurements travel in each result (the `data` of prefill.schema, cache.schema and
cancel.schema); each chart's data is checked against the numbers in the samples' own
files, and a tampered result is no mark, never an error.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from checks import LAB, class_physics
from grader import class_report as cr
from grader.class_report.svg import fmt
from grader.engine.grade import grade
from grader.words.i18n import catalog_file
from tests.conftest import ROOT, SAMPLES

SAMPLE_NAMES = (
    "correct",
    "cache_on_in_prefill",
    "no_close_on_cancel",
    "no_cache_ram_flag",
    "prefill_zero_with_docs",
    "hostile/nan",
)


def sample_json(name: str, file: str):
    return json.loads((SAMPLES / name / file).read_text("utf-8"))


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory, rubric) -> Path:
    root = tmp_path_factory.mktemp("physics")
    (root / "results").mkdir()
    for name in SAMPLE_NAMES:
        result = grade(LAB, str(SAMPLES / name), rubric, lang="en")
        (root / "results" / f"{name.replace('/', '__')}.json").write_text(result.to_json())
    return root


@pytest.fixture(scope="module")
def students(out: Path) -> tuple[cr.Student, ...]:
    return cr.load_class(out).students


def student(students, sid: str) -> cr.Student:
    return next(s for s in students if s.id == sid)


def test_the_result_carries_the_files_own_numbers(students) -> None:
    correct = student(students, "correct")
    assert correct.check("prefill.schema").data == {
        "entries": sample_json("correct", "prefill.json")
    }
    assert correct.check("cache.schema").data == sample_json("correct", "cache.json")
    assert correct.check("cancel.schema").data == sample_json("correct", "cancel.json")
    nan = student(students, "hostile__nan")  # cancel.json holds NaN: not valid, not kept
    assert nan.check("cancel.schema").status == "failed" and nan.check("cancel.schema").data == {}


def test_prefill_lines_join_each_students_points_in_order_of_docs(students) -> None:
    lines = {line.id: line for line in class_physics.prefill_lines(students)}
    expected = [
        (e["prompt_n"], e["ttft_ms"], e["docs"]) for e in sample_json("correct", "prefill.json")
    ]
    assert list(lines["correct"].points) == expected
    assert lines["correct"].kind == "rising"
    assert lines["prefill_zero_with_docs"].kind == "flat"
    assert lines["cache_on_in_prefill"].kind == "cache_on"
    assert lines["cache_on_in_prefill"].points[0][0] == 13
    assert "hostile__nan" in lines  # its prefill.json is fine; only cancel.json is broken


def _with_data(sid: str, **data: dict) -> cr.Student:
    rows = tuple(
        cr.CheckRow(f"{artifact}.schema", "t", "passed", 1, 1, data=value)
        for artifact, value in data.items()
    )
    return cr.Student(sid, True, 1, 1, rows)


def _entry(docs: int, prompt_n: int, ttft_ms: float) -> dict:
    return {"docs": docs, "prompt_n": prompt_n, "prompt_ms": 1, "ttft_ms": ttft_ms}


def test_prefill_line_is_flat_when_either_number_stops_growing() -> None:
    up = _with_data("up", prefill={"entries": [_entry(12, 900, 900), _entry(0, 30, 100)]})
    same = _with_data("same_n", prefill={"entries": [_entry(0, 30, 100), _entry(4, 30, 200)]})
    lines = class_physics.prefill_lines([up, same])
    assert [(line.id, line.kind) for line in lines] == [("up", "rising"), ("same_n", "flat")]
    assert lines[0].points[0][2] == 0  # sorted by docs, whatever the file's order


def test_cache_points_are_miss_against_hit(students) -> None:
    points = {p.id: p for p in class_physics.cache_points(students)}
    cache = sample_json("correct", "cache.json")
    assert points["correct"].first.ttft_ms == cache["first"]["ttft_ms"]
    assert points["correct"].second.ttft_ms == cache["second"]["ttft_ms"]
    assert points["correct"].second.prompt_n == 1 and points["correct"].ok
    assert not points["no_cache_ram_flag"].ok


def test_cancel_points_carry_the_idle_time_and_the_verdict(students) -> None:
    points = {p.id: p for p in class_physics.cancel_points(students)}
    for name, status in (("correct", "freed"), ("no_close_on_cancel", "busy")):
        idle = sample_json(name, "cancel.json")["slot_idle_after_ms"]
        assert points[name].run.slot_idle_after_ms == idle and points[name].status == status
    assert "hostile__nan" not in points  # cancel.json has NaN: no mark


@pytest.mark.parametrize(
    "data",
    [
        {"prefill": {"entries": [{"docs": 0, "prompt_n": -3, "prompt_ms": 1, "ttft_ms": 2}]}},
        {"prefill": {"entries": "many"}},
        {"prefill": {"entries": []}},
        {"cache": {"first": {"prompt_n": 1, "ttft_ms": 2}}},
        {"cache": {"first": [], "second": None, "changed_prefix": 3}},
        {
            "cancel": {
                "max_tokens": True,
                "received_tokens": 1,
                "closed_at_ms": 1,
                "slot_idle_after_ms": 1,
            }
        },
        {
            "cancel": {
                "max_tokens": 1,
                "received_tokens": 1,
                "closed_at_ms": 1,
                "slot_idle_after_ms": 1e999,
            }
        },
        {"cancel": ["not", "an", "object"]},
    ],
)
def test_a_malformed_measurement_is_no_mark(data: dict) -> None:
    """A result is untrusted input: a tampered one draws nothing, and breaks nothing."""
    tampered = _with_data("x", **data)
    assert class_physics.physics_of(tampered).empty
    assert class_physics.prefill_lines([tampered]) == class_physics.cache_points([tampered]) == []
    assert class_physics.cancel_points([tampered]) == []
    page = cr.render_report(cr.ClassData((tampered,)), "en")
    assert 'class="mark"' not in page


def test_a_submission_with_broken_files_keeps_no_measurement(tmp_path: Path, rubric) -> None:
    folder = tmp_path / "s"
    shutil.copytree(SAMPLES / "correct", folder)
    (folder / "prefill.json").write_text('[{"docs": 0, "prompt_n": NaN}]', "utf-8")
    (folder / "cache.json").unlink()
    (folder / "cache.json").symlink_to(SAMPLES / "correct" / "cache.json")
    (folder / "cancel.json").write_bytes(b"\xff\xfe{}")
    result = grade(LAB, str(folder), rubric)
    for name in ("prefill", "cache", "cancel"):
        check = next(c for c in result.checks if c.id == f"{name}.schema")
        assert check.status == "failed" and check.data == {}


def chart_of(page: str, name: str) -> str:
    start = page.index(f'id="{name}"')
    return page[start : page.index("</svg>", start)]


def students_drawn(svg: str) -> int:
    """How many students the chart's marks stand for: one each, or the number their
    tooltip says ("3 students, ...")."""
    titles = re.findall(r'<a class="mark"[^>]*><title>([^<]*)</title>', svg)
    return sum(int(m.group(1)) if (m := re.match(r"(\d+) students,", t)) else 1 for t in titles)


def test_each_chart_draws_every_student_with_numbers(out: Path, students) -> None:
    page = cr.render_report(cr.load_class(out), "en")
    assert students_drawn(chart_of(page, "chart-prefill")) == len(
        class_physics.prefill_lines(students)
    )
    assert students_drawn(chart_of(page, "chart-cache")) == len(
        class_physics.cache_points(students)
    )
    judged = [p for p in class_physics.cancel_points(students) if p.share is not None]
    assert students_drawn(chart_of(page, "chart-cancel")) == len(judged)
    section = page[page.index('<section id="physics">') :]
    assert section.index("</section>") > section.index('id="chart-cancel"')


def test_students_at_the_same_values_are_one_mark_with_their_number(out: Path) -> None:
    data = cr.load_class(out)
    before = chart_of(cr.render_report(data, "en"), "chart-cache")
    twin = dataclasses.replace(student(data.students, "correct"), id="correct-twin")
    cache = chart_of(cr.render_report(cr.ClassData((*data.students, twin)), "en"), "chart-cache")
    assert cache.count('<a class="mark"') == before.count('<a class="mark"')  # no new mark
    title = next(t for t in re.findall(r"<title>([^<]*)</title>", cache) if "correct-twin" in t)
    n = int(title.split(" ", 1)[0])  # "3 students, first ... ms" (hostile/nan shares it too)
    assert title.startswith(f"{n} students, first ") and "correct, " in title
    assert re.search(rf'font-weight="bold"[^>]*>{n}</text>', cache)  # the number, beside it


def test_the_cache_left_on_is_drawn_apart_from_the_right_runs(out: Path) -> None:
    prefill = chart_of(cr.render_report(cr.load_class(out), "en"), "chart-prefill")
    lines = re.findall(r'<polyline points="[^"]*" fill="none" stroke="(#\w+)"[^>]*?/>', prefill)
    dashed = re.findall(r'stroke="(#\w+)" stroke-width="[\d.]+" stroke-opacity="[\d.]+" '
                        r'stroke-dasharray="7 4"', prefill)  # fmt: skip
    assert "#0072B2" in lines and dashed == ["#D55E00"]  # one cache-on line, its own colour


def _with_params(out: Path, tmp_path: Path, check_id: str, **params: float) -> Path:
    """The class's results as a rubric with other thresholds would have graded them."""
    (tmp_path / "results").mkdir()
    for path in (out / "results").iterdir():
        result = json.loads(path.read_text("utf-8"))
        for check in result["checks"]:
            if check["id"] == check_id and "params" in check["data"]:
                check["data"]["params"].update(params)
        (tmp_path / "results" / path.name).write_text(json.dumps(result), "utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("chart", "check_id", "param", "words"),
    [
        ("chart-prefill", "prefill.cache_off", "min_prompt_tokens", "a prompt_n under {}"),
        ("chart-cache", "cache.hit_faster", "max_ttft_ratio", "repeat &lt; {} × first"),
        ("chart-cancel", "cancel.slot_freed", "max_idle_fraction", "cancel.slot_freed: ≤ {}"),
    ],
)
def test_each_chart_draws_the_threshold_the_class_was_graded_with(
    out: Path, tmp_path: Path, chart: str, check_id: str, param: str, words: str
) -> None:
    data = cr.load_class(out)
    rows = [s.check(check_id) for s in data.students]
    graded_with = {r.data["params"][param] for r in rows if r is not None and "params" in r.data}
    assert len(graded_with) == 1  # one rubric: the lab's (no number of the chart's own)
    page = cr.render_report(data, "en")
    assert words.format(fmt(graded_with.pop())) in chart_of(page, chart)
    other = cr.load_class(_with_params(out, tmp_path, check_id, **{param: 0.3}))
    assert words.format("0.3") in chart_of(cr.render_report(other, "en"), chart)


def test_results_without_measurements_say_so(out: Path, tmp_path: Path) -> None:
    """Results written by a grader that kept no measurements: the section says why it
    has no charts instead of drawing empty ones."""
    (tmp_path / "results").mkdir()
    for path in (out / "results").iterdir():
        result = json.loads(path.read_text("utf-8"))
        for check in result["checks"]:
            check["data"] = {}
        (tmp_path / "results" / path.name).write_text(json.dumps(result), "utf-8")
    page = cr.render_report(cr.load_class(tmp_path), "en")
    none = catalog_file("checks", "en")["class_report.physics.physics_none"]
    assert '<section id="physics"><h2>' in page and none.split(":")[0] in page
    assert 'id="chart-prefill"' not in page and 'id="chart-scores"' in page


def test_every_word_of_the_section_is_in_the_labs_catalog() -> None:
    source = (ROOT / "checks" / "report_physics.py").read_text("utf-8")
    used = set(re.findall(r"\bw\(\s*[\"'](\w+)[\"']", source)) | {"physics"}
    assert len(used) > 20
    for lang in ("en", "ja", "ko", "zh"):
        table = catalog_file("checks", lang)
        assert sorted(k for k in used if f"class_report.physics.{k}" not in table) == [], lang


def test_the_lab_contributes_its_section_through_its_spec() -> None:
    spec = cr.spec_of(LAB)
    assert spec is not None and [s.id for s in spec.sections] == ["physics"]
    plain = dataclasses.replace(spec, sections=())
    page = cr.render_report(cr.ClassData(()), "en", plain)
    assert '<section id="physics">' not in page and 'href="#physics"' not in page
