"""No English sentence reaches a ja, ko or zh reader, in any output of any sample.

Every sample folder (`sample_submissions/**` and the real captures of `tests/data/real`)
is graded in ja, ko and zh and rendered in every format, as a student (text, markdown)
or a platform shows it (json's, gradescope's, prairielearn's human fields, junit's
messages); a class made of samples goes through `grader batch` and `grader report`;
every command's `--help`, its usage errors and `grader explain` of every check are read
too. Each text is scanned for English prose (`tests/english.py` says what is code and
what the lab keeps in English). Grading runs in-process, once per sample and language.
"""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import NotGradable, catalog_for, grade, not_gradable
from grader.engine.result import Result
from grader.engine.rubric import load_lab_rubric
from grader.render import FORMATS, RenderOptions, renderer
from tests.conftest import REAL, ROOT, SAMPLES, hand_in_zips
from tests.english import (
    english_runs,
    html_texts,
    json_texts,
    squeezed,
    student_strings,
    xml_texts,
)

LANGS = ("ja", "ko", "zh")
IDS = tuple(artifact.name for artifact in LAB.artifacts)
NOT_A_SUBMISSION = {"README.md", "EXPECTED.json"}
COMMANDS = ("check", "checks", "labs", "explain", "batch", "report", "export")


def _sample_folders() -> list[Path]:
    """Every folder that holds a sample's files, at any depth."""
    return sorted(
        {
            path.parent
            for base in (SAMPLES, REAL)
            for path in base.rglob("*")
            if path.is_file() and path.name not in NOT_A_SUBMISSION
        }
    )


FOLDERS = _sample_folders()


@pytest.fixture(autouse=True)
def no_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only `--lang` chooses the language; the terminal is 80 columns wide."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("COLUMNS", "80")


@cache
def _source(folder: Path) -> str:
    """The text of a submission's files: what in a report is the student's own."""
    return squeezed(
        " ".join(
            path.read_text("utf-8", "replace")
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        )
    )


@cache
def _graded(lang: str) -> list[tuple[Path, Result]]:
    rubric = load_lab_rubric(LAB, None, "checks")
    results = []
    for folder in FOLDERS:
        try:
            result = grade(LAB, str(folder), rubric, lang=lang)
        except NotGradable as exc:
            result = not_gradable(LAB, str(folder), rubric.version, exc.problem, lang)
        results.append((folder, result))
    return results


def _read(fmt: str, output: str) -> str:
    """What a person reads of one output: all of a page, the human fields of a document
    (one per line, with a `|` between them that no run of words crosses)."""
    if fmt in ("json", "gradescope", "prairielearn"):
        return "\n|\n".join(json_texts(json.loads(output)))
    if fmt in ("junit", "junit-gitlab"):
        return "\n|\n".join(xml_texts(output))
    return output


def _findings(texts: Iterable[str], where: str, **known: object) -> list[str]:
    return [f"{where}: {run}" for text in texts for run in english_runs(text, **known)]  # type: ignore[arg-type]


# --- the scan finds what it should, and only that ----------------------------------------


def test_the_scan_finds_an_english_sentence() -> None:
    assert english_runs("ttft.json: the first token comes before the end") == [
        "the first token comes before the end"
    ]
    assert english_runs("期待値: text not empty") == ["text not empty"]


def test_the_scan_passes_code_names_and_the_terms_the_lab_keeps() -> None:
    text = (
        "`voice-llm log > server.log`を実行し、cache.hit_faster、prompt_n、--out DIR、"
        "0.5 s、https://example.org/a b、「loading model」、llama-serverの`cancel task`、"
        "true, false, null、grader check、cache, cancel, log"
    )
    assert english_runs(text, ids=IDS) == []


def test_the_scan_passes_the_students_own_text() -> None:
    said = "first_sentenceは「Bring your card.」ではなく Bring your card and ID"
    assert english_runs(said, source="Bring your card and ID. Thanks.") == []
    assert english_runs("found: Bring your card", student=["Bring your card"]) == []


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_scan_reads_the_english_of_every_format(fmt: str) -> None:
    """The same scan, over an English report, finds the English: it reads the real texts."""
    folder, result = next((f, r) for f, r in _graded_en() if f.name == "role_chunk_counted")
    output = renderer(fmt)(result, RenderOptions(catalog_for(LAB, "en")))
    assert _findings([_read(fmt, output)], folder.name, ids=IDS)


@cache
def _graded_en() -> list[tuple[Path, Result]]:
    rubric = load_lab_rubric(LAB, None, "checks")
    return [(f, grade(LAB, str(f), rubric, lang="en")) for f in (REAL / "role_chunk_counted",)]


# --- every sample, every format ------------------------------------------------------------


def _shows(result: Result) -> set[tuple[object, ...]]:
    """What a result has a format say: each check's message and status, each file
    problem's message, and whether it is gradable, with format errors, files found in
    a subfolder or the grader's own error."""
    shown: set[tuple[object, ...]] = {(c.message_id, c.status) for c in result.checks}
    shown |= {(p.message_id,) for a in result.artifacts for p in a.problems}
    frame = (result.gradable, bool(result.format_errors), bool(result.files_in))
    return shown | {(*frame, result.grader_error)}


