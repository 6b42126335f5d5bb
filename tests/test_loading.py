"""Loading: hostile files get a specific message on their own artifact, never a crash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import check_of, statuses


def artifact(result, name: str):
    return next(a for a in result.artifacts if a.name == name)


def test_missing_file_is_missing_and_its_checks_are_skipped(grade_folder, submission: Path) -> None:
    (submission / "cancel.json").unlink()
    result = grade_folder(submission)
    assert artifact(result, "cancel").status == "missing"
    assert check_of(result, "cancel.schema").status == "failed"
    assert check_of(result, "cancel.slot_freed").status == "skipped"
    assert "cancel.json" in (check_of(result, "cancel.slot_freed").message or "")


def test_a_missing_file_names_the_misspelt_one_the_folder_has(
    grade_folder, submission: Path
) -> None:
    (submission / "ttft.json").rename(submission / "ttf.json")
    result = grade_folder(submission)
    assert artifact(result, "ttft").status == "missing"
    assert "ttf.json" in (check_of(result, "ttft.schema").message or "")


def test_symlink_is_refused_even_when_it_points_inside(grade_folder, submission: Path) -> None:
    (submission / "health.json").rename(submission / "real_health.json")
    os.symlink("real_health.json", submission / "health.json")
    result = grade_folder(submission)
    assert artifact(result, "health").status == "refused"
    assert "symbolic link" in (check_of(result, "health.schema").message or "")


def test_symlink_to_dev_zero_is_refused_without_reading(grade_folder, submission: Path) -> None:
    (submission / "ttft.json").unlink()
    os.symlink("/dev/zero", submission / "ttft.json")
    assert artifact(grade_folder(submission), "ttft").status == "refused"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_blocking(grade_folder, submission: Path) -> None:
    (submission / "ttft.json").unlink()
    os.mkfifo(submission / "ttft.json")
    result = grade_folder(submission)
    assert artifact(result, "ttft").status == "refused"
    assert "FIFO" in (check_of(result, "ttft.schema").message or "")


def test_directory_in_place_of_a_file_is_refused(grade_folder, submission: Path) -> None:
    (submission / "cache.json").unlink()
    (submission / "cache.json").mkdir()
    assert artifact(grade_folder(submission), "cache").status == "refused"


def test_file_over_the_size_cap_is_refused_before_reading(grade_folder, submission: Path) -> None:
    from grader.reading.limits import Limits

    with open(submission / "sse_raw.txt", "ab") as handle:
        handle.truncate(2 * 1024 * 1024)
    result = grade_folder(submission, limits=Limits(file_bytes=1024 * 1024))
    assert artifact(result, "sse").status == "refused"
    assert "over the limit" in (check_of(result, "sse.schema").message or "")


def test_utf8_bom_is_tolerated(grade_folder, submission: Path) -> None:
    path = submission / "cancel.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert artifact(grade_folder(submission), "cancel").status == "valid"


def test_utf16_file_is_invalid_with_an_encoding_message(grade_folder, submission: Path) -> None:
    path = submission / "cancel.json"
    path.write_bytes(path.read_text("utf-8").encode("utf-16"))
    result = grade_folder(submission)
    assert artifact(result, "cancel").status == "invalid"
    assert "UTF-16" in (check_of(result, "cancel.schema").message or "")


def test_invalid_utf8_names_the_line(grade_folder, submission: Path) -> None:
    path = submission / "cache.json"
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3] + b"\xff"
    path.write_bytes(b"\n".join(lines))
    check = check_of(grade_folder(submission), "cache.schema")
    assert check.location is not None and check.location.line == 4


def test_one_broken_artifact_leaves_the_others_graded(grade_folder, submission: Path) -> None:
    (submission / "prefill.json").write_text("[{", "utf-8")
    status = statuses(grade_folder(submission))
    assert status["prefill.schema"] == "failed"
    assert status["ttft.before_total"] == "passed"
    assert status["cache.first_is_miss"] == "passed"  # uses prefill only when it is valid


def test_a_parser_that_gives_up_on_a_file_names_the_file(rubric) -> None:
    """A parser's ValueError on hostile input makes the file invalid, said in a sentence."""
    import hashlib

    from checks import LAB
    from grader.engine.grade import catalog_for
    from grader.reading.files import RawFile
    from grader.reading.loading import ArtifactSpec, Read, parse

    def gives_up(text: str, file: str, limits: object) -> object:
        raise ValueError("too odd")

    data = b"{}"
    raw = RawFile("odd.json", data, hashlib.sha256(data).hexdigest(), len(data))
    artifact = parse(
        ArtifactSpec("odd", "odd.json", gives_up), Read("odd.json", raw), rubric.make_limits()
    )
    problem = artifact.problems[0]
    text = catalog_for(LAB, "en").text(problem.message_id, problem.params)
    assert artifact.status == "invalid" and text == "odd.json could not be parsed (ValueError)."


