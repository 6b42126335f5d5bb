"""The lab with one check that sleeps: a batch that stays busy long enough to be killed."""

from __future__ import annotations

import dataclasses
import time

from checks import LAB as REAL_LAB


def _sleep(ctx: object) -> None:
    time.sleep(120)


LAB = dataclasses.replace(
    REAL_LAB,
    checks=tuple(
        dataclasses.replace(c, run=_sleep) if c.id == "health.ok" else c for c in REAL_LAB.checks
    ),
)
