"""End to end: the class report over every bundled sample, in a real headless browser.

Debian's `chromium` opens the page from a file (as an instructor would), runs its script,
and must log nothing to the console (no script error, no Content-Security-Policy
violation, no blocked load); after the script ran, every chart's SVG is there with its
marks, the sortable table has its buttons and the hostile id injected nothing.

What a screenshot can prove is measured in the browser, at 1400 and at 800 px wide, by a
script in a copy of the page (`measure`): nothing wider than the window, no chart drawn
larger than its own size, no text smaller than 10 px (an SVG's text as the chart is
scaled, the pass-rate rows' as the page's own), no two labels of the score histogram
overlapping, the students table in the page's flow (no box that scrolls, so it prints
whole) and a page of sensible height. The screenshots themselves must be pictures, and
the page prints to a PDF of a sensible number of pages. No golden image: fonts differ
between machines, these facts don't.

Needs the `chromium` package (Debian/Ubuntu: `apt-get install -y chromium`); the test is
skipped, saying so, only when no chromium binary exists.
"""

from __future__ import annotations

import html
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
from grader.engine.grade import grade
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
# each chart and the fewest marks (bars, or one per place students are at) it must have
CHARTS = {"chart-scores": 3, "chart-prefill": 5, "chart-cache": 5, "chart-cancel": 3}
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
    assert dom.count('<a class="rate" href="#check-') >= 20  # the pass rates, one row each
    assert dom.count('<button type="button" class="sort">') == 6  # the script made them
    assert "<img" not in dom and "&lt;img src=x onerror=console.error(1)&gt;" in dom


def test_a_link_to_a_student_opens_the_feedback(report: Path, tmp_path) -> None:
    run = chromium(
        tmp_path, report.as_uri() + "#student-correct", "--dump-dom", "--virtual-time-budget=5000"
    )
    assert run.returncode == 0 and console_lines(run.stderr) == []
    assert re.search(r'<details class="student" id="student-correct" open="">', run.stdout)
    assert not re.search(r'id="student-role_chunk_counted" open', run.stdout)


@pytest.mark.parametrize("width", [1400, 800])
def test_the_screenshot_shows_the_page(report: Path, tmp_path, width: int) -> None:
    png = tmp_path / "class_report.png"
    run = chromium(tmp_path, report.as_uri(), f"--screenshot={png}", f"--window-size={width},2400")
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_lines(run.stderr) == []
    data = png.read_bytes()
    assert png_size(data) == (width, 2400)
    assert len(data) > 60_000  # charts and text, not a blank page (a blank one is ~10 KB)


