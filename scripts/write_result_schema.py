#!/usr/bin/env python3
"""Write grader/schemas/result.schema.json from the `Result` model (its single source)."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.engine.result import result_schema  # noqa: E402

(ROOT / "grader" / "schemas" / "result.schema.json").write_text(
    json.dumps(result_schema(), indent=2, ensure_ascii=False) + "\n", "utf-8"
)
