#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (`grader
# gradescope-zip` wrote it into the zip, beside the grader's wheel): install the grader
# into an environment of its own, $AUTOGRADER_ROOT/venv, so that no system Python's
# packages are touched (PEP 668's "externally managed" images included).
#
# Environment (defaults are Gradescope's layout):
#   AUTOGRADER_ROOT     /autograder
#   AUTOGRADER_SOURCE   $AUTOGRADER_ROOT/source  (where the zip was unpacked)
#   AUTOGRADER_VENV     $AUTOGRADER_ROOT/venv    (the environment made here)
#   PYTHON              python3                  (the Python the environment is made from)
set -euo pipefail

ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="${AUTOGRADER_SOURCE:-$ROOT/source}"
VENV="${AUTOGRADER_VENV:-$ROOT/venv}"
PYTHON="${PYTHON:-python3}"

if ! "$PYTHON" -m venv --help >/dev/null 2>&1 || ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-venv
fi

"$PYTHON" -m venv "$VENV"
shopt -s nullglob
wheels=("$SOURCE"/*.whl)
if [ "${#wheels[@]}" -ne 1 ]; then
    echo "setup.sh: expected one grader wheel in $SOURCE, found ${#wheels[@]}" >&2
    exit 1
fi
# The grader's dependencies come from the package index; a `wheelhouse/` in the zip
# (wheels of them) is used first, so an image built offline works too.
find_links=()
if [ -d "$SOURCE/wheelhouse" ]; then
    find_links=(--find-links "$SOURCE/wheelhouse")
fi
"$VENV/bin/python" -m pip install --no-cache-dir --disable-pip-version-check \
    "${find_links[@]}" "${wheels[0]}"
"$VENV/bin/grader" --version
