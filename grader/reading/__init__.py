"""Reading a submission without trusting it: files opened under one folder,
bytes to text, strict JSON with line numbers, JSON Schema validation, Python source
and SSE parsed with their limits, archives unpacked member by member.

May import `grader.words` and `grader.system`; knows no lab and no result.
"""
