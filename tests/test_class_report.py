"""The class report: the data behind each chart, the flags, escaping, and the page itself.

The results are real: bundled samples graded by the grader, written where a batch writes
them. The page is drawn from those result files alone; the lab's own section (its
physics charts) is tested in test_report_physics.py.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import hashlib
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from checks import LAB
from grader import class_report as cr
from grader.batch.gradebook import summary_dict
from grader.batch.rows import row_of
from grader.class_report import overview
from grader.class_report.axes import Axis, linear_axis, log_axis
from grader.class_report.charts import strip_chart, xy_chart
from grader.class_report.context import Labels, PageContext
from grader.class_report.svg import (
    Mark,
    StripMark,
    Style,
    clean,
    esc,
    fmt,
)
from grader.cli import report as report_cli
from grader.engine.grade import grade, not_gradable
from grader.engine.result import read_result
from grader.words.i18n import Catalog, catalog_file
from grader.words.problems import Problem
from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parent.parent

SAMPLE_NAMES = (
    "correct",
    "role_chunk_counted",
    "cache_on_in_prefill",
    "no_close_on_cancel",
    "no_cache_ram_flag",
    "prefill_zero_with_docs",
    "derived/report_typed_number",
    "derived/prefill_numbers_not_in_log",
    "derived/chunks_changed_fragment",
    "derived/ttft_total_before_first",
    "hostile/nan",
)
HOSTILE_ID = "<img src=x onerror=alert(1)>"
HOSTILE_MESSAGE = '</script><script>alert("pwned")</script><b onmouseover=alert(2)>'


def sample_id(name: str) -> str:
    return name.replace("/", "__")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory, rubric) -> Path:
    """A batch folder: results of the samples, one ungradable submission, one result with a
    hostile id and message, one broken file."""
    root = tmp_path_factory.mktemp("class") / "out"
    results = root / "results"
    results.mkdir(parents=True)
    for name in SAMPLE_NAMES:
        result = grade(LAB, str(SAMPLES / name), rubric, lang="en")
        (results / f"{sample_id(name)}.json").write_text(result.to_json(), "utf-8")
    missing = not_gradable(
        LAB, "nowhere", rubric.version, Problem("engine.no_folder", {"folder": "nowhere"}), "en"
    )
    (results / "zz-missing.json").write_text(missing.to_json(), "utf-8")
    hostile = json.loads((results / "correct.json").read_text("utf-8"))
    hostile["checks"][0].update(status="failed", points=0, message=HOSTILE_MESSAGE)
    hostile["score"] -= 1
    (results / f"{HOSTILE_ID}.json").write_text(json.dumps(hostile), "utf-8")
    (results / "broken.json").write_text("{not json", "utf-8")
    (results / ".tmp-1234.part").write_text("{}", "utf-8")
    (results / "notes.txt").write_text("not a result", "utf-8")
    return root


@pytest.fixture(scope="module")
def data(out: Path) -> cr.ClassData:
    return cr.load_class(out)


@pytest.fixture(scope="module")
def page(data: cr.ClassData) -> str:
    return cr.render_report(data, "en")


def student(data: cr.ClassData, sid: str) -> cr.Student:
    return next(s for s in data.students if s.id == sid)


def label(lang: str, key: str) -> str:
    """A label of the page, as the catalog has it."""
    return Catalog(lang, ("grader",)).raw(f"report.{key}") or ""


def sample_json(name: str, file: str):
    return json.loads((SAMPLES / name / file).read_text("utf-8"))


# --------------------------------------------------------------------------- reading


def test_results_are_read_sorted_and_bad_files_listed(data: cr.ClassData) -> None:
    ids = [s.id for s in data.students]
    assert ids == sorted(ids)
    assert set(ids) == {sample_id(n) for n in SAMPLE_NAMES} | {HOSTILE_ID, "zz-missing"}
    assert [u.name for u in data.unreadable] == ["broken.json"]
    assert "not strict JSON" in data.unreadable[0].reason
    missing = student(data, "zz-missing")
    assert not missing.gradable and missing.score is None and missing.format_errors


def _broken(change):
    def make(good: dict) -> object:
        document = json.loads(json.dumps(good))
        return change(document) or document

    return make


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda good: [], "should be a object"),
        (_broken(lambda d: d.update(gradable="yes")), "`gradable` should be a boolean"),
        (_broken(lambda d: d["checks"][0].pop("status") and None), '"status"'),
        (_broken(lambda d: d.update(score="71")), "`score` should be a number"),
        (_broken(lambda d: d["checks"][0].update(expected={"a": 1})), "checks.0..expected"),
        (_broken(lambda d: d.update(extra=1)), 'does not allow: "extra"'),
    ],
)
def test_a_file_that_is_not_a_result_is_refused_with_the_reason(out: Path, make, reason) -> None:
    """A result is read by the result model's own reader, valid against the schema."""
    good = json.loads((out / "results" / "correct.json").read_text("utf-8"))
    assert cr.student_of("x", good).score == good["score"]
    with pytest.raises(ValueError, match=reason):
        cr.student_of("x", make(good))


