"""`python -m grader.class_report OUT_DIR [--html FILE] [--lang L]`: `grader report`."""

import sys

from grader.cli.report import main

sys.exit(main())
