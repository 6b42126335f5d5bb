"""The instructor's class report: one self-contained HTML page over a batch's results.

`grader report OUT_DIR [--html FILE] [--lang L]` reads a finished `grader batch` folder
and writes FILE (default `OUT_DIR/report.html`); `grader batch … --html FILE` calls
`write_class_report` at the end of the batch. The page shows the score distribution, the
pass rate of every check and who failed it, the lab's physics across the class, integrity
flags, and a table of students linking to each one's feedback. The same results give the
same bytes.

One module per job:

- `results`: reading `results/<id>.json` strictly into `Student`s (and `Unreadable`s);
- `physics`: the measured numbers per student, extracted from the submissions and kept
  in `physics.json` (read back as strictly);
- `stats`: the data behind each chart and table;
- `flags`: the integrity flags the lab's rules raise;
- `page` (and `assets`, its style and script): the HTML, assembled and escaped;
- `cli`: `grader report`, and `write_class_report` for `grader batch --html`;
- `spec`: what a lab tells the report about itself (`ClassReportSpec`).

Layering: the engine in `grader/` imports no lab. The lab is named, as `grader batch`
names it ("checks:LAB" by default), and imported by that name; its `Lab.class_report`
names its `ClassReportSpec` ("package.module:ATTRIBUTE"), imported only when a report is
drawn. Which artifacts hold the physics, which check ids colour the charts and which
raise which integrity flag is there, in the lab's package; a lab without a spec gets a
report with no physics charts and no integrity flags.
"""

from grader.class_report.cli import (
    EXIT_USAGE,
    EXIT_WRITTEN,
    add_report_parser,
    main,
    run_report,
    write_class_report,
)
from grader.class_report.flags import Flag, flags_of, integrity_flags
from grader.class_report.page import ClassData, Labels, anchor, load_class, render_report
from grader.class_report.physics import (
    PHYSICS_FILE,
    PHYSICS_VERSION,
    CacheRun,
    CancelRun,
    Physics,
    PrefillEntry,
    extract_physics,
    physics_json,
    physics_of,
    read_physics,
    write_physics,
)
from grader.class_report.results import (
    LANGUAGES,
    STATUSES,
    CheckRow,
    Student,
    Unreadable,
    read_results,
    student_of,
)
from grader.class_report.spec import (
    ClassReportSpec,
    FlagRule,
    PhysicsSpec,
    spec_of,
)
from grader.class_report.stats import (
    CachePoint,
    CancelPoint,
    CheckRate,
    Histogram,
    PrefillLine,
    ScoreBin,
    cache_points,
    cancel_points,
    pass_rates,
    prefill_lines,
    score_histogram,
)

__all__ = [
    "EXIT_USAGE",
    "EXIT_WRITTEN",
    "LANGUAGES",
    "PHYSICS_FILE",
    "PHYSICS_VERSION",
    "STATUSES",
    "CachePoint",
    "CacheRun",
    "CancelPoint",
    "CancelRun",
    "CheckRate",
    "CheckRow",
    "ClassData",
    "ClassReportSpec",
    "Flag",
    "FlagRule",
    "Histogram",
    "Labels",
    "Physics",
    "PhysicsSpec",
    "PrefillEntry",
    "PrefillLine",
    "ScoreBin",
    "Student",
    "Unreadable",
    "add_report_parser",
    "anchor",
    "cache_points",
    "cancel_points",
    "extract_physics",
    "flags_of",
    "integrity_flags",
    "load_class",
    "main",
    "pass_rates",
    "physics_json",
    "physics_of",
    "prefill_lines",
    "read_physics",
    "read_results",
    "render_report",
    "run_report",
    "score_histogram",
    "spec_of",
    "student_of",
    "write_class_report",
    "write_physics",
]