# --------------------------------------------------------------------------- chart data


def fake(sid: str, score: float | None, max_score: float = 71, **checks: str) -> cr.Student:
    rows = tuple(
        cr.CheckRow(cid.replace("__", "."), cid, status, 0, 1, message=f"{sid} {cid}")
        for cid, status in checks.items()
    )
    return cr.Student(sid, score is not None, score, max_score if score is not None else None, rows)


def test_the_histogram_spans_the_scores_not_zero_to_the_maximum() -> None:
    students = [fake(f"s{i}", score) for i, score in enumerate((64, 66, 67, 70, 71, 71))]
    hist = cr.score_histogram([*students, fake("ungraded", None)])
    assert hist.start == 64 and hist.max_score == 71
    assert sum(len(b.ids) for b in hist.bins) == 6  # the ungraded one is not counted
    assert hist.median == 68.5


def test_few_scores_get_one_bar_each_and_full_marks_their_own() -> None:
    hist = cr.score_histogram([fake("a", 71), fake("b", 70), fake("c", 64)])
    assert hist.width == 1 and [b.lo for b in hist.bins] == [64, 65, 66, 67, 68, 69, 70, 71]
    assert hist.bins[-2].ids == ("b",) and hist.bins[-1].ids == ("a",)
    assert hist.bins[-1].full_marks and not hist.bins[-2].full_marks


def test_many_scores_get_round_bins_and_full_marks_stay_alone() -> None:
    students = [fake(f"s{i}", float(i), 200) for i in range(0, 201, 7)] + [fake("top", 200, 200)]
    hist = cr.score_histogram(students, max_bins=25)
    assert hist.width == 10 and hist.bins[0].lo == 0
    assert hist.bins[-1].full_marks and hist.bins[-1].ids == ("top",)
    assert "s196" in hist.bins[-2].ids  # nearly full marks, in the bin before


def test_a_far_off_score_breaks_the_axis_instead_of_emptying_it() -> None:
    students = [fake(f"s{i}", 64 + i % 8) for i in range(20)] + [fake("low", 5)]
    hist = cr.score_histogram(students)
    gaps = [b for b in hist.bins if b.gap]
    assert len(gaps) == 1 and gaps[0].lo <= 6 and gaps[0].hi == 64
    assert hist.bins[0].ids == ("low",) and hist.bins[1] == gaps[0]
    assert sum(len(b.ids) for b in hist.bins) == 21


def test_a_broken_axis_leaves_room_for_one_bar_per_score() -> None:
    """14 scores and one far-off one: one point per bar fits in 20 bars once the empty
    run between them is one break (as the narrow chart draws it), though 0-83 would not."""
    students = [fake(f"s{i}", 69 + i % 14, 83) for i in range(40)] + [fake("top", 83, 83)]
    hist = cr.score_histogram([*students, fake("low", 24, 83)], max_bins=20)
    assert hist.width == 1 and sum(b.gap for b in hist.bins) == 1
    assert [b.lo for b in hist.bins if not b.gap][1:] == list(range(69, 84))
    assert hist.bins[-1].full_marks and hist.bins[-1].ids == ("top",)


def test_histogram_of_nobody_is_one_empty_bin() -> None:
    hist = cr.score_histogram([fake("x", None)])
    assert len(hist.bins) == 1 and hist.bins[0].ids == () and hist.median is None


