"""What the grader says and the data it ships: problems found in files, the message
catalogs in the reader's language, text made safe to show, and reading the grader's own
TOML and package files.

Imports nothing of the grader outside this package.
"""
