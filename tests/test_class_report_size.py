"""The class page stays light at any class size: its bytes grow at most linearly with the
class, under a stated bound per student, and past the page's budget of full feedback
every student still has a place that every link lands on.

The class is real results (bundled samples graded by the grader) handed in many times
under distinct ids, as a batch writes them; the page is drawn from those files alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checks import LAB
from grader import class_report as cr
from grader.class_report import students as students_section
from grader.engine.grade import grade
from tests.conftest import SAMPLES

BASES = ("correct", "cache_on_in_prefill", "no_close_on_cancel", "role_chunk_counted")
BYTES_PER_STUDENT = 2_500
"""What one more student may add to the page at most, everything included (its row in
the table, its feedback, its marks in the charts, its place in the lists)."""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, rubric) -> Path:
    """One result file per base sample, as a batch writes it."""
    results = tmp_path_factory.mktemp("bases") / "results"
    results.mkdir()
    for name in BASES:
        result = grade(LAB, str(SAMPLES / name), rubric, lang="en")
        (results / f"{name}.json").write_text(result.to_json(), "utf-8")
    return results


def class_of(graded: Path, where: Path, copies: int) -> Path:
    """A batch folder of `copies` students per base, each under an id of its own."""
    results = where / "results"
    results.mkdir(parents=True)
    for source in sorted(graded.glob("*.json")):
        for number in range(copies):
            shutil.copyfile(source, results / f"{source.stem}-{number:05d}.json")
    return where


def page_of(out: Path) -> str:
    return cr.render_report(cr.load_class(out), "en")


def test_the_page_grows_at_most_linearly_under_a_bound_per_student(
    graded: Path, tmp_path: Path
) -> None:
    small = page_of(class_of(graded, tmp_path / "small", 15))
    large = page_of(class_of(graded, tmp_path / "large", 60))
    small_n, large_n = 15 * len(BASES), 60 * len(BASES)
    grown = len(large.encode("utf-8")) - len(small.encode("utf-8"))
    assert grown <= (large_n - small_n) * BYTES_PER_STUDENT, grown / (large_n - small_n)
    assert len(large.encode("utf-8")) <= 200_000 + large_n * BYTES_PER_STUDENT


def test_past_the_budget_students_are_named_by_their_failures_and_still_linked(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = class_of(graded, tmp_path / "class", 10)
    full_page = page_of(out)
    monkeypatch.setattr(students_section, "FEEDBACK_BUDGET", 3_000)
    page = page_of(out)
    assert len(page) < len(full_page)
    data = cr.load_class(out)
    lost = [s for s in data.students if s.not_passed]
    assert lost, "the bases include honest mistakes"
    for s in data.students:  # every student keeps its place: links from the table land
        assert f'<details class="student" id="{cr.anchor("student", s.id)}">' in page
    note = cr.Labels("en")("feedback_budget", shown=1, total=len(lost))
    head = note.split("1", 1)[0]
    assert head and head in page  # the page says that it holds fewer in full
    assert page.count('<p class="hint">') < full_page.count('<p class="hint">')


def test_a_students_feedback_shows_at_most_a_fixed_number_of_checks_in_full(
    graded: Path, tmp_path: Path
) -> None:
    out = class_of(graded, tmp_path / "class", 1)
    data = cr.load_class(out)
    worst = max(data.students, key=lambda s: len(s.not_passed))
    many = max(len(s.not_passed) for s in data.students)
    page = page_of(out)
    start = page.index(f'id="{cr.anchor("student", worst.id)}"')
    block = page[start : page.index("</details>", start)]
    assert block.count("<li><p>") == min(many, students_section.MAX_ISSUES)
    for c in worst.not_passed:  # the others still named, linked to the check's details
        assert f'<a href="#{cr.anchor("check", c.id)}"><code>{c.id}</code></a>' in block


def test_a_long_message_is_cut_on_the_page() -> None:
    long = "x" * 10_000
    assert len(students_section.cut(long)) == students_section.MESSAGE_CHARS
    assert students_section.cut(long).endswith("…")
    assert students_section.cut("short") == "short"


def test_grader_report_reads_each_result_once(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading (strict, schema-checked) is most of what a large class costs: the command
    reads the class once for the lab, the page and its closing line."""
    from grader.class_report import results
    from grader.cli import report as cli

    out = class_of(graded, tmp_path / "class", 3)
    read: list[str] = []
    real = results.read_result

    def counted(path: str, **kwargs: object) -> object:
        read.append(path)
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(results, "read_result", counted)
    assert cli.main([str(out), "--html", str(tmp_path / "page.html")]) == 0
    assert len(read) == len(set(read)) == 3 * len(BASES)
    assert (tmp_path / "page.html").stat().st_size > 0