def _covering(results: list[tuple[Path, Result]]) -> list[tuple[Path, Result]]:
    """The fewest results (chosen greedily) that between them show all that every
    result shows (`_shows`): a document format carries the report's messages in its
    own frame, so these say all it can say about the samples."""
    left = set().union(*(_shows(result) for _, result in results))
    chosen = []
    while left:
        best = max(results, key=lambda pair: len(_shows(pair[1]) & left))
        chosen.append(best)
        left -= _shows(best[1])
    return chosen


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_english_in_any_sample_in_any_format(lang: str, fmt: str) -> None:
    """Every sample in the student's formats, text (as it is, `-v` and `-q`) and markdown; in
    the formats a platform reads, the samples that between them show every message."""
    catalog = catalog_for(LAB, lang)
    readers = fmt in ("text", "markdown")
    variants = [RenderOptions(catalog)]  # (only text has a `-v` and a `-q`)
    variants += [RenderOptions(catalog, verbose=True), RenderOptions(catalog, quiet=True)] * (
        fmt == "text"
    )
    graded = _graded(lang) if readers else _covering(_graded(lang))
    found = []
    for folder, result in graded:
        known = {"student": student_strings(result), "source": _source(folder), "ids": IDS}
        where = folder.relative_to(ROOT).as_posix()
        for options in variants:
            found += _findings([_read(fmt, renderer(fmt)(result, options))], where, **known)
    assert len(FOLDERS) > 100
    assert found == []


# --- the command line ----------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Everything `grader ARGV` prints, on both streams, whatever its exit."""
    with contextlib.suppress(SystemExit):
        main(list(argv))
    captured = capsys.readouterr()
    return captured.out + captured.err


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_in_the_help_of_any_command(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    found = _findings([_run(capsys, "--lang", lang, "--help")], "grader --help")
    for command in COMMANDS:
        said = _run(capsys, command, "--lang", lang, "--help")
        found += _findings([said], f"grader {command} --help")
    assert found == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_in_what_the_command_line_says_when_used_wrong(
    capsys: pytest.CaptureFixture[str], lang: str, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    wrong = (
        ["check"],
        ["check", "--format", "yaml"],
        ["check", str(tmp_path / "absent")],
        ["check", str(tmp_path / "empty")],
        ["check", str(tmp_path / "empty"), "--format", "json"],
        ["check", "--sample", "no_such_sample"],
        ["check", "--rubric", str(tmp_path / "absent.toml"), str(REAL / "correct")],
        ["checks", "--verbose"],
        ["explain", "cache.hit_fast"],
        ["batch"],
        ["batch", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--jobs", "none"],
        ["report", str(tmp_path / "absent")],
        ["report", str(tmp_path / "empty")],
    )
    found = []
    for argv in wrong:
        found += _findings([_run(capsys, *argv, "--lang", lang)], " ".join(argv[:2]))
    assert found == []


@pytest.mark.parametrize("locale", ["ja_JP.UTF-8", "ko_KR.UTF-8", "zh_CN.UTF-8"])
def test_no_english_when_the_language_comes_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, locale: str
) -> None:
    """No `--lang`: LANG chooses, for help, the missing default folder and its hint
    (`grader check --sample correct`), and a report."""
    monkeypatch.setenv("LANG", locale)
    said = _run(capsys, "--help") + _run(capsys, "check") + _run(capsys, "check", "--help")
    said += _run(capsys, "check", str(REAL / "no_close_on_cancel"))
    assert "--sample correct" in said
    assert _findings([said], locale, ids=IDS, source=_source(REAL / "no_close_on_cancel")) == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_in_the_explanation_of_any_check(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    found = []
    for check_id in LAB.all_check_ids():
        said = _run(capsys, "explain", check_id, "--lang", lang)
        found += _findings([said], f"explain {check_id}", ids=IDS)
    assert found == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_in_checks_and_labs(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    said = _run(capsys, "checks", "--lang", lang) + _run(capsys, "labs", "--lang", lang)
    assert _findings([said], "checks, labs", ids=IDS) == []


# --- a class: batch and report ---------------------------------------------------------------


@pytest.fixture(scope="module")
def classroom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Samples as a class hands them in: folders, one in a subfolder `llm/`, an empty
    one, a zip with members that are not extracted, and a zip that is none."""
    room = tmp_path_factory.mktemp("class")
    for name in ("correct", "no_cache_ram_flag", "no_close_on_cancel"):
        shutil.copytree(REAL / name, room / name)
    shutil.copytree(REAL / "role_chunk_counted", room / "dana" / "llm")
    shutil.copytree(SAMPLES / "derived" / "sse_py_syntax_error", room / "erin")
    (room / "empty").mkdir()
    hand_in_zips(room, REAL / "cache_on_in_prefill")
    return room


def _gradebook_texts(out: Path) -> list[str]:
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        return [cell for row in csv.DictReader(handle) for cell in (row["error"], row["note"])]


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_in_a_batch_its_class_report_or_its_feedback_files(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    classroom: Path,
    tmp_path: Path,
    lang: str,
) -> None:
    """The gradebook's error and note cells, summary.json's human fields, the progress
    bar and the last line on the terminal; the class page and what report says; the
    feedback files `grader export` writes, one per student."""
    out = tmp_path / "out"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the progress bar is drawn
    said = _run(capsys, "batch", str(classroom), "--out", str(out), "--jobs", "1", "--lang", lang)
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    texts = [said, *_gradebook_texts(out), *json_texts(summary)]
    found = _findings(texts, "batch", ids=IDS)
    said = _run(capsys, "report", str(out), "--lang", lang)
    page = (out / "report.html").read_text("utf-8")
    found += _findings([said, *html_texts(page)], "report", ids=IDS)
    assert "report.html" in said
    said = _run(capsys, "export", str(out), "--feedback", str(tmp_path / "mail"), "--lang", lang)
    mails = [path.read_text("utf-8") for path in sorted((tmp_path / "mail").iterdir())]
    found += _findings([said, *mails], "export", ids=IDS, source=_source(classroom))
    assert len(mails) == 8
    assert found == []
