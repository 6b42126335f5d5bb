#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: install the
# grader from the repository that the autograder zip unpacked into /autograder/source.
set -euo pipefail

ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="${AUTOGRADER_SOURCE:-$ROOT/source}"

if ! command -v pip3 >/dev/null 2>&1; then
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-pip
fi

# The image is the grader's alone: on images whose Python is "externally managed"
# (PEP 668, Ubuntu 23.04 and later) install into it anyway. Older pip ignores this.
export PIP_BREAK_SYSTEM_PACKAGES=1
pip3 install --no-cache-dir "$SOURCE"
