"""One fuzzing case: a mutant graded twice in a private folder, and what it showed.

The grader promises to be a pure function from a folder to a `Result`: it never raises
(except `NotGradable` for a missing folder), always gives a result valid against the
result schema, and gives the same bytes for the same input. An `Outcome` records how a
case kept those promises: a crash (an exception escaped `grade`, or its worker died), a
hang (one grade over `HANG_SECONDS`, or killed by the watchdog), an invalid result (not
strict JSON, or not valid: `Result.from_json`), a nondeterministic one (two grades, two
different texts). Checks in status `error` and files a parser could only call
"unparseable" are bugs too, counted as information.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.engine.grade import grade
from grader.engine.rubric import Rubric, load_lab_rubric
from grader.fuzzing.files import State, put_file
from grader.fuzzing.json_mutations import json_nodes, json_pointer_of
from grader.fuzzing.target import Case, Target, make_case

HANG_SECONDS = 1.0
"""A single `grade` call slower than this (wall time) counts as a hang."""
FAILURE_KINDS = ("crash", "hang", "invalid", "nondeterministic")
INFO_KINDS = ("check_error", "parser_fallback", "fuzzer_error")


class WatchdogTimeout(BaseException):
    """Raised by the in-process watchdog's alarm; never confused with a grader exception."""


class ResultValidator:
    """Checks result JSON with the result model's own reader (`Result.from_json`: strict
    JSON, valid against grader/schemas/result.schema.json), after making sure the text
    can be written at all."""

    def error(self, text: str, full: bool = False) -> str | None:
        """None when `text` is a strict-JSON result valid against the schema, else why not
        (`full`: jsonschema also checks what the reader's fast path accepted).

        Strict JSON here: UTF-8 encodable (RFC 8259 section 8.1: no lone surrogates, which
        a `str` can hold but no file or pipe can), no NaN or Infinity, no duplicate key.
        """
        from grader.engine.result import NotAResult, Result

        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = text[exc.start : exc.end]
            where = _path_of_unencodable(text)
            return f"not UTF-8 encodable: {exc.reason} ({bad!r} at {where})"
        try:
            Result.from_json(text)
        except NotAResult as exc:
            return str(exc)
        if full:  # the reader's fast path said valid: jsonschema must agree
            from grader.reading.schema import RESULT_SCHEMAS

            error = next(RESULT_SCHEMAS.validator("result").iter_errors(json.loads(text)), None)
            if error is not None:
                return f"the fast path accepted what jsonschema refuses: {error.message[:300]}"
        return None


