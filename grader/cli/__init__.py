"""The command line: every `grader` command, its argparse parser in the user's
language, what it writes, and the platforms' entry points (Gradescope, PrairieLearn,
the one-file pyz).

The top of the grader: may import every other package; nothing
imports it but `grader.__main__` and `python -m` entry points.
"""
