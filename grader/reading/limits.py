"""Every size limit the grader applies to a submission: the engine's, and the lab's own.

A submission is untrusted input: each limit turns "too big" into a clear message on the
artifact it concerns instead of a hang or an out-of-memory kill. The engine's caps bound
what it reads and parses for every lab (bytes per file and in all, JSON depth and
digits, records, problems, archives); a lab declares the caps of its own formats (a
source file's bytes, a log's lines, a stream's events) in `Lab.limits`, with their
defaults. The defaults are at least 60 times what the real captures reach (the comment
on each says how much that is) and low enough that the worst file under every cap still
grades in about a second. An instructor can change any of them, the engine's and the
lab's alike, in the rubric's `[limits]` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace


@dataclass(frozen=True)
class Limits:
    """Caps applied while loading (and, for archives, while listing and extracting);
    every cap is checked before the work it bounds. `lab` holds the lab's own caps by
    name; `limits["name"]` reads either kind."""

    file_bytes: int = 4 * 1024 * 1024  # an artifact whose lab names no other cap (real: 19 KB)
    submission_bytes: int = 64 * 1024 * 1024  # all artifacts together
    json_depth: int = 64  # real: 4
    number_digits: int = 100  # real: 17
    jsonl_records: int = 4_096  # real: 64
    problems_per_file: int = 20  # reading stops there: the first problems explain the file
    python_line_chars: int = 10_000  # a line of Python source (real: 100); CPython 3.11's
    # tokenizer copies a token's whole line with it, so tokens cost line length × tokens
    # Archives given to `grader batch` (a real class archive: 30-300 submissions of about
    # 100 KB of lab files each, with whatever else students zip: venvs, videos).
    archive_members: int = 100_000  # members listed in one archive (a class of 300: ~4,000)
    archive_bytes: int = 2 * 1024**3  # uncompressed bytes one archive may declare (read, not
    # written: only the lab's files are extracted)
    archive_submissions: int = 1_000  # submission rows in one archive (real: up to ~300)
    batch_archive_bytes: int = 2 * 1024**3  # bytes extracted from all of a batch's archives
    # together (~20,000 real submissions)
    lab: Mapping[str, int] = field(default_factory=dict, hash=False)
    """The lab's own caps (`Lab.limits`), as the rubric sets them."""

    def __getitem__(self, name: str) -> int:
        """The cap `name`, the engine's or the lab's; KeyError for a name neither has."""
        if name in self.lab:
            return self.lab[name]
        if name in ENGINE_LIMITS:
            return int(getattr(self, name))
        raise KeyError(f"no limit named {name!r}")

    def names(self) -> tuple[str, ...]:
        return (*ENGINE_LIMITS, *self.lab)

    @classmethod
    def of(cls, values: Mapping[str, int], lab_defaults: Mapping[str, int] = {}) -> Limits:
        """The limits with `values` (a rubric's `[limits]`) over the defaults: the engine's
        own and the lab's (`lab_defaults`); a name the engine does not have is the lab's."""
        engine = {k: v for k, v in values.items() if k in ENGINE_LIMITS}
        lab = {**lab_defaults, **{k: v for k, v in values.items() if k not in ENGINE_LIMITS}}
        return cls(**engine, lab=lab)

    def with_lab_defaults(self, lab_defaults: Mapping[str, int]) -> Limits:
        """These limits, with each lab cap they do not set at the lab's default."""
        if all(k in self.lab for k in lab_defaults):
            return self
        return replace(self, lab={**lab_defaults, **self.lab})


ENGINE_LIMITS: tuple[str, ...] = tuple(f.name for f in fields(Limits) if f.name != "lab")
"""The names of the engine's own caps."""

DEFAULT_LIMITS = Limits()
"""The engine's defaults, with no lab's caps (a lab's are `Lab.default_limits()`)."""
