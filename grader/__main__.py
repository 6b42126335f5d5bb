"""`python -m grader` is the `grader` command.

The working directory, which `-m` put first on `sys.path`, goes before anything else
is imported: it may be a submission holding modules of the student's (see
`grader.system.syspath`).
"""

import sys

from grader.system.syspath import drop_working_directory

drop_working_directory()

from grader.cli.main import console  # noqa: E402  (only now: see above)

sys.exit(console())
