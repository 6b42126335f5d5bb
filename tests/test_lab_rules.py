"""The lab's own rules, one behaviour at a time, on the real correct capture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checks.numbers import median, medians
from checks.sentence import first_sentence
from tests.conftest import check_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fast overnight. Drink water.", "Fast overnight."),
        ("Take 3.5 mg. Then rest.", "Take 3.5 mg."),
        ("Open 8 a.m. to noon. Closed Sunday.", "Open 8 a.m."),
        ("Open at 8 a.m.", "Open at 8 a.m."),
        ("Is it fasting?\nYes.", "Is it fasting?"),
        ("No boundary at all.", "No boundary at all."),
        ("", ""),
    ],
)
def test_first_sentence_ends_at_punctuation_followed_by_whitespace(
    text: str, expected: str
) -> None:
    assert first_sentence(text) == expected


def test_median_of_five_is_the_third_sorted_value() -> None:
    assert medians([5, 1, 4, 2, 3]) == [3]


def test_median_of_an_even_count_accepts_either_middle_or_their_mean() -> None:
    assert medians([1, 2, 3, 4]) == [2, 3, 2.5]


@pytest.mark.parametrize("values", [[5.0], [3.1, 1.2], [0.2, 0.1, 0.3], [4, 1, 3, 2], [1e-9, 7.5]])
def test_the_ordinary_median_is_the_one_statistics_gives(values: list[float]) -> None:
    import statistics

    assert median(iter(values)) == statistics.median(values)


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


def test_report_rounded_to_one_decimal_still_copies_its_sources(
    grade_folder, submission: Path
) -> None:
    edit(submission / "report.json", lambda d: d.update({k: round(v, 1) for k, v in d.items()}))
    assert check_of(grade_folder(submission), "report.copies_sources").status == "passed"


def test_report_failure_names_the_source_file_and_field(grade_folder, submission: Path) -> None:
    edit(submission / "report.json", lambda d: d.update(cache_ttft_ms=99.0))
    check = check_of(grade_folder(submission), "report.copies_sources")
    assert check.status == "failed" and "cache.json" in (check.message or "")
    assert (check.expected, check.found) == (68.122, 99.0)


def test_a_log_without_timing_lines_confirms_nothing_and_its_numbers_earn_nothing(
    grade_folder, submission: Path
) -> None:
    log = submission / "server.log"
    log.write_text(
        "".join(
            line for line in log.read_text("utf-8").splitlines(True) if "print_timing" not in line
        )
    )
    result = grade_folder(submission)
    check = check_of(result, "log.intact")
    assert check.status == "failed" and check.message_id == "log.intact.no_timings"
    assert check_of(result, "prefill.cache_off").status == "skipped"
    assert check_of(result, "prefill.cache_off").points == 0


def test_cancel_rate_falls_back_to_the_sse_timings_without_ttft(
    grade_folder, submission: Path
) -> None:
    (submission / "ttft.json").unlink()
    edit(submission / "cancel.json", lambda d: d.update(slot_idle_after_ms=5000.0))
    check = check_of(grade_folder(submission), "cancel.slot_freed")
    assert check.status == "failed" and "sse_raw.txt" in (check.message or "")


def test_sse_py_with_http_client_imported_from_http_passes(grade_folder, submission: Path) -> None:
    path = submission / "sse.py"
    path.write_text(
        path.read_text("utf-8").replace("import http.client", "from http import client"), "utf-8"
    )
    assert check_of(grade_folder(submission), "sse_py.static").status == "passed"


def test_sse_py_with_a_different_default_fails_showing_both_signatures(
    grade_folder, submission: Path
) -> None:
    path = submission / "sse.py"
    path.write_text(
        path.read_text("utf-8").replace(
            "max_tokens=64, cache_prompt=True, raw_out", "max_tokens=32, cache_prompt=True, raw_out"
        ),
        "utf-8",
    )
    check = check_of(grade_folder(submission), "sse_py.static")
    assert check.status == "failed" and "max_tokens=32" in str(check.found)


def test_sse_py_imports_http_client_only_by_that_modules_name() -> None:
    """`import http.client`, `from http.client import ...` and `from http import client`
    import it; `import http`, `from http import server` and a module merely named alike
    do not."""
    from checks.source import outline

    def imports(code: str) -> bool:
        return "http.client" in outline(code).imports

    for code in ("import http.client as h", "from http.client import HTTPConnection"):
        assert imports(code), code
    assert imports("def f():\n    from http import client")  # anywhere in the file
    for code in ("import http", "from http import server", "import http.client_x"):
        assert not imports(code), code


def test_sse_py_is_kept_as_the_heads_of_its_functions_not_its_tree(rubric) -> None:
    """A syntax tree weighs some 40 times its source: the artifact keeps what the check
    reads (the top-level functions without their bodies, the modules imported) beside
    the text."""
    from checks import LAB
    from checks.source import Outline
    from grader.engine.grade import load_artifacts
    from tests.conftest import CORRECT

    source = load_artifacts(LAB, str(CORRECT), {}, rubric.make_limits(LAB.limits))["sse_py"]
    assert isinstance(source.value, Outline) and "http.client" in source.value.imports
    stream = [f for f in source.value.functions if f.name == "stream"][-1]
    assert not stream.is_async and stream.positional[:2] == ("messages", "max_tokens")


def test_sse_py_is_never_run(grade_folder, submission: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (submission / "sse.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\nimport http.client\n"
        "def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):\n"
        "    conn = http.client.HTTPConnection('127.0.0.1', 8080)\n"
        "    conn.getresponse().readline()\n    conn.close()\n",
        "utf-8",
    )
    assert check_of(grade_folder(submission), "sse_py.static").status == "passed"
    assert not marker.exists()


@pytest.mark.parametrize("default", ["0x" + "f" * 4000, "{[]: 1}", "(" * 50 + "1" + ")" * 50])
def test_sse_py_with_an_absurd_default_fails_cleanly(
    grade_folder, submission: Path, default: str
) -> None:
    path = submission / "sse.py"
    path.write_text(
        path.read_text("utf-8").replace("raw_out=None):", f"raw_out={default}):", 1), "utf-8"
    )
    assert check_of(grade_folder(submission), "sse_py.static").status == "failed"


def test_a_task_line_after_the_servers_end_of_run_line_fails_the_log(
    grade_folder, submission: Path
) -> None:
    log = submission / "server.log"
    lines = log.read_text("utf-8").splitlines(True)
    end = lines.pop()  # "cleaning up before exit", moved before the last task's launch
    launch = max(i for i, line in enumerate(lines) if "processing task" in line)
    log.write_text("".join([*lines[:launch], end, *lines[launch:]]), "utf-8")
    check = check_of(grade_folder(submission), "log.intact")
    assert check.status == "failed" and check.message_id == "log.intact.after_end"
    assert check.found == launch + 2
