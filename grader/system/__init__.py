"""The grader's process and its place in the operating system: the sandbox's audit
hook, `sys.path` without the working directory, atomic writes, faults said in one
sentence, stdout and stderr written safely, exit statuses, and workers that die with
their batch.

May import `grader.words`.
"""
