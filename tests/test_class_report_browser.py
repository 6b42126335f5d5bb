"""End to end: the class report over every bundled sample, in a real headless browser.

Debian's `chromium` opens the page from a file (as an instructor would), runs its script,
and must log nothing to the console (no script error, no Content-Security-Policy
violation, no blocked load); after the script ran, every chart's SVG is there with its
marks, the sortable table has its buttons and the hostile id injected nothing. A
screenshot of the whole top of the page must be a real picture.

Needs the `chromium` package (Debian/Ubuntu: `apt-get install -y chromium`); the test is
skipped, saying so, only when no chromium binary exists.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

from checks import LAB
from grader import class_report as cr
from grader.grade import grade
from tests.conftest import EXPECTED, SAMPLES

CHROMIUM = next(
    (p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
     if p and Path(p).is_file()),
    None,
)  # fmt: skip
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium binary (install Debian's `chromium` package to run the browser test)",
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
)
# each chart and the fewest marks (bars, or one per student) it must have over the samples
CHARTS = {"chart-scores": 3, "chart-checks": 38, "chart-prefill": 40, "chart-cache": 40,
          "chart-cancel": 30}  # fmt: skip
HOSTILE_ID = "<img src=x onerror=console.error(1)>"


def chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run chromium once with a fresh profile; returns stdout and stderr as text."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path)  # fresh every run
    command = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args, url]
    return subprocess.run(
        command, capture_output=True, text=True, errors="replace", timeout=180, check=False
    )


def console_lines(stderr: str) -> list[str]:
    """What the page logged: chromium writes every console message as `...:CONSOLE(...)`."""
    return [
        line
        for line in stderr.splitlines()
        if ":CONSOLE" in line or "Uncaught" in line or "Content Security Policy" in line
    ]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, rubric) -> Path:
    """Every sample graded into a batch folder (ids as the batch makes them), plus a
    result whose id is an HTML injection; the report written from the results alone."""
    out = tmp_path_factory.mktemp("browser") / "out"
    (out / "results").mkdir(parents=True)
    for name in sorted(EXPECTED):
        sid = name.replace("/", "__")
        result = grade(LAB, str(SAMPLES / name), rubric, lang="en")
        (out / "results" / f"{sid}.json").write_text(result.to_json(), "utf-8")
    hostile = json.loads((out / "results" / "correct.json").read_text("utf-8"))
    (out / "results" / f"{HOSTILE_ID}.json").write_text(json.dumps(hostile), "utf-8")
    html = out / "report.html"
    cr.write_class_report(out, html, "en")
    return html


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_page_renders_in_chromium_without_console_errors(report: Path, tmp_path) -> None:
    run = chromium(tmp_path, report.as_uri(), "--dump-dom", "--virtual-time-budget=5000")
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    dom = run.stdout
    assert 'data-ready="1"' in dom and re.search(r'<html[^>]*class="js"', dom)
    for chart, fewest in CHARTS.items():
        match = re.search(rf'<svg class="chart" id="{chart}"[^>]*>(.*?)</svg>', dom, re.S)
        assert match, f"{chart} is missing"
        body = match.group(1)
        assert body.count("<text") >= 3, f"{chart} has no axis labels"
        marks = body.count('class="mark"') + body.count('class="bar"')
        assert marks >= fewest, f"{chart} has {marks} marks"
    assert dom.count('<button type="button" class="sort">') == 6  # the script made them
    assert "<img" not in dom and "&lt;img src=x onerror=console.error(1)&gt;" in dom


def test_a_link_to_a_student_opens_the_feedback(report: Path, tmp_path) -> None:
    run = chromium(
        tmp_path, report.as_uri() + "#student-correct", "--dump-dom", "--virtual-time-budget=5000"
    )
    assert run.returncode == 0 and console_lines(run.stderr) == []
    assert re.search(r'<details class="student" id="student-correct" open="">', run.stdout)
    assert not re.search(r'id="student-role_chunk_counted" open', run.stdout)


def test_the_screenshot_shows_the_page(report: Path, tmp_path) -> None:
    png = tmp_path / "class_report.png"
    run = chromium(tmp_path, report.as_uri(), f"--screenshot={png}", "--window-size=1280,4000")
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    data = png.read_bytes()
    assert png_size(data) == (1280, 4000)
    assert len(data) > 100_000  # charts and text, not a blank page (a blank one is ~20 KB)


def test_the_students_table_sorts_by_score(report: Path, tmp_path) -> None:
    """Click the score heading (ascending), as a user would: a copy of the page with one
    more script, so without the Content-Security-Policy that would refuse it."""
    page = report.read_text("utf-8")
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    click = (
        "<script>var b = document.querySelectorAll('table.sortable th button');"
        "b[1].click();</script>"
    )
    copy = tmp_path / "sorted.html"
    copy.write_text(page.replace("</body>", click + "</body>"), "utf-8")
    run = chromium(tmp_path, copy.as_uri(), "--dump-dom", "--virtual-time-budget=5000")
    assert run.returncode == 0 and console_lines(run.stderr) == []
    table = run.stdout[run.stdout.index('<table class="sortable">') :]
    table = table[: table.index("</table>")]
    cells = re.findall(r'<td class="num score" data-sort="([^"]+)">', table)
    scores = [float(v) for v in cells]
    assert len(scores) == len(list((report.parent / "results").glob("*.json")))
    assert scores == sorted(scores) and scores[0] < scores[-1]
    assert 'aria-sort="ascending"' in table