def _path_of_unencodable(text: str) -> str:
    """JSON pointer of the first string in the document that UTF-8 can't encode."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return "?"
    for path, value in json_nodes(document):
        for item in (value, path[-1] if path else ""):
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return json_pointer_of(path)
    return "?"


@dataclass
class Outcome:
    """What one case did; only small, picklable facts (sent from worker to parent)."""

    index: int
    seed_name: str
    mutations: tuple[str, ...]
    seconds: tuple[float, ...] = ()
    crash: str | None = None
    crash_signature: str = ""
    killed: bool = False
    invalid: str | None = None
    nondeterministic: str | None = None
    check_errors: tuple[str, ...] = ()
    parser_fallbacks: tuple[str, ...] = ()
    digest: str = ""
    results: tuple[str, ...] = ()  # result JSON, kept only for failing cases
    fuzzer_error: str | None = None  # a bug of this script, not of the grader

    @property
    def hang(self) -> bool:
        return self.killed or any(s > HANG_SECONDS for s in self.seconds)

    def kinds(self) -> list[str]:
        found = [k for k in FAILURE_KINDS if self.failed(k)]
        return found + [k for k in INFO_KINDS if self.failed(k)]

    def failed(self, kind: str) -> bool:
        return {
            "crash": self.crash is not None,
            "hang": self.hang,
            "invalid": self.invalid is not None,
            "nondeterministic": self.nondeterministic is not None,
            "check_error": bool(self.check_errors),
            "parser_fallback": bool(self.parser_fallbacks),
            "fuzzer_error": self.fuzzer_error is not None,
        }[kind]


def _crash_signature(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/grader/" in f.filename or "/checks/" in f.filename]
    where = ours[-1] if ours else (frames[-1] if frames else None)
    place = f"{Path(where.filename).name}:{where.lineno}" if where else "?"
    return f"{type(exc).__name__} at {place}"


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if type(a) is not type(b):
        return f"{path or '/'}: {a!r:.80} != {b!r:.80}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}: present in one result only"
            if a[key] != b[key]:
                return _first_difference(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        if len(a) != len(b):
            return f"{path or '/'}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}/{i}")
    elif a != b:
        return f"{path or '/'}: {a!r:.80} != {b!r:.80}"
    return f"{path or '/'}: same values, different bytes"


class CaseRunner:
    """Grades mutants in one private folder, rewriting only the files that changed."""

    def __init__(
        self,
        target: Target,
        seed: int,
        folder: Path,
        seeds: dict[str, dict[str, State]] | None = None,
        rubric: Rubric | None = None,
        validator: ResultValidator | None = None,
    ) -> None:
        self.target = target
        self.seed = seed
        self.folder = folder
        self.seeds = seeds if seeds is not None else target.seeds()
        self.rubric = rubric or load_lab_rubric(target.lab)
        self.validator = validator or ResultValidator()
        self.forget()
        self.cases_run = 0

    def forget(self) -> None:
        """Know nothing of the folder's files (after a case that did not finish)."""
        self.current: dict[str, State | str] = dict.fromkeys(self.target.filenames, "<unknown>")

    def materialize(self, files: dict[str, State]) -> None:
        for name in self.target.filenames:
            state = files[name]
            current = self.current[name]
            if type(current) is type(state) and current == state:
                continue
            self.current[name] = "<unknown>"
            put_file(self.folder, name, state)
            self.current[name] = state

    def _grade(self) -> tuple[str | None, float, BaseException | None]:
        start = time.perf_counter()
        try:
            text = grade(self.target.lab, str(self.folder), self.rubric).to_json()
        except (KeyboardInterrupt, WatchdogTimeout):
            raise
        except BaseException as exc:  # everything else that escapes is the finding
            return None, time.perf_counter() - start, exc
        return text, time.perf_counter() - start, None

    def run(self, index: int) -> Outcome:
        case = make_case(self.target, self.seeds, self.seed, index)
        return self.run_case(case)

    def run_case(self, case: Case) -> Outcome:
        self.materialize(case.files)
        outcome = Outcome(case.index, case.seed_name, case.mutations)
        self.cases_run += 1
        first, t1, exc1 = self._grade()
        if exc1 is not None:
            outcome.seconds = (t1,)
            outcome.crash = "".join(traceback.format_exception(exc1))
            outcome.crash_signature = _crash_signature(exc1)
            return outcome
        second, t2, exc2 = self._grade()
        outcome.seconds = (t1, t2)
        assert first is not None
        if exc2 is not None:
            outcome.crash = "second grade only:\n" + "".join(traceback.format_exception(exc2))
            outcome.crash_signature = _crash_signature(exc2)
            outcome.nondeterministic = "the first grade succeeded, the second raised"
            outcome.results = (first,)
            return outcome
        assert second is not None
        if first != second:
            try:
                where = _first_difference(json.loads(first), json.loads(second))
            except ValueError:
                where = "results are not JSON"
            outcome.nondeterministic = where
        full = self.cases_run % 64 == 1  # now and then, jsonschema checks the fast path
        outcome.invalid = self.validator.error(first, full=full)
        normalized = first.replace(json.dumps(str(self.folder))[1:-1], "<submission>")
        outcome.digest = hashlib.sha256(normalized.encode("utf-8", "surrogatepass")).hexdigest()[
            :16
        ]
        try:
            document = json.loads(first)
            outcome.check_errors = tuple(
                f"{c['id']}: {c.get('message') or ''}"
                for c in document.get("checks", [])
                if c.get("status") == "error"
            )
            outcome.parser_fallbacks = tuple(
                f"{a['file']}: {p.get('message_id')}: {p.get('message')}"
                for a in document.get("artifacts", [])
                for p in a.get("problems", [])
                if str(p.get("message_id", "")).endswith(".unparseable")
            )
        except (ValueError, AttributeError, KeyError, TypeError):
            pass
        if outcome.invalid or outcome.nondeterministic or outcome.check_errors or outcome.hang:
            outcome.results = (first, second) if outcome.nondeterministic else (first,)
        return outcome
