"""The check engine: what a lab declares (`grader.engine.api.api`, `grader.engine.api.lab`),
how labs are found and rubrics read, and grading one submission into a `Result`.

May import `grader.words`, `grader.system` and `grader.reading`; imports a lab only
through `grader.engine.api.labs`.
"""
