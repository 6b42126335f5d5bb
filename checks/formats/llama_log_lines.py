"""The lines a llama-server log prints, as patterns: what `checks.formats.llama_log` reads.

Every era's wording is described in `llama_log`'s docstring; the patterns here are the
shapes it finds, apart from how the scan walks the text and builds events from them.
"""

from __future__ import annotations

import re
import sys

ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI, e.g. colours "\x1b[32m"
    r"|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC, up to BEL or ST (never past a line end)
    r"|[@-Z\\-_])?"  # other two-byte escapes; a lone ESC is dropped too
)
"""ANSI escape sequences, removed from the lines this module reads (never past a line end)."""

WRAPPER = re.compile(
    r"[ \t]*(?:"
    r"[A-Za-z0-9][\w.-]* +\| ?"  # docker compose: "llm-1  | ", "voice-llm_1  | "
    r"|[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \S+ [^\s\[\]:]+(?:\[\d+\])?: "
    # journald short: "Nov 30 12:00:01 pod llama-server[123]: "
    r"|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})? "
    r"(?:\S+ [^\s\[\]:]+(?:\[\d+\])?: )?"  # ISO timestamp, journald short-iso
    r"|\[pod/[^\]\s]+\] "  # kubectl logs --prefix
    r"|(?P<m>\d{1,6})\.(?P<s>\d{2})\.(?P<ms>\d{3})\.(?P<us>\d{3}) (?:[A-Z] )?"
    # llama.cpp common/log.cpp: "0.53.596.284 I " (minutes.seconds.ms.us, level)
    r")"
)
"""One wrapper at the start of a line; applied repeatedly (wrappers nest)."""
MAX_WRAPPERS = 8
"""More nested wrappers than any real setup; bounds the work on adversarial lines."""

# The patterns run on many lines start with a literal (no `\b`, no lookbehind first), so the
# regex engine jumps between occurrences of that literal like `str.find` instead of trying
# every position; measured 5-20 times faster on real lines.
SLOT = re.compile(r"slot +([^\s:|]{1,64}): +id +-?\d{1,9} +\| +task +(-?\d{1,18}) +\|")
"""`slot print_timing: id  0 | task 65 |`, the `SLT_*` prefix; group 1 function, 2 task."""

_NUMBER = r"(\d{1,30}(?:\.\d{1,30})?)"
PROMPT = re.compile(r"prompt eval time\s*=\s*" + _NUMBER + r"\s*ms\s*/\s*(\d{1,18})\s*tokens\b")
EVAL = re.compile(r"eval time\s*=\s*" + _NUMBER + r"\s*ms\s*/\s*(\d{1,18})\s*(?:tokens|runs)\b")
"""`eval time` and `generation eval time`; the caller rejects a match preceded by `prompt `."""
TOTAL = re.compile(r"total time\s*=\s*" + _NUMBER + r"\s*ms(?:\s*/\s*(\d{1,18})\s*tokens\b)?")
FIGURES = re.compile(
    r"\(\s*(\d{1,30}(?:\.\d{1,30})?|inf|-?nan)\s*ms per token,\s*"
    r"(\d{1,30}(?:\.\d{1,30})?|inf|-?nan)\s*tokens per second\s*\)"
)
"""`(    6.83 ms per token,   146.38 tokens per second)` after a timing's ms and tokens."""
PERF_TOTAL = re.compile(r"\b(?:llama_print_timings|llama_perf_context_print|common_perf_print)\s*:")
"""Library-wide totals printed at exit by other tools; not a task's timing."""

CANCEL = re.compile(r"\bcancel task\b")
ID_TASK = re.compile(r"_(?:task(?<=id_task)|id(?<=task_id))\"?\s*[:=]\s*(-?\d{1,18})(?!\d)")
"""`id_task = 12` (cancel line), `"id_task":12` (JSON), `id_task=12` (key=value), `task_id`."""
STOP = re.compile(r"stop processing: (n_(?:tokens|past)) = (\d{1,18})(?!\d)")
SLOT_RELEASED = re.compile(r"\bslot released\b")
N_PAST = re.compile(r"\b(n_past)\"?\s*[:=]\s*(\d{1,18})(?!\d)")
PROCESSING = re.compile(r"\bprocessing task\b")