def test_pass_rates_worst_first_with_the_students_who_failed(data: cr.ClassData) -> None:
    rates = cr.pass_rates(data.students)
    values = [r.rate for r in rates]
    assert values == sorted(values)
    by_id = {r.id: r for r in rates}
    assert by_id["prefill.cache_off"].failed_ids == ("cache_on_in_prefill",)
    assert set(by_id["log.cancel_task"].failed_ids) == {"no_close_on_cancel"}
    assert by_id["report.copies_sources"].failed_ids == ("derived__report_typed_number",)
    assert by_id["cancel.slot_freed"].skipped_ids == ("hostile__nan",)
    idle = sample_json("no_close_on_cancel", "cancel.json")["slot_idle_after_ms"]
    assert str(idle) in by_id["cancel.slot_freed"].messages["no_close_on_cancel"]
    assert by_id["props.schema"].rate == 1.0 and by_id["props.schema"].failed_ids == ()
    graded = sum(s.gradable for s in data.students)
    assert all(r.ran == graded for r in rates)  # every graded result has every check


def test_pass_rates_agree_with_the_batch_summary(out: Path, data: cr.ClassData) -> None:
    results = out / "results"
    rows = [row_of(s.id, read_result(str(results / f"{s.id}.json"))) for s in data.students]
    summary = summary_dict([r for r in rows if r], LAB.all_check_ids(), [])
    for rate in cr.pass_rates(data.students):
        assert summary["checks"][rate.id]["pass_rate"] == pytest.approx(rate.rate, abs=1e-6)
        assert summary["checks"][rate.id]["failed_ids"] == list(rate.failed_ids)


def _graded(sid: str, *rows: tuple[str, str, float, float]) -> cr.Student:
    """A graded student whose checks are (id, status, points, max points)."""
    checks = tuple(cr.CheckRow(cid, cid, status, p, m) for cid, status, p, m in rows)
    return cr.Student(
        sid, True, sum(r.points for r in checks), sum(r.max_points for r in checks), checks
    )


def _rates_section(*students: cr.Student) -> str:
    return overview.checks(PageContext(tuple(students), Labels("en")))


CLASS = (
    _graded("a", ("x.ok", "passed", 1, 1), ("x.bad", "failed", 0, 4), ("x.odd", "error", 0, 2)),
    _graded("b", ("x.ok", "passed", 1, 1), ("x.bad", "failed", 0, 4), ("x.odd", "passed", 2, 2)),
    _graded("c", ("x.ok", "passed", 1, 1), ("x.bad", "skipped", 0, 4), ("x.odd", "passed", 2, 2)),
)


def test_checks_every_graded_submission_passed_are_one_line() -> None:
    html = _rates_section(*CLASS)
    assert 'href="#check-x-ok"' not in html  # no bar of its own
    assert "Passed by every graded submission (1 check): <code>x.ok</code>" in html


def test_a_pass_rate_counts_every_status_that_happened() -> None:
    html = _rates_section(*CLASS)
    assert "0% passed · 2 failed · 1 skipped" in html  # x.bad: the skip is not a pass
    assert "67% passed · 1 error<" in html  # x.odd, in the singular


def test_each_check_says_the_points_the_class_lost_on_it() -> None:
    html = _rates_section(*CLASS)
    assert "−12 points" in html and "−2 points" in html  # 3 × 4 on x.bad, 2 on x.odd
    assert [r.lost for r in cr.pass_rates(list(CLASS))] == [12, 2, 0]


def test_pass_rate_ties_go_to_more_failures_then_the_labs_order() -> None:
    students = [
        fake("a", 1, a="failed", b="failed", c="passed"),
        fake("b", 1, a="skipped", b="failed", c="passed"),
    ]
    assert [r.id for r in cr.pass_rates(students)] == ["b", "a", "c"]


def test_integrity_flags_name_the_evidence(data: cr.ClassData) -> None:
    flagged = {s.id: flags for s, flags in cr.integrity_flags(data.students)}
    typed = flagged["derived__report_typed_number"]
    assert [(f.key, f.strong, f.check_id) for f in typed] == [
        ("report_mismatch", True, "report.copies_sources")
    ]
    typed_value = sample_json("derived/report_typed_number", "report.json")["ttft_12docs_ms"]
    assert str(typed_value) in typed[0].message
    assert [f.key for f in flagged["derived__prefill_numbers_not_in_log"]] == ["log_mismatch"]
    assert [f.key for f in flagged["derived__chunks_changed_fragment"]] == ["chunks_mismatch"]
    assert [f.key for f in flagged["derived__ttft_total_before_first"]] == ["impossible_timing"]
    # honest mistakes (the cache left on, slot busy and no `cancel task`) are consistent
    # with the server's record: no flag
    clean = ("correct", "cache_on_in_prefill", "no_close_on_cancel", "role_chunk_counted")
    for clean_id in (*clean, "zz-missing"):
        assert clean_id not in flagged
    order = list(flagged)
    strong = [sid for sid in order if any(f.strong for f in flagged[sid])]
    assert order[: len(strong)] == strong  # strong flags first


