"""Grading a class: finding its submissions, a crash-isolating worker pool,
batch ids, the `--out` folder, progress, and the gradebook and summary.

May import every package below it (`words`, `system`, `reading`, `engine`, `render`,
`export`, `class_report`); never `grader.cli.main`.
"""
