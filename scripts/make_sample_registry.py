#!/usr/bin/env python3
"""Write checks/samples.json, the registry of the published samples (see checks/samples.py).

Run from the repository root after changing `sample_submissions/`:
`python scripts/make_sample_registry.py`. A test fails when the file is out of date.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks.samples import REGISTRY, build_registry, samples_root  # noqa: E402

(ROOT / "checks" / REGISTRY).write_text(
    json.dumps(build_registry(samples_root()), indent=1, sort_keys=True) + "\n", "utf-8"
)