def test_cancel_freed_without_cancel_in_the_log_is_a_strong_flag() -> None:
    typed = fake(
        "typed",
        60,
        cancel__interrupted="passed",
        cancel__slot_freed="passed",
        log__cancel_task="failed",
    )
    honest = fake("honest", 60, cancel__slot_freed="failed", log__cancel_task="failed")
    # the answer ended before the close: nothing was cut off, nothing contradicts the log
    finished = fake(
        "finished",
        60,
        cancel__interrupted="failed",
        cancel__slot_freed="passed",
        log__cancel_task="failed",
    )
    flagged = dict(cr.integrity_flags([typed, honest, finished]))
    assert [(f.key, f.strong) for f in flagged[typed]] == [("cancel_vs_log", True)]
    assert honest not in flagged and finished not in flagged


def test_a_log_without_timings_is_worth_a_look_not_a_strong_flag() -> None:
    row = cr.CheckRow(
        "log.intact",
        "t",
        "failed",
        0,
        2,
        message="no timing block",
        message_id="log.intact.no_timings",
    )
    s = dataclasses.replace(fake("s", 71), checks=(row,))
    assert [(f.key, f.strong) for f in dict(cr.integrity_flags([s]))[s]] == [
        ("log_unconfirmed", False)
    ]


def test_a_log_that_does_not_add_up_is_a_strong_flag() -> None:
    row = cr.CheckRow(
        "log.intact", "t", "failed", 0, 2, message="x", message_id="log.intact.arithmetic"
    )
    s = dataclasses.replace(fake("s", 71), checks=(row,))
    assert [(f.key, f.strong) for f in dict(cr.integrity_flags([s]))[s]] == [("log_tampered", True)]


# --------------------------------------------------------------------------- the page


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of every <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


def test_hostile_ids_and_messages_are_only_text(page: str) -> None:
    tags = parse(page)
    names = {tag for tag, _ in tags.tags}
    assert "img" not in names and "b" not in names
    assert [tag for tag, _ in tags.tags].count("script") == 1
    assert all(not name.startswith("on") for _, attrs in tags.tags for name in attrs)
    assert "alert" not in "".join(tags.scripts)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;/script&gt;&lt;script&gt;alert(&quot;pwned&quot;)" in page
    hrefs = [a["href"] for tag, a in tags.tags if "href" in a]
    assert hrefs and all(h is not None and h.startswith("#") for h in hrefs)
    ids = [a["id"] for _, a in tags.tags if a.get("id")]
    assert len(ids) == len(set(ids))  # anchors are unique
    for href in hrefs:
        assert href[1:] in ids, href  # every link lands somewhere


