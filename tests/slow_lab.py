"""The lab with one check that sleeps: a batch that stays busy long enough to be killed."""

from __future__ import annotations

import time

from checks import LAB as REAL_LAB
from grader import records


def _sleep(ctx: object) -> None:
    time.sleep(120)


LAB = records.replace(
    REAL_LAB,
    checks=tuple(
        records.replace(c, run=_sleep) if c.id == "health.ok" else c for c in REAL_LAB.checks
    ),
)
