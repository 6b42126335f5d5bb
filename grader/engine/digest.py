"""The input digest: one sha256 over everything a result depends on, and nothing else.

A result is a pure function of the grader version, the lab, the rubric (its file's
bytes, which include the `[limits]`), the language, and each artifact's bytes (or the
reason it was not read: missing, a link, over its cap, with the facts the message
shows). The submission's path is not part of it, so two folders with equal files have
equal digests. `grader batch --resume` reuses a stored result only when its digest
equals the one computed now from the same inputs, so a changed file, rubric, language
or grader version is graded again, never trusted.

Each part is length-prefixed, so no two different inputs hash the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from grader.reading.files import RawFile
from grader.words.problems import Problem

DIGEST_VERSION = "1"  # changes when what goes into the digest changes

if TYPE_CHECKING:
    from typing import Protocol

    class _Read(Protocol):
        @property
        def file(self) -> str: ...
        @property
        def raw(self) -> RawFile | None: ...
        @property
        def problem(self) -> Problem | None: ...
        @property
        def status(self) -> str: ...


def _fact(got: _Read) -> str:
    if got.raw is not None:
        return f"{got.file}\0sha256:{got.raw.sha256}"
    problem = got.problem
    detail = ""
    if problem is not None:
        params = json.dumps(problem.params, sort_keys=True, default=str, ensure_ascii=True)
        detail = f"{problem.message_id}\0{params}"
    return f"{got.file}\0{got.status}\0{detail}"


def input_digest(
    grader_version: str,
    lab: str,
    rubric_sha256: str,
    lang: str,
    artifacts: Iterable[tuple[str, _Read]],
) -> str:
    """sha256 (hex) of the grading inputs: versions, lab, rubric, language, artifacts."""
    digest = hashlib.sha256()
    parts = [DIGEST_VERSION, grader_version, lab, rubric_sha256, lang]
    parts += [f"{name}\0{_fact(got)}" for name, got in artifacts]
    for part in parts:
        data = part.encode("utf-8", "surrogateescape")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    hexdigest: str = digest.hexdigest()
    return hexdigest
