"""The instructor's class report: one self-contained HTML page over a batch's results.

`grader report OUT_DIR [--html FILE] [--lang L] [--lab NAME]` reads a `grader batch`
folder's result files and writes FILE (default `OUT_DIR/report.html`); `grader batch …
--html FILE` calls `write_class_report` at the end of the batch. The page shows the
score distribution, the pass rate of every check and who failed it, the lab's own
sections (its charts of the class), integrity flags, and a table of students linking to
each one's feedback. It reads the result files and nothing else (a lab's measurements
travel in its results), so it can be drawn again whatever happened to the submissions.
The same results give the same bytes.

One module per job:

- `results`: reading `results/<id>.json` strictly into `Student`s (and `Unreadable`s);
- `stats`: the data behind the generic charts (score histogram, pass rates);
- `flags`, `pairs`, `integrity`: the integrity flags the lab's rules raise and the pairs
  of one run handed in twice, as data (the batch's summary.json has them too);
- `svg`, `charts`: the SVG charts, drawn by our own code (a lab's sections use them);
- `context`: what every section is drawn from (`PageContext`, `Labels`);
- `overview`, `integrity_section`, `students`: the page's generic sections;
- `page` (and `assets`, its style and script): the page, assembled;
- `cli`: `grader report` (the page is written by `page.write_class_report`, which
  `grader batch --html` calls too);
- `spec`: what a lab tells the report about itself (`ClassReportSpec`, `Section`).

Layering: the engine imports no lab; `grader.engine.labs` loads the lab and the spec its `Lab`
names (`class_report="package.module:ATTRIBUTE"`), only when a page is drawn. A lab
without a spec gets a report with no sections of its own and no integrity flags.
"""

from grader.class_report.context import Labels, PageContext, anchor
from grader.class_report.flags import Flag, flags_of, integrity_flags
from grader.class_report.page import (
    ClassData,
    load_class,
    render_page,
    render_report,
    write_class_report,
)
from grader.class_report.results import (
    CheckRow,
    Student,
    Unreadable,
    read_results,
    student_of,
)
from grader.class_report.spec import (
    INSTALLED,
    ClassReportSpec,
    FlagRule,
    PairSpec,
    Section,
    spec_of,
)
from grader.class_report.stats import (
    CheckRate,
    Histogram,
    ScoreBin,
    pass_rates,
    score_histogram,
)
from grader.engine.result import STATUSES
from grader.words.i18n import LANGUAGES

__all__ = [
    "INSTALLED",
    "LANGUAGES",
    "STATUSES",
    "CheckRate",
    "CheckRow",
    "ClassData",
    "ClassReportSpec",
    "Flag",
    "FlagRule",
    "Histogram",
    "Labels",
    "PageContext",
    "PairSpec",
    "ScoreBin",
    "Section",
    "Student",
    "Unreadable",
    "anchor",
    "flags_of",
    "integrity_flags",
    "load_class",
    "pass_rates",
    "read_results",
    "render_page",
    "render_report",
    "score_histogram",
    "spec_of",
    "student_of",
    "write_class_report",
]