def test_loading_keeps_each_files_hash_and_size_but_not_its_bytes(rubric, submission: Path) -> None:
    """Once a file is decoded and hashed nothing needs its bytes (nothing downstream
    re-reads a file), so a near-cap submission is not held as bytes beside its text."""
    import hashlib

    from checks import LAB
    from grader.engine.grade import load_each

    got, artifacts = load_each(LAB, str(submission), {}, rubric.make_limits(LAB.limits))
    data = (submission / "server.log").read_bytes()
    for facts in (got["log"].raw, artifacts["log"].raw):
        assert facts is not None and facts.data == b""
        assert (facts.size, facts.sha256) == (len(data), hashlib.sha256(data).hexdigest())
    assert artifacts["log"].status == "valid"


def test_a_file_marked_parse_last_is_parsed_after_the_others_in_the_labs_order(
    rubric, submission: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sse.py (`parse_last`) is parsed once every other file is, which moves the peak of
    its syntax tree past the large files; the artifacts still come in the lab's order."""
    from checks import LAB
    from grader.engine import grade

    parsed: list[str] = []
    parse_decoded = grade.parse_decoded

    def recording(spec, got, text, limits):  # type: ignore[no-untyped-def]
        parsed.append(spec.name)
        return parse_decoded(spec, got, text, limits)

    monkeypatch.setattr(grade, "parse_decoded", recording)
    _, artifacts = grade.load_each(LAB, str(submission), {}, rubric.make_limits(LAB.limits))
    names = [spec.name for spec in LAB.artifacts]
    assert parsed == [n for n in names if n != "sse_py"] + ["sse_py"]
    assert list(artifacts) == names
    assert artifacts["sse_py"].status == "valid"


def test_a_grade_loads_and_checks_without_the_collector_which_resumes_after(
    rubric, submission: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector is paused while a grade parses every file and runs the checks, and
    running again afterwards, whether the grade finished or not."""
    import gc

    from checks import LAB
    from grader.engine import grade

    seen: list[bool] = []
    parse_decoded, run_checks = grade.parse_decoded, grade.run_checks

    def parsing(spec, got, text, limits):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return parse_decoded(spec, got, text, limits)

    def checking(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return run_checks(*args, **kwargs)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug in a check")

    monkeypatch.setattr(grade, "parse_decoded", parsing)
    monkeypatch.setattr(grade, "run_checks", checking)
    grade.grade(LAB, str(submission), rubric)
    assert seen == [False] * (len(LAB.artifacts) + 1) and gc.isenabled()
    monkeypatch.setattr(grade, "run_checks", broken)
    with pytest.raises(RuntimeError):
        grade.grade(LAB, str(submission), rubric)
    assert gc.isenabled()


def test_a_grade_leaves_a_paused_collector_paused(rubric, submission: Path) -> None:
    """A caller that paused the collector itself finds it paused after a grade."""
    import gc

    from checks import LAB
    from grader.engine import grade

    gc.disable()
    try:
        grade.grade(LAB, str(submission), rubric)
        assert not gc.isenabled()
    finally:
        gc.enable()
