"""`python -m grader.class_report OUT_DIR [--html FILE] [--lang L]`: `grader report`."""

import sys

from grader.class_report.cli import main

sys.exit(main())