def test_escaping_shows_controls_and_bidi_overrides_as_escapes() -> None:
    assert esc("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#x27;"
    assert clean("evil\u202etxt.exe\x00\x1b") == "evil\\u202etxt.exe\\x00\\x1b"
    assert clean("\udcff") == "\\xff"  # an undecodable file name byte, as the byte


def test_anchors_are_readable_and_unique() -> None:
    assert cr.anchor("student", "alice-2") == "student-alice-2"
    odd = cr.anchor("student", HOSTILE_ID)
    assert re.fullmatch(r"student-[A-Za-z0-9_.-]+", odd)
    assert odd != cr.anchor("student", HOSTILE_ID.replace("<", ">"))
    assert cr.anchor("student", "a b") != cr.anchor("student", "a_b")


def test_the_page_has_no_external_reference(page: str) -> None:
    assert "http://" not in page and "https://" not in page
    tags = parse(page)
    for tag, attrs in tags.tags:
        assert "src" not in attrs, tag
        for name in ("href", "xlink:href", "action"):
            assert attrs.get(name) is None or attrs[name].startswith("#"), (tag, attrs)
    css = "".join(tags.styles)
    assert "@import" not in css and "url(" not in css and "@font-face" not in css
    assert "url(#" in page  # the only url(): clip paths inside the page


def test_the_content_security_policy_allows_only_the_pages_own_style_and_script(
    page: str,
) -> None:
    tags = parse(page)
    csp = next(
        a["content"] for t, a in tags.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()

    assert f"'sha256-{digest(''.join(tags.styles))}'" in csp
    assert f"'sha256-{digest(''.join(tags.scripts))}'" in csp


def test_every_section_and_chart_is_there(page: str, data: cr.ClassData) -> None:
    for section in ("scores", "checks", "physics", "integrity", "students", "who-failed",
                    "feedback", "unreadable"):  # fmt: skip
        assert f'<section id="{section}">' in page
        assert f'<a href="#{section}">' in page  # the contents link to it
    assert '<div class="chart-rates" id="chart-checks"' in page  # HTML rows: legible text
    for chart in ("chart-scores", "chart-prefill", "chart-cache", "chart-cancel"):
        assert f'<svg class="chart" id="{chart}"' in page

    def chart(name: str) -> str:
        start = page.index(f'id="{name}"')
        return page[start : page.index("</svg>", start)]

    rates = cr.pass_rates(data.students)
    everyone = [r for r in rates if r.passed == r.ran]
    assert page.count('<li><a class="rate"') == len(rates) - len(everyone) > 0
    assert all(f"<code>{r.id}</code>" in page for r in everyone)
    assert "@media print" in page
    assert '<table class="sortable">' in page
    for s in data.students:
        assert f'<details class="student" id="{cr.anchor("student", s.id)}">' in page


def test_feedback_is_rendered_as_in_the_result(page: str, data: cr.ClassData) -> None:
    check = student(data, "cache_on_in_prefill").check("prefill.cache_off")
    assert check is not None and check.message and check.hint and check.explanation
    for text in (check.message, check.hint, check.explanation):
        assert esc(text) in page
    assert "<code>prefill.json:4 (/0/prompt_n)</code>" in page


def test_the_page_is_drawn_from_the_result_files_alone(tmp_path: Path, out: Path) -> None:
    """The submissions are gone (archives extracted for the batch, a class graded last
    year): the same results give the same page, the lab's charts too."""
    shutil.copytree(out / "results", tmp_path / "results")
    assert cr.render_report(cr.load_class(tmp_path), "en") == cr.render_report(
        cr.load_class(out), "en"
    )
    page = cr.render_report(cr.load_class(tmp_path), "en")
    assert 'id="chart-prefill"' in page and page.count('class="mark"') > 20


def test_same_results_give_the_same_bytes_wherever_they_are(out: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    cr.write_class_report(out, first, "en")
    cr.write_class_report(out, second, "en")
    moved = tmp_path / "elsewhere" / "batch"
    shutil.copytree(out, moved)
    third = tmp_path / "c.html"
    cr.write_class_report(moved, third, "en")
    assert first.read_bytes() == second.read_bytes() == third.read_bytes()
    assert str(out) not in first.read_text("utf-8")


def test_every_label_the_page_uses_is_in_the_catalog() -> None:
    """The page's words are the `[report]` table of grader/messages/<lang>.toml (whose ids
    and placeholders test_catalogs compares across languages): every label the page's
    modules name is there, and no translation is an English copy."""
    source = "".join(
        p.read_text("utf-8") for p in sorted((ROOT / "grader" / "class_report").glob("*.py"))
    )
    used = set(re.findall(r"\bt\(\s*[\"'](\w+)[\"']", source))
    used |= {"passed", "failed", "skipped", "error", "strong", "weak"}  # t(status), t(severity)
    english = catalog_file("grader", "en")
    assert len(used) > 50 and not {k for k in used if f"report.{k}" not in english}
    for lang in ("ja", "ko", "zh"):
        table = catalog_file("grader", lang)
        untranslated = [
            k
            for k, text in english.items()
            if k.startswith("report.")
            and not k.endswith("_one")  # English's singulars
            and table[k] == text
            and text.isascii()
        ]
        assert untranslated == [], (lang, untranslated)


def test_every_flag_of_the_lab_has_its_label_in_every_language() -> None:
    spec = cr.spec_of(LAB)
    assert spec is not None and spec.messages_package == "checks"
    assert [r.key for r in spec.flags] == [
        "published_sample",
        "reference_run",
        "log_tampered",
        "log_mismatch",
        "report_mismatch",
        "chunks_mismatch",
        "cancel_vs_log",
        "log_unconfirmed",
        "steps_unconfirmed",
        "impossible_timing",
    ]
    for lang in cr.LANGUAGES:
        table = catalog_file(spec.messages_package, lang)
        for rule in spec.flags:
            assert table.get(rule.label, "").strip(), (lang, rule.label)


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
def test_the_page_speaks_the_chosen_language(data: cr.ClassData, lang: str) -> None:
    page = cr.render_report(data, lang)
    assert f'<html lang="{lang}">' in page
    assert esc(label(lang, "integrity")) in page
    assert '<div class="feedback" lang="en">' in page  # the feedback stays as graded


@pytest.mark.parametrize(
    ("lang", "badge", "folder"),
    [
        ("en", r"\d+ failed", "folder: <code>"),
        ("ja", r"不合格\d+件", "フォルダー: <code>"),
        ("ko", r"실패 \d+개", "폴더: <code>"),
        ("zh", r"未通过 \d+ 项", "文件夹：<code>"),
    ],
)
def test_a_students_failures_and_folder_are_worded_as_the_language_orders_them(
    data: cr.ClassData, lang: str, badge: str, folder: str
) -> None:
    """Not `3 未通过` nor `文件夹:` composed in code: the count where the language puts
    it, and the colon its sentences use."""
    page = cr.render_report(data, lang)
    assert re.search(f'<span class="badge s-failed">{badge}</span>', page)
    assert f'<p class="muted">{folder}' in page


def test_an_unknown_language_falls_back_to_english(data: cr.ClassData) -> None:
    page = cr.render_report(data, "qaa")  # ISO 639-2 keeps qaa-qtz for local use: never a catalog
    assert '<html lang="en">' in page and label("en", "integrity") in page


# --------------------------------------------------------------------------- the lab's part


def test_the_lab_names_its_class_report_and_check_does_not_import_it() -> None:
    from checks.class_report import CLASS_REPORT

    assert LAB.class_report == "checks.class_report:CLASS_REPORT"
    assert cr.spec_of(LAB) is CLASS_REPORT and cr.spec_of("checks:LAB") is CLASS_REPORT
    code = (
        "import sys, checks; "
        "print([m in sys.modules for m in ('checks.class_report', 'grader.class_report')])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert run.stdout.strip() == "[False, False]"


def test_a_lab_without_a_class_report_gets_no_physics_and_no_flags(data: cr.ClassData) -> None:
    plain = dataclasses.replace(LAB, class_report=None)
    assert cr.spec_of(plain) is None
    page = cr.render_report(data, "en", plain)
    assert '<section id="physics">' not in page and 'href="#physics"' not in page
    assert 'id="chart-prefill"' not in page and 'id="chart-scores"' in page
    assert label("en", "no_flags") in page
    assert cr.integrity_flags(data.students, plain) == []


def test_a_spec_says_which_checks_raise_which_flag() -> None:
    spec = cr.ClassReportSpec(
        flags=(
            cr.FlagRule("a_failed", True, ("a",), "x.a"),
            cr.FlagRule(
                "b_noted", False, ("b",), "x.b", status="passed", note="odd", if_passed=("c",)
            ),
        )
    )
    noted = cr.CheckRow("b", "t", "passed", 1, 1, message="odd", message_id="b.odd")
    one = fake("one", 1, a="failed", c="passed")
    one = dataclasses.replace(one, checks=(*one.checks, noted))
    two = fake("two", 1, a="passed", c="failed")
    two = dataclasses.replace(two, checks=(*two.checks, noted))
    flagged = dict(cr.integrity_flags([one, two], spec))
    assert [(f.key, f.strong, f.check_id) for f in flagged[one]] == [
        ("a_failed", True, "a"),
        ("b_noted", False, "b"),
    ]
    assert two not in flagged  # `c` did not pass, `a` did


def test_grader_report_says_so_when_the_lab_does_not_load(out: Path, capsys) -> None:
    args = argparse.Namespace(out_dir=str(out), html=None, lang="en", lab="no_such_lab:LAB")
    assert report_cli.run_report(args) == 2
    assert "can't load the lab no_such_lab:LAB" in capsys.readouterr().err


# --------------------------------------------------------------------------- CLI


def test_grader_report_writes_the_page(out: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "page.html"
    assert report_cli.main([str(out), "--html", str(target), "--lang", "ja"]) == 0
    assert '<html lang="ja">' in target.read_text("utf-8")
    assert str(target) in capsys.readouterr().err  # said in Japanese
    default = tmp_path / "copy"
    shutil.copytree(out, default)
    assert report_cli.main([str(default)]) == 0
    assert (default / "report.html").is_file()


def test_grader_report_refuses_a_folder_without_results(tmp_path: Path, capsys) -> None:
    assert report_cli.main([str(tmp_path / "nowhere")]) == 2
    assert report_cli.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "run `grader batch" in err


def test_grader_report_says_so_when_it_cannot_write(out: Path, tmp_path: Path, capsys) -> None:
    assert report_cli.main([str(out), "--html", str(tmp_path / "no" / "dir" / "x.html")]) == 2
    assert "can't write" in capsys.readouterr().err


# --------------------------------------------------------------------------- charts


def test_linear_axis_has_round_ticks_and_leaves_a_far_outlier_off() -> None:
    axis = linear_axis("ms", [192.8, 3281.1, 9336.5])
    assert axis.ticks == (0, 2000, 4000, 6000, 8000, 10000)
    hostile = linear_axis("ms", [192.8, 3281.1, 9336.5, 1e99])
    assert hostile.hi == 10000 and not hostile.contains(1e99)
    assert linear_axis("x", []).ticks == (0.0, 0.5, 1.0)


def test_log_axis_spans_whole_decades_and_leaves_zero_off() -> None:
    axis = log_axis("ms", [0.93, 12.1, 5559.961, 0.0])
    assert (axis.lo, axis.hi) == (0.1, 10000.0) and axis.log
    assert axis.ticks == (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)
    assert not axis.contains(0.0) and axis.fraction(0.0) == 0.0
    assert axis.fraction(10000.0) == 1.0 and axis.fraction(1e9) == 1.0
    assert log_axis("x", [5.0, 7.0]).ticks == (1.0, 2.0, 5.0, 10.0)


def test_numbers_are_printed_without_float_noise() -> None:
    assert [fmt(v) for v in (0.93, 12.345, 192.809, 9336.469, 2000.0, 1e99, 0.001)] == [
        "0.93",
        "12.35",
        "192.8",
        "9336",
        "2000",
        "1e+99",
        "0.001",
    ]


def test_off_scale_points_are_drawn_hollow_at_the_edge() -> None:
    x = Axis("x (ms)", 0, 10, (0, 5, 10))
    y = Axis("y (ms)", 0, 10, (0, 5, 10))
    styles = {"s": Style("one", "#0072B2")}
    svg = xy_chart("c", "T", x, y, styles, [Mark(((5, 5), (50, 5)), "s", "id: <b>", "#a")])
    assert svg.count('fill="#FFFFFF"') == 1  # the second point, beyond the x axis
    assert "id: &lt;b&gt;" in svg and "x (ms)" in svg and "y (ms)" in svg
    assert '<a class="mark" href="#a">' in svg


def test_the_strip_chart_jitter_is_fixed_by_the_key() -> None:
    x = Axis("idle (ms)", 0.1, 1000, (0.1, 1, 10, 100, 1000), log=True)
    rows = {"r": Style("row", "#0072B2")}
    marks = [StripMark(1.0, "r", "a", "a"), StripMark(1.0, "r", "b", "b")]
    first = strip_chart("c", "T", x, rows, marks)
    assert first == strip_chart("c", "T", x, rows, marks)
    ys = re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', first)
    assert len(set(ys[1:])) == 2  # the two equal values sit apart (ys[0] is the row's key)


def test_the_page_names_each_pair_of_students_with_one_run(data: cr.ClassData) -> None:
    """The hostile-id result is the correct sample's, re-labelled: one run, two ids."""
    page = cr.render_report(data, "en")
    section = page[page.index('<section id="integrity">') :]
    section = section[: section.index("</section>")]
    assert label("en", "pairs") in section
    assert "the same " in section and "chatcmpl-" in section
    assert esc(HOSTILE_ID) in section