# Start-up lines, in every era's wording (see the module docstring).
BUILD = re.compile(
    r"build(?: info)?\"?\s*[:=]\s*\"?(\d{1,9})\"?"
    r"(?:\s*\(([0-9a-f]{4,40})\)|,?\s*\"?commit\"?\s*[:=]\s*\"([0-9a-f]{4,40})\")"
)
"""`build: 5415 (8733e0c1) with cc ...`, `"build":3140,"commit":"a1b2c3d"`, `build=3140
commit="a1b2c3d"`."""
MODEL = re.compile(
    r"loading model '([^'\n]{1,4096})'"
    r"|loaded meta data with \d{1,9} key-value pairs and \d{1,9} tensors from (\S{1,4096})"
)
N_SLOTS = re.compile(r"n_slots\"?\s*[:=]\s*(\d{1,9})(?!\d)")
N_CTX_SLOT = re.compile(r"n_ctx_slot\"?\s*[:=]\s*(\d{1,12})(?!\d)")
END = re.compile(r"\bcleaning up before exit\b")

# The lab's build prints most lines the scan reads in one of five shapes (see the module
# docstring's 2026 era), each whole line an exact one of:
#   0.03.443.055 I slot print_timing: id  0 | task 0 | prompt eval time = 225.44 ms / 33 tokens
#   ... slot print_timing: id  0 | task 0 |        eval time = 1415.71 ms / 64 tokens
#   ... slot print_timing: id  0 | task 0 |       total time = 1641.15 ms / 97 tokens
#   ... slot      release: id  0 | task 0 | stop processing: n_tokens = 96, truncated = 0
#   ... slot launch_slot_: id  0 | task 65 | processing task, is_child = 0
# and each server run adds four more (a cancel, its model, its slots, its end):
#   0.53.999.256 W srv          stop: cancel task, id_task = 774
#   ... srv    load_model: loading model '/opt/lab/models/qwen2.5-0.5b-instruct-q4_0.gguf'
#   ... srv    load_model: initializing, n_slots = 1, n_ctx_slot = 4096, kv_unified = 'false'
#   ... srv    operator(): operator(): cleaning up before exit...
# `TASK_LINE` matches exactly those (spaces only, no colour, no wrapper but the time
# prefix, nothing after the last figure), and for them the general path's patterns could
# find nothing else: the groups are the general patterns' own, in the same order. (A
# model's path is one of letters, digits and `_./+-`: no `:`, `=`, quote or blank, so no
# other pattern, `ID_TASK`, `BUILD` or `N_SLOTS`, can find a field in it.)
#
# It is run on nine in ten of the lines read, so it is written in the regex engine's
# cheaper steps; any line it refuses goes the general way, so each narrowing below only
# sends odd lines there, never reads one differently:
# - digits are ASCII `[0-9]` (a class of ranges), not `\d` (a Unicode category lookup per
#   character); a line with other digits is read by the general patterns' `\d`;
# - an optional part is an alternation with an empty branch, `(?:...|)`, which is what
#   `(?:...)?` means but without the engine's repeat bookkeeping for a group;
# - the slot functions are the build's own names (`print_timing`, `release`,
#   `launch_slot_`), and the figures' parenthesis and words are spaced as its printf
#   prints them (`%10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)`).
# - on Python 3.11 and later every repeat is possessive (`_possessive`): no repeated atom can
#   match what follows it (a space is followed by a non-space, digits by a non-digit), so
#   giving characters back could never help a match, and the engine skips the bookkeeping
#   for it (a fifth fewer instructions per line; a test holds it to the plain pattern).
_NUMBER_OF = r"(?P<{0}>[0-9]{{1,30}}(?:\.[0-9]{{1,30}}|))"
_FIGURES_TAIL = (
    r"(?: \( *(?P<{0}_per_token>[0-9]{{1,30}}(?:\.[0-9]{{1,30}}|)|inf|-?nan) ms per token, *"
    r"(?P<{0}_per_second>[0-9]{{1,30}}(?:\.[0-9]{{1,30}}|)|inf|-?nan) tokens per second\)|)"
)
_SLOT_TASK = r": +id +-?[0-9]{{1,9}} +\| +task +(?P<{0}>[0-9]{{1,18}}) +\| +"
_TASK_LINE_TEXT = (
    r"(?P<m>[0-9]{1,6})\.(?P<s>[0-9]{2})\.(?P<ms>[0-9]{3})\.(?P<us>[0-9]{3}) [A-Z] "
    r"(?:slot print_timing"
    + _SLOT_TASK.format("timing_task")
    + r"(?:prompt eval time *= *"
    + _NUMBER_OF.format("prompt_ms")
    + r" *ms */ *(?P<prompt_n>[0-9]{1,18}) *tokens"
    + _FIGURES_TAIL.format("prompt")
    + r"|eval time *= *"
    + _NUMBER_OF.format("eval_ms")
    + r" *ms */ *(?P<eval_n>[0-9]{1,18}) *tokens"
    + _FIGURES_TAIL.format("eval")
    + r"|total time *= *"
    + _NUMBER_OF.format("total_ms")
    + r" *ms(?: */ *(?P<total_n>[0-9]{1,18}) *tokens|))"
    + r"|slot +(?:release|launch_slot_)"
    + _SLOT_TASK.format("slot_task")
    + r"(?:stop processing: (?P<counter>n_(?:tokens|past)) = (?P<n_tokens>[0-9]{1,18}), "
    r"truncated = [0-9]{1,9}"
    r"|processing task(?:, is_child = [0-9]{1,9}|))"
    r"|srv +(?:stop: cancel task, id_task = (?P<cancel_task>[0-9]{1,18})"
    r"|load_model: (?:loading model '(?P<model>[A-Za-z0-9_./+-]{1,4096})'"
    r"|initializing, n_slots = (?P<n_slots>[0-9]{1,9}), "
    r"n_ctx_slot = (?P<n_ctx_slot>[0-9]{1,12}), kv_unified = '(?:true|false)')"
    r"|operator\(\): operator\(\): cleaning up before exit\.\.\.)"
    r") *$"
)
"""`TASK_LINE` as written, its repeats as backtracking ones."""