MEASURE = """
<script>
(function () {
  var vw = window.innerWidth, out = {viewport: vw};
  out.scroll_width = document.documentElement.scrollWidth;
  out.page_height = document.documentElement.scrollHeight;
  function visible(el) { return el.getClientRects().length > 0; }
  out.charts = [];
  Array.prototype.forEach.call(document.querySelectorAll("svg.chart"), function (svg) {
    if (!visible(svg)) { return; }
    var box = svg.getBoundingClientRect(), natural = svg.viewBox.baseVal.width;
    var scale = box.width / natural, smallest = 1e9;
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
      var size = parseFloat(t.getAttribute("font-size") || "12") * scale;
      smallest = Math.min(smallest, size);
    });
    var outside = Array.prototype.filter.call(svg.querySelectorAll("text"), function (t) {
      var r = t.getBoundingClientRect();
      return r.width && (r.right > box.right + 1 || r.left < box.left - 1);
    }).length;
    out.charts.push({id: svg.id, width: box.width, natural: natural, right: box.right,
                     smallest_text: smallest, text_outside: outside});
  });
  var rates = document.querySelectorAll("ol.rates a.rate code, ol.rates .rnote");
  out.rates_text = Math.min.apply(null, Array.prototype.map.call(rates, function (el) {
    return parseFloat(getComputedStyle(el).fontSize);
  }));
  var hist = document.querySelector(".wide-only svg#chart-scores, .narrow-only svg");
  Array.prototype.forEach.call(document.querySelectorAll("svg[id^=chart-scores]"), function (h) {
    if (visible(h)) { hist = h; }
  });
  var boxes = Array.prototype.map.call(hist.querySelectorAll("text"), function (t) {
    return t.getBoundingClientRect();
  });
  out.overlaps = 0;
  for (var i = 0; i < boxes.length; i++) {
    for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i], b = boxes[j];
      if (a.width && b.width && a.left < b.right - 1 && b.left < a.right - 1 &&
          a.top < b.bottom - 1 && b.top < a.bottom - 1) { out.overlaps++; }
    }
  }
  out.boxes_scrolling_sideways = Array.prototype.filter.call(
    document.querySelectorAll(".scroll"), function (b) {
      return visible(b) && b.scrollWidth > b.clientWidth + 1; }).length;
  var table = document.querySelector("table.sortable"), box = table.parentElement;
  var style = getComputedStyle(box);
  out.table_in_flow = style.overflowY === "visible" && style.maxHeight === "none" &&
                      box.scrollHeight <= box.clientHeight + 1;
  var pre = document.createElement("pre");
  pre.id = "measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def measured(report: Path, tmp_path: Path, width: int) -> dict:
    """The page's layout facts at `width` px, measured by a script in a copy of the page
    (without the Content-Security-Policy, which would refuse it)."""
    page = report.read_text("utf-8")
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    copy = tmp_path / f"measure-{width}.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), "utf-8")
    run = chromium(
        tmp_path, copy.as_uri(), "--dump-dom", "--virtual-time-budget=5000",
        f"--window-size={width},2400",
    )  # fmt: skip
    assert run.returncode == 0 and console_lines(run.stderr) == []
    found = re.search(r'<pre id="measure">(.*?)</pre>', run.stdout, re.S)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module", params=[1400, 800])
def layout(request, report: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return measured(report, tmp_path_factory.mktemp("layout"), request.param)


def test_nothing_is_wider_than_the_window(layout: dict) -> None:
    assert layout["scroll_width"] <= layout["viewport"]
    assert all(c["right"] <= layout["viewport"] + 0.5 for c in layout["charts"])


def test_no_table_box_scrolls_sideways(layout: dict) -> None:
    """The flags and pairs tables wrap their long ids and evidence to the window."""
    assert layout["boxes_scrolling_sideways"] == 0


def test_no_chart_text_runs_past_its_chart(layout: dict) -> None:
    assert [c["id"] for c in layout["charts"] if c["text_outside"]] == []


def test_long_translated_chart_titles_stay_inside_their_chart(report: Path, tmp_path) -> None:
    """Japanese titles are the longest (the KV-cache chart's is twice the English one)."""
    japanese = report.with_name("report-ja.html")
    cr.write_class_report(report.parent, japanese, "ja")
    charts = measured(japanese, tmp_path, 800)["charts"]
    assert charts and [c["id"] for c in charts if c["text_outside"]] == []


def test_no_chart_is_drawn_larger_than_its_own_size(layout: dict) -> None:
    assert layout["charts"] and all(c["width"] <= c["natural"] + 0.5 for c in layout["charts"])


def test_every_chart_s_text_stays_legible(layout: dict) -> None:
    small = [(c["id"], round(c["smallest_text"], 1)) for c in layout["charts"]]
    assert all(size >= 10 for _, size in small), small


def test_the_pass_rates_are_text_of_the_page_s_own_size(layout: dict) -> None:
    assert layout["rates_text"] >= 12


def test_no_two_labels_of_the_score_histogram_overlap(layout: dict) -> None:
    assert layout["overlaps"] == 0


def test_the_students_table_is_in_the_page_s_flow_so_it_prints_whole(layout: dict) -> None:
    assert layout["table_in_flow"]


def test_the_page_has_a_sensible_height(layout: dict) -> None:
    assert 3000 < layout["page_height"] < 40000


def test_the_page_prints_to_a_pdf_of_sensible_length(report: Path, tmp_path) -> None:
    pdf = tmp_path / "class_report.pdf"
    run = chromium(tmp_path, report.as_uri(), f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    assert run.returncode == 0, run.stderr[-2000:]
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page\b", data))
    assert 4 <= pages <= 80, pages


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
