"""The JSON Schemas (Draft 2020-12) of every artifact and of the grader's result."""
