"""Offline grader for the "first token" LLM streaming lab.

The engine (this package) knows how to load files safely, validate them, run checks and
render results; the lab itself (artifacts, checks, rubric, messages) lives in `checks/`.
"""

__version__ = "0.1.0"
