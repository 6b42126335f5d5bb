"""An offline grader for labs whose students hand in the files their work produced.

The engine (this package) knows how to load files safely, validate them, run checks and
render results; a lab (its artifacts, checks, schemas, rubric, messages) is a package of
its own, found through the `grader.labs` entry points (`grader.engine.labs`). This project's
lab is `checks/`.
"""

__version__ = "0.1.0"