def _possessive(pattern: str) -> str:
    """`pattern` with each space repeat (` *`, ` +`) and each bounded repeat of a class
    (`]{1,30}`, ...) possessive, where the interpreter has possessive repeats (3.11)."""
    if sys.version_info < (3, 11):
        return pattern
    pattern = pattern.replace(" *", " *+").replace(" +", " ++")
    for repeat in ("]{1,6}", "]{1,9}", "]{1,12}", "]{1,18}", "]{1,30}", "]{1,4096}"):
        pattern = pattern.replace(repeat, repeat + "+")
    return pattern


TASK_LINE = re.compile(_possessive(_TASK_LINE_TEXT), re.MULTILINE)
"""One whole line of the lab's build that starts, continues or ends a task or a server
run (above)."""
TASK_LINE_GROUPS = (
    "m", "s", "ms", "us", "timing_task", "prompt_ms", "prompt_n", "prompt_per_token",
    "prompt_per_second", "eval_ms", "eval_n", "eval_per_token", "eval_per_second",
    "total_ms", "total_n", "slot_task", "counter", "n_tokens", "cancel_task", "model",
    "n_slots", "n_ctx_slot",
)  # fmt: skip
"""`TASK_LINE`'s groups in their order, as `scan_log` unpacks `match.groups()` (one call
for all of them instead of one per group; a test holds the two to the same order)."""

PREFIX_ONLY_END = re.compile(r"\|[ \t]*(?:\x1b\[[0-?]*[ -/]*[@-~][ \t]*)*$", re.MULTILINE)
"""A line ending with `|`, perhaps followed by colour resets."""
