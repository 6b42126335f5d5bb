#!/usr/bin/env python3
"""Write tests/data/output_digests.json: the sha256 of every output the grader gives for
the bundled samples (`tests/output_identity.py` says which), from the code as it is.

Run it only when an output changes on purpose, and commit the new file alone, saying
what changed and why; `tests/test_output_identity.py` fails on any other change.
`--list` names every output and its group; `--show NAME` prints one output (to see what
a failing group gives now).

Usage: python scripts/write_output_digests.py [--list | --show NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tests.conftest  # noqa: E402, F401  (grades with the tests' run registry, as they do)
from tests.output_identity import DIGESTS, digests, group, outputs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", metavar="NAME", help="print this output and write nothing")
    parser.add_argument("--list", action="store_true", help="name every output; write nothing")
    args = parser.parse_args()
    if args.list:
        for name, data in outputs():
            print(f"{group(name)}\t{name}\t{len(data)}")
        return 0
    if args.show:
        for name, data in outputs():
            if name == args.show:
                sys.stdout.buffer.write(data)
                return 0
        print(f"no output named {args.show!r}", file=sys.stderr)
        return 1
    found = digests()
    DIGESTS.write_text(json.dumps(found, indent=1) + "\n", "utf-8")
    print(f"{len(found)} groups of outputs -> {DIGESTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
