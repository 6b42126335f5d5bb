"""Specification of `checks.formats.llama_log`: the llama-server log lines a grader needs.

Each test states one rule. Numbers taken from the real captures were read off the files in
`tests/data/` (copies of `fixtures/real/*/server.log`, build b1-0c1e570).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checks.formats.llama_log import ServerLog, ServerStart, TaskTiming, scan_log

DATA = Path(__file__).resolve().parent.parent / "data"
REAL_CORRECT = DATA / "real" / "correct" / "server.log"
REAL_NO_CLOSE = DATA / "real" / "no_close_on_cancel" / "server.log"

# 2026 (b1-0c1e570) lines, verbatim from the real captures.
PROMPT_65 = (
    "0.05.121.900 I slot print_timing: id  0 | task 65 | prompt eval time =     216.79 ms /"
    "    33 tokens (    6.57 ms per token,   152.22 tokens per second)"
)
EVAL_65 = (
    "0.05.121.920 I slot print_timing: id  0 | task 65 |        eval time =    1446.73 ms /"
    "    64 tokens (   22.96 ms per token,    43.55 tokens per second)"
)
TOTAL_65 = (
    "0.05.121.921 I slot print_timing: id  0 | task 65 |       total time =    1663.52 ms /"
    "    97 tokens"
)
RELEASE_65 = (
    "0.05.121.950 I slot      release: id  0 | task 65 | stop processing: n_tokens = 96,"
    " truncated = 0"
)
CANCEL_2026 = "0.53.999.256 W srv          stop: cancel task, id_task = 774"
MODEL_2026 = "0.00.006.088 I srv    load_model: loading model '/m.gguf'"
SLOTS_2026 = (
    "0.01.450.042 I srv    load_model: initializing, n_slots = 2, n_ctx_slot = 8,"
    " kv_unified = 'false'"
)
END_2026 = "0.54.017.203 I srv    operator(): operator(): cleaning up before exit..."

# 2024-25 (examples/server/server.cpp): one SLT_INF whose format starts with "\n".
SPLIT_BLOCK = [
    "slot print_timing: id  0 | task 0 | ",
    "prompt eval time =     225.44 ms /    33 tokens (    6.83 ms per token,   146.38 tokens"
    " per second)",
    "       eval time =    1415.71 ms /    64 tokens (   22.47 ms per token,    44.50 tokens"
    " per second)",
    "      total time =    1641.15 ms /    97 tokens",
]


Core = tuple[int | None, int, float, int, float | None, int | None]


def timing(
    task: int | None,
    line: int,
    prompt_ms: float,
    prompt_n: int,
    eval_ms: float | None = None,
    eval_n: int | None = None,
) -> Core:
    """What a timing says about its task: task, line, prompt ms and n, eval ms and n."""
    return (task, line, prompt_ms, prompt_n, eval_ms, eval_n)


def core(t: TaskTiming) -> Core:
    return (t.task, t.line, t.prompt_ms, t.prompt_n, t.eval_ms, t.eval_n)


def cores(timings: tuple[TaskTiming, ...]) -> tuple[Core, ...]:
    return tuple(core(t) for t in timings)


def cancels(log: ServerLog) -> tuple[tuple[int, int | None], ...]:
    return tuple((c.line, c.task) for c in log.cancels)


def releases(log: ServerLog) -> tuple[tuple[int, int, int], ...]:
    return tuple((r.line, r.task, r.n_tokens) for r in log.releases)


# -- cancel --------------------------------------------------------------------------------


def test_cancel_line_of_2024_25_era_gives_its_task() -> None:
    log = scan_log("srv  cancel_tasks: cancel task, id_task = 12\n")
    assert cancels(log) == ((1, 12),)


def test_cancel_line_of_2026_era_with_time_and_level_prefix_gives_its_task() -> None:
    log = scan_log("0.53.596.284 I srv  llama_server: model loaded\n" + CANCEL_2026 + "\n")
    assert cancels(log) == ((2, 774),)


def test_cancel_line_without_task_id_gives_task_none() -> None:
    log = scan_log("W srv  some_func: cancel task\n")
    assert cancels(log) == ((1, None),)


def test_cancel_phrase_must_be_whole_words() -> None:
    log = scan_log("srv  x: cancel tasks queued\nsrv  x: precancel task\n")
    assert cancels(log) == ()


def test_other_lines_naming_id_task_are_not_cancels() -> None:
    log = scan_log("srv  params_from_: no slot is available, defer task, id_task = 3\n")
    assert cancels(log) == ()


# -- timings -------------------------------------------------------------------------------


def test_timing_on_one_line_pairs_with_the_eval_line_of_the_same_task() -> None:
    log = scan_log("\n".join([PROMPT_65, EVAL_65, TOTAL_65]))
    assert cores(log.timings) == (timing(65, 1, 216.79, 33, 1446.73, 64),)


def test_timing_without_eval_line_keeps_eval_none() -> None:
    log = scan_log(PROMPT_65)
    assert cores(log.timings) == (timing(65, 1, 216.79, 33),)


def test_eval_line_of_another_task_does_not_complete_a_timing() -> None:
    other_eval = EVAL_65.replace("task 65", "task 66")
    log = scan_log("\n".join([PROMPT_65, other_eval]))
    assert cores(log.timings) == (timing(65, 1, 216.79, 33),)


def test_timing_split_over_lines_belongs_to_the_task_of_the_prefix_line() -> None:
    log = scan_log("\n".join(["I srv  update_slots: all slots are idle", *SPLIT_BLOCK]))
    assert cores(log.timings) == (timing(0, 3, 225.44, 33, 1415.71, 64),)


def test_consecutive_split_blocks_each_take_their_own_prefix() -> None:
    second = [SPLIT_BLOCK[0].replace("task 0", "task 7"), *SPLIT_BLOCK[1:]]
    log = scan_log("\n".join([*SPLIT_BLOCK, *second]))
    assert [(t.task, t.line, t.eval_n) for t in log.timings] == [(0, 2, 64), (7, 6, 64)]


def test_blank_lines_inside_a_split_block_do_not_end_it() -> None:
    text = "\n".join([SPLIT_BLOCK[0], "", "llm-1  | ", SPLIT_BLOCK[1]])
    assert [t.task for t in scan_log(text).timings] == [0]


def test_an_unprefixed_timing_after_another_line_is_not_given_the_old_prefix_task() -> None:
    text = "\n".join([SPLIT_BLOCK[0], "srv  update_slots: something else", SPLIT_BLOCK[1]])
    assert [t.task for t in scan_log(text).timings] == [None]


def test_timing_from_json_lines_log_uses_its_id_task_field() -> None:
    text = "\n".join(
        [
            '{"tid":"140","timestamp":1717000000,"level":"INFO","function":"print_timings",'
            '"line":327,"msg":"prompt eval time     =     225.44 ms /    33 tokens (    6.83 ms'
            ' per token,   146.38 tokens per second)","id_slot":0,"id_task":5,'
            '"t_prompt_processing":225.44,"n_prompt_tokens_processed":33,"t_token":6.83,'
            '"n_tokens_second":146.38}',
            '{"tid":"140","timestamp":1717000000,"level":"INFO","function":"print_timings",'
            '"line":341,"msg":"generation eval time =    1415.71 ms /    64 runs   (   22.47 ms'
            ' per token,    44.50 tokens per second)","id_slot":0,"id_task":5,'
            '"t_token_generation":1415.71,"n_decoded":64,"t_token":22.47,'
            '"n_tokens_second":44.5}',
        ]
    )
    assert cores(scan_log(text).timings) == (timing(5, 1, 225.44, 33, 1415.71, 64),)


def test_timing_from_early_2024_json_uses_its_task_id_key() -> None:
    line = (
        '{"timestamp":1705000000,"level":"INFO","function":"print_timings","line":260,'
        '"message":"prompt eval time     =      10.50 ms /     4 tokens (    2.62 ms per token,'
        '   380.95 tokens per second)","slot_id":0,"task_id":2}'
    )
    assert cores(scan_log(line).timings) == (timing(2, 1, 10.5, 4),)


def test_timing_from_text_format_log_uses_its_id_task_key() -> None:
    text = (
        "INFO [           print_timings] prompt eval time     =      10.50 ms /     4 tokens"
        ' (    2.62 ms per token,   380.95 tokens per second) | tid="1" timestamp=1717000000'
        " id_slot=0 id_task=9 t_prompt_processing=10.5 n_prompt_tokens_processed=4"
    )
    assert cores(scan_log(text).timings) == (timing(9, 1, 10.5, 4),)


def test_oldest_timing_lines_without_any_task_give_task_none() -> None:
    text = "\n".join(
        [
            "print_timings: prompt eval time =     925.78 ms /    24 tokens (   38.57 ms per"
            " token,    25.92 tokens per second)",
            "print_timings:        eval time =    4178.32 ms /    31 runs   (  134.78 ms per"
            " token,     7.42 tokens per second)",
        ]
    )
    assert cores(scan_log(text).timings) == (timing(None, 1, 925.78, 24, 4178.32, 31),)


def test_library_wide_totals_are_not_task_timings() -> None:
    text = "\n".join(
        [
            "llama_perf_context_print: prompt eval time =     925.78 ms /    24 tokens",
            "llama_print_timings: prompt eval time =   925.78 ms /    24 tokens",
            "common_perf_print: prompt eval time =     925.78 ms /    24 tokens",
        ]
    )
    assert cores(scan_log(text).timings) == ()


def test_progress_lines_of_print_timing_are_not_timings() -> None:
    text = (
        "0.54.077.240 I slot print_timing: id  0 | task 774 | n_gen =    138, tg =  45.63 t/s,"
        " tg_3s =  45.96 t/s"
    )
    assert cores(scan_log(text).timings) == ()


# -- wrappers ------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["llm-1  | ", "voice-llm_1  | "], ids=["v2", "v1"])
def test_docker_compose_prefix_is_ignored(prefix: str) -> None:
    text = "\n".join(prefix + line for line in [PROMPT_65, EVAL_65, CANCEL_2026, RELEASE_65])
    log = scan_log(text)
    assert cores(log.timings) == (timing(65, 1, 216.79, 33, 1446.73, 64),)
    assert cancels(log) == ((3, 774),)
    assert releases(log) == ((4, 65, 96),)


def test_journald_prefix_is_ignored() -> None:
    prefix = "Nov 30 12:00:01 pod llama-server[123]: "
    text = "\n".join(prefix + line for line in [PROMPT_65, EVAL_65, CANCEL_2026, RELEASE_65])
    log = scan_log(text)
    assert cores(log.timings) == (timing(65, 1, 216.79, 33, 1446.73, 64),)
    assert cancels(log) == ((3, 774),)
    assert releases(log) == ((4, 65, 96),)


def test_split_timing_is_attributed_through_docker_compose_prefixes() -> None:
    text = "\n".join("llm-1  | " + line for line in SPLIT_BLOCK)
    assert cores(scan_log(text).timings) == (timing(0, 2, 225.44, 33, 1415.71, 64),)


def test_nested_wrappers_are_all_ignored() -> None:
    line = "Nov 30 12:00:01 pod dockerd[9]: llm-1  | " + CANCEL_2026
    assert cancels(scan_log(line)) == ((1, 774),)


def test_ansi_colour_sequences_are_stripped() -> None:
    blue, green, magenta, reset = "\x1b[34m", "\x1b[32m", "\x1b[35m", "\x1b[0m"
    colour_cancel = f"{blue}0.53.999.256{reset} {magenta}W {CANCEL_2026[15:]}{reset}"
    colour_prompt = PROMPT_65.replace(
        "0.05.121.900 I ", f"{blue}0.05.121.900{reset} {green}I {reset}"
    )
    log = scan_log(colour_prompt + "\n" + colour_cancel)
    assert cores(log.timings) == (timing(65, 1, 216.79, 33),)
    assert cancels(log) == ((2, 774),)


def test_split_timing_is_attributed_when_colour_codes_end_the_prefix_line() -> None:
    coloured = ["\x1b[34m0.03.443.055\x1b[0m \x1b[32mI \x1b[0m" + SPLIT_BLOCK[0] + "\x1b[0m"]
    log = scan_log("\n".join(coloured + SPLIT_BLOCK[1:]))
    assert cores(log.timings) == (timing(0, 2, 225.44, 33, 1415.71, 64),)


# -- releases ------------------------------------------------------------------------------


def test_release_with_n_tokens_gives_task_and_count() -> None:
    assert releases(scan_log(RELEASE_65)) == ((1, 65, 96),)


def test_release_with_n_past_of_older_logs_gives_task_and_count() -> None:
    line = "slot      release: id  0 | task 12 | stop processing: n_past = 96, truncated = 0"
    assert releases(scan_log(line)) == ((1, 12, 96),)


def test_slot_released_of_json_lines_log_gives_task_and_n_past() -> None:
    line = (
        '{"tid":"1","timestamp":1717000000,"level":"INFO","function":"update_slots","line":1,'
        '"msg":"slot released","id_slot":0,"id_task":5,"n_ctx":4096,"n_past":96,'
        '"n_system_tokens":0,"n_cache_tokens":96,"truncated":false}'
    )
    assert releases(scan_log(line)) == ((1, 5, 96),)


def test_release_without_a_task_is_not_recorded() -> None:
    assert releases(scan_log("stop processing: n_tokens = 96, truncated = 0")) == ()


# -- full prompt size ----------------------------------------------------------------------

# Task 390 and 456 of fixtures/real/cache_on_in_prefill/server.log (lines 56-57, 60, 70-71,
# 74): the KV cache made prompt eval count 13 of 34 and 859 of 1366 tokens.
CACHE_ON_SNIPPET = "\n".join(
    [
        "0.11.733.305 I slot print_timing: id  0 | task 390 | prompt eval time =     107.05 ms /"
        "    13 tokens (    8.23 ms per token,   121.44 tokens per second)",
        "0.11.733.333 I slot print_timing: id  0 | task 390 |        eval time =     625.07 ms /"
        "    32 tokens (   20.16 ms per token,    49.59 tokens per second)",
        "0.11.733.481 I slot      release: id  0 | task 390 | stop processing: n_tokens = 65,"
        " truncated = 0",
        "0.22.117.143 I slot print_timing: id  0 | task 456 | prompt eval time =    5542.16 ms /"
        "   859 tokens (    6.45 ms per token,   154.99 tokens per second)",
        "0.22.117.152 I slot print_timing: id  0 | task 456 |        eval time =    1067.28 ms /"
        "    32 tokens (   34.43 ms per token,    29.05 tokens per second)",
        "0.22.118.511 I slot      release: id  0 | task 456 | stop processing: n_tokens = 1397,"
        " truncated = 0",
    ]
)


def test_full_prompt_tokens_recovers_the_cached_part_on_real_cache_on_lines() -> None:
    log = scan_log(CACHE_ON_SNIPPET)
    assert [(t.task, t.prompt_n, t.eval_n) for t in log.timings] == [(390, 13, 32), (456, 859, 32)]
    assert [log.full_prompt_tokens(t) for t in log.timings] == [65 - 31, 1397 - 31]
    assert [log.full_prompt_tokens(t) for t in log.timings] == [34, 1366]


def test_full_prompt_tokens_uses_a_release_logged_before_the_timing_block() -> None:
    release = "slot      release: id  0 | task 0 | stop processing: n_past = 96, truncated = 0"
    text = "\n".join([release, *SPLIT_BLOCK])
    log = scan_log(text)
    assert log.full_prompt_tokens(log.timings[0]) == 33


def test_full_prompt_tokens_uses_the_release_of_the_same_server_run() -> None:
    run = [PROMPT_65, EVAL_65, RELEASE_65]
    restarted = [line.replace("n_tokens = 96", "n_tokens = 200") for line in run]
    startup = ["0.00.002.023 I srv  llama_server: initializing ..."] * 10  # a restart prints many
    log = scan_log("\n".join([*run, *startup, *restarted]))
    assert [log.full_prompt_tokens(t) for t in log.timings] == [33, 137]


def test_full_prompt_tokens_is_none_without_release_or_eval_line() -> None:
    no_release = scan_log("\n".join([PROMPT_65, EVAL_65]))
    no_eval = scan_log("\n".join([PROMPT_65, RELEASE_65]))
    assert no_release.full_prompt_tokens(no_release.timings[0]) is None
    assert no_eval.full_prompt_tokens(no_eval.timings[0]) is None


def test_full_prompt_tokens_is_none_when_smaller_than_the_evaluated_tokens() -> None:
    shifted = RELEASE_65.replace("n_tokens = 96", "n_tokens = 50")
    log = scan_log("\n".join([PROMPT_65, EVAL_65, shifted]))
    assert log.full_prompt_tokens(log.timings[0]) is None


def test_full_prompt_tokens_is_none_for_a_timing_without_task() -> None:
    log = scan_log("\n".join([SPLIT_BLOCK[1], SPLIT_BLOCK[2], RELEASE_65]))
    assert log.timings[0].task is None
    assert log.full_prompt_tokens(log.timings[0]) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 4), max_size=30),
    st.integers(0, 5),
    st.one_of(st.none(), st.integers(0, 40)),
)
def test_release_of_and_launch_of_are_their_plain_definitions(
    tasks: list[int], task: int, near_line: int | None
) -> None:
    """On any one-run log of releases and launches (event i on line i + 1, its task
    drawn): `release_of` is the task's first release, or the one nearest `near_line`
    (the earlier on a tie); `launch_of` is the task's last launch at or before it."""
    from checks.formats.llama_log_model import Launch, Release

    releases = tuple(Release(i + 1, t, 10) for i, t in enumerate(tasks))
    launches = tuple(Launch(i + 1, t) for i, t in enumerate(tasks))
    log = ServerLog(len(tasks), (), (), releases, False, launches)
    own = [r for r in releases if r.task == task]
    if near_line is None:
        expected = own[0] if own else None
    else:
        expected = min(own, key=lambda r: (abs(r.line - near_line), r.line), default=None)
    assert log.release_of(task, near_line=near_line) == expected
    if near_line is not None:
        before = [launch for launch in launches if launch.task == task and launch.line <= near_line]
        assert log.launch_of(task, near_line=near_line) == (before[-1] if before else None)


def test_release_of_gives_the_first_release_or_the_one_nearest_a_line() -> None:
    log = scan_log("\n".join([RELEASE_65, "x", "x", "x", RELEASE_65.replace("= 96", "= 7")]))
    assert log.release_of(65) == log.releases[0]
    assert log.release_of(65, near_line=4) == log.releases[1]
    assert log.release_of(65, near_line=3) == log.releases[0]  # a tie: the earlier one
    assert log.release_of(66) is None


# -- real captures -------------------------------------------------------------------------


def test_real_correct_log_has_14_timings_and_one_cancel_of_task_774() -> None:
    log = scan_log(REAL_CORRECT.read_text(encoding="utf-8"))
    assert log.line_count == 116
    assert not log.truncated
    assert cancels(log) == ((114, 774),)
    assert [t.task for t in log.timings] == [
        0, 65, 130, 195, 260, 325, 390, 423, 456, 489, 554, 587, 620, 653,
    ]  # fmt: skip
    assert [t.line for t in log.timings] == [
        14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 93, 100, 107,
    ]  # fmt: skip
    assert [t.prompt_n for t in log.timings] == [
        33, 33, 33, 33, 33, 33, 34, 526, 1366, 25, 1361, 1, 1373, 34,
    ]  # fmt: skip
    assert core(log.timings[0]) == timing(0, 14, 225.44, 33, 1415.71, 64)
    assert core(log.timings[-1]) == timing(653, 107, 230.54, 34, 2669.61, 120)


def test_real_correct_log_releases_every_task_including_the_cancelled_one() -> None:
    log = scan_log(REAL_CORRECT.read_text(encoding="utf-8"))
    assert len(log.releases) == 15
    assert releases(log)[-1] == (115, 774, 58)


def test_real_correct_log_full_prompt_equals_prompt_n_unless_the_cache_was_reused() -> None:
    log = scan_log(REAL_CORRECT.read_text(encoding="utf-8"))
    reused = {
        t.task: (t.prompt_n, log.full_prompt_tokens(t))
        for t in log.timings
        if log.full_prompt_tokens(t) != t.prompt_n
    }
    # cache_prompt=True requests reuse the common prefix: the cache "second" request (587)
    # whole, and a few leading tokens for "hi" (489), "first" (554), "changed_prefix" (620)
    # and the sentence request (653).
    assert reused == {
        489: (25, 30),
        554: (1361, 1366),
        587: (1, 1366),
        620: (1373, 1376),
        653: (34, 37),
    }


def test_real_no_close_log_has_no_cancel() -> None:
    log = scan_log(REAL_NO_CLOSE.read_text(encoding="utf-8"))
    assert cancels(log) == ()
    assert len(log.timings) == 15  # the "cancelled" request ran to its end: 256 tokens
    assert core(log.timings[-1]) == timing(774, 115, 233.93, 40, 5832.02, 256)


# -- lines ---------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_lf_crlf_and_cr_line_ends_give_the_same_line_numbers(eol: str) -> None:
    log = scan_log(eol.join(["a", PROMPT_65, "", CANCEL_2026, ""]))
    assert log.line_count == 4
    assert [t.line for t in log.timings] == [2]
    assert cancels(log) == ((4, 774),)


def test_mixed_line_ends_are_each_one_line_end() -> None:
    log = scan_log("a\r\nb\rc\n\r\n" + CANCEL_2026)
    assert log.line_count == 5
    assert cancels(log) == ((5, 774),)


def test_only_cr_and_lf_end_lines() -> None:
    log = scan_log("a\x0bb\x0cc\x85d\u2028e\n" + CANCEL_2026)
    assert log.line_count == 2
    assert cancels(log) == ((2, 774),)


def test_empty_text_has_no_lines_and_a_last_line_without_line_end_counts() -> None:
    assert scan_log("") == ServerLog(0, (), (), (), False)
    assert scan_log("\n").line_count == 1
    assert scan_log("a\nb").line_count == 2


def test_a_leading_byte_order_mark_is_ignored() -> None:
    assert cancels(scan_log("\ufeff" + CANCEL_2026)) == ((1, 774),)


def test_max_lines_stops_the_scan_and_says_so() -> None:
    text = "\n".join(["a", "b", CANCEL_2026]) + "\n"
    assert scan_log(text, max_lines=2) == ServerLog(2, (), (), (), True)
    assert scan_log(text, max_lines=3).truncated is False
    assert cancels(scan_log(text, max_lines=3)) == ((3, 774),)
    assert scan_log(text, max_lines=0) == ServerLog(0, (), (), (), True)
    assert scan_log("", max_lines=0).truncated is False


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "", CANCEL_2026]), max_size=12),
    st.booleans(),
    st.integers(0, 14),
)
def test_a_cut_log_counts_the_lines_it_kept_and_says_whether_more_followed(
    lines: list[str], ended: bool, max_lines: int
) -> None:
    text = "\n".join(lines) + ("\n" if ended and lines else "")
    # every line end ends a line, and a last line without one is a line too
    whole = text.count("\n") + (0 if text == "" or text.endswith("\n") else 1)
    log = scan_log(text, max_lines=max_lines)
    assert (log.line_count, log.truncated) == (min(whole, max_lines), whole > max_lines)


def test_a_cut_past_the_first_chunk_counts_the_lines_it_kept() -> None:
    """The lines are counted as the text is split, a chunk at a time: a cut in any chunk,
    or at a chunk's end, keeps `max_lines` lines and says whether more followed."""
    from checks.formats.llama_log_text import CHUNK

    lines = [f"0.00.000.{i % 1000:03d} I srv  some line number {i}" for i in range(6_000)]
    text = "\n".join(lines) + "\n"
    chunk_end = text.count("\n", 0, text.find("\n", CHUNK) + 1)  # the first chunk's last line
    for max_lines in (chunk_end - 1, chunk_end, chunk_end + 1, 2_999, 5_999, 6_000, 6_001):
        log = scan_log(text, max_lines=max_lines)
        assert (log.line_count, log.truncated) == (min(6_000, max_lines), max_lines < 6_000)


def test_negative_max_lines_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        scan_log("a", max_lines=-1)


def test_large_log_is_scanned_completely() -> None:
    block = [
        "0.01.801.835 I slot launch_slot_: id  0 | task {t} | processing task, is_child = 0",
        PROMPT_65.replace("task 65", "task {t}"),
        EVAL_65.replace("task 65", "task {t}"),
        TOTAL_65.replace("task 65", "task {t}"),
        RELEASE_65.replace("task 65", "task {t}"),
        "0.53.999.256 W srv          stop: cancel task, id_task = {t}",
        "llm-1  | 0.00.005.161 I cmn  common_param: some unrelated line {t}",
        "",
    ]
    n = 25_000  # 200k lines
    text = "\n".join(line.format(t=t) for t in range(n) for line in block)
    log = scan_log(text)
    assert log.line_count == n * len(block) - 1  # the text ends with an empty line's end
    assert (len(log.timings), len(log.cancels), len(log.releases)) == (n, n, n)
    assert log.timings[-1].task == n - 1
    assert all(log.full_prompt_tokens(t) == 33 for t in log.timings[:: n // 10])


@pytest.mark.parametrize(
    "line",
    [
        "slot " * 50_000,
        "slot x: id " * 30_000,
        "prompt eval time = " * 20_000,
        "eval time =" + " " * 200_000 + "1",
        "cancel task " * 30_000 + "id_task = " + "1" * 100_000,
        "llm-1  | " * 30_000,
        "\x1b[" * 60_000,
        "Nov 30 12:00:01 " + "a" * 200_000,
        "stop processing: n_tokens = " + "9" * 200_000,
        "_" * 300_000,
        "| " * 100_000,
        "slot print_timing: id  0 | task 0 | " * 10_000,
        "0.00.000.001 " * 30_000,
    ],
    ids=range(13),
)
def test_pathological_lines_scan_without_error(line: str) -> None:
    log = scan_log(line + "\n" + CANCEL_2026)
    assert log.line_count == 2
    assert cancels(log)[-1] == (2, 774)


# -- properties ----------------------------------------------------------------------------

LOG_WORDS = st.sampled_from(
    [
        "slot print_timing: id  0 | task 3 | ",
        "slot      release: id  0 | task 3 | ",
        "prompt eval time = 1.5 ms / 7 tokens",
        "       eval time = 2.5 ms / 9 tokens",
        "total time = 4 ms / 16 tokens",
        "stop processing: n_tokens = 15, truncated = 0",
        "stop processing: n_past = 15",
        "srv  cancel_tasks: cancel task, id_task = 3",
        '{"msg":"slot released","id_task":3,"n_past":15}',
        "llama_perf_context_print: ",
        "llm-1  | ",
        "Nov 30 12:00:01 pod llama-server[1]: ",
        "0.00.000.001 I ",
        "\x1b[32m",
        "\x1b",
        "\n",
        "\r\n",
        "\r",
        " ",
        "9",
        "task",
    ]
)


def check_invariants(log: ServerLog) -> None:
    lines = [t.line for t in log.timings] + [c.line for c in log.cancels]
    lines += [r.line for r in log.releases]
    assert all(1 <= line <= log.line_count for line in lines)
    for found in (log.timings, log.cancels, log.releases):
        assert [x.line for x in found] == sorted(x.line for x in found)
    for t in log.timings:
        full = log.full_prompt_tokens(t)
        assert full is None or full >= t.prompt_n


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_scans_to_a_server_log(text: str) -> None:
    log = scan_log(text)
    assert isinstance(log, ServerLog)
    check_invariants(log)


@settings(max_examples=300, deadline=None)
@given(st.lists(LOG_WORDS, max_size=60).map("".join))
def test_text_made_of_log_fragments_scans_to_a_server_log(text: str) -> None:
    check_invariants(scan_log(text))


@settings(max_examples=200, deadline=None)
@given(st.lists(LOG_WORDS.filter(lambda w: w not in ("\n", "\r\n", "\r")), max_size=30))
def test_the_choice_of_line_end_does_not_change_the_result(lines: list[str]) -> None:
    results = {eol: scan_log(eol.join(lines)) for eol in ("\n", "\r\n", "\r")}
    assert results["\n"] == results["\r\n"] == results["\r"]


@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(min_value=0, max_value=20))
def test_max_lines_scans_a_prefix_of_the_lines(text: str, max_lines: int) -> None:
    whole = scan_log(text)
    part = scan_log(text, max_lines=max_lines)
    assert part.line_count == min(max_lines, whole.line_count)
    assert part.truncated == (whole.line_count > max_lines)
    assert part.cancels == tuple(c for c in whole.cancels if c.line <= max_lines)


# -- start-up, launches, times and printed figures ---------------------------------------


def test_real_correct_log_start_up_names_the_model_slots_and_context() -> None:
    log = scan_log(REAL_CORRECT.read_text(encoding="utf-8"))
    assert len(log.starts) == 1
    start = log.starts[0]
    assert start.model == "/opt/lab/models/qwen2.5-0.5b-instruct-q4_0.gguf"
    assert (start.n_slots, start.n_ctx_slot, start.build) == (1, 4096, None)
    assert log.ends == (116,)


def test_real_correct_log_launches_every_task_before_its_timing() -> None:
    log = scan_log(REAL_CORRECT.read_text(encoding="utf-8"))
    assert [launch.task for launch in log.launches] == [
        0, 65, 130, 195, 260, 325, 390, 423, 456, 489, 554, 587, 620, 653, 774,
    ]  # fmt: skip
    for timing_ in log.timings:
        assert timing_.task is not None
        launch = log.launch_of(timing_.task, near_line=timing_.line)
        assert launch is not None and launch.line < timing_.line


def test_time_prefix_gives_milliseconds_since_start() -> None:
    log = scan_log(CANCEL_2026)
    assert log.cancels[0].time_ms == 53 * 1000 + 999.256 and log.cancels[0].prefixed


def test_lines_without_time_prefix_have_no_time() -> None:
    log = scan_log("srv  cancel_tasks: cancel task, id_task = 12\n")
    assert log.cancels[0].time_ms is None and not log.cancels[0].prefixed


def test_a_timing_keeps_its_printed_figures_and_total() -> None:
    log = scan_log("\n".join([PROMPT_65, EVAL_65, TOTAL_65]))
    t = log.timings[0]
    assert (t.prompt_figures.per_token_ms, t.prompt_figures.per_second) == (6.57, 152.22)
    assert (t.eval_figures.per_token_ms, t.eval_figures.per_second) == (22.96, 43.55)
    assert (t.total_ms, t.total_n) == (1663.52, 97)


def test_a_split_block_takes_its_time_from_the_prefix_only_line() -> None:
    head = "0.03.443.055 I " + SPLIT_BLOCK[0]
    t = scan_log("\n".join([head, *SPLIT_BLOCK[1:]])).timings[0]
    assert t.time_ms == 3443.055 and t.prefixed and t.total_ms == 1641.15


def test_infinite_figures_are_none() -> None:
    line = (
        "prompt eval time =       0.00 ms /     1 tokens (    0.00 ms per token,      inf"
        " tokens per second)"
    )
    figures = scan_log(line).timings[0].prompt_figures
    assert (figures.per_token_ms, figures.per_second) == (0.0, None)


def test_build_line_of_2025_gives_build_and_commit() -> None:
    log = scan_log(
        "build: 5415 (8733e0c1) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu\n"
    )
    assert (log.starts[0].build, log.starts[0].commit) == (5415, "8733e0c1")


def test_build_info_of_2024_json_gives_build_and_commit() -> None:
    line = (
        '{"tid":"1","timestamp":1,"level":"INFO","function":"main","line":1,'
        '"msg":"build info","build":3140,"commit":"a1b2c3d"}'
    )
    start = scan_log(line).starts[0]
    assert (start.build, start.commit) == (3140, "a1b2c3d")


def test_a_start_up_line_after_tasks_begins_a_new_run() -> None:
    header = "0.00.006.088 I srv    load_model: loading model '/m.gguf'"
    slots = "0.01.450.042 I srv    load_model: initializing, n_slots = 2, n_ctx_slot = 2048"
    log = scan_log("\n".join([header, PROMPT_65, RELEASE_65, header, slots, PROMPT_65]))
    assert [(s.line, s.n_slots) for s in log.starts] == [(1, None), (4, 2)]
    assert [log.run_of(t.line) for t in log.timings] == [1, 2]


def test_end_of_run_line_is_recorded() -> None:
    log = scan_log("0.54.017.203 I srv    operator(): operator(): cleaning up before exit...\n")
    assert log.ends == (1,)


def test_a_start_up_line_after_the_end_of_run_line_begins_a_new_run() -> None:
    """Even with no task between: the end of a run closes its start-up lines."""
    log = scan_log("\n".join([MODEL_2026, END_2026, SLOTS_2026]))
    assert [(s.line, s.model, s.n_slots) for s in log.starts] == [
        (1, "/m.gguf", None),
        (3, None, 2),
    ]


def test_a_start_up_line_after_a_cancel_begins_a_new_run() -> None:
    log = scan_log("\n".join([MODEL_2026, CANCEL_2026, SLOTS_2026]))
    assert [(s.line, s.n_slots, s.n_ctx_slot) for s in log.starts] == [(1, None, None), (3, 2, 8)]


def _two_runs(tasks_in_first: list[int], tasks_in_second: list[int]) -> ServerLog:
    """A log of two server runs (start lines 1 and 100), one launch per task given."""
    from checks.formats.llama_log import Launch, ServerStart

    launches = [Launch(line=10 + i, task=t) for i, t in enumerate(tasks_in_first)]
    launches += [Launch(line=110 + i, task=t) for i, t in enumerate(tasks_in_second)]
    return ServerLog(
        line_count=200,
        timings=(),
        cancels=(),
        releases=(),
        truncated=False,
        launches=tuple(launches),
        starts=(ServerStart(line=1), ServerStart(line=100)),
    )


def test_launch_of_is_the_tasks_last_launch_before_the_line_in_its_run() -> None:
    log = _two_runs([5, 7, 5], [5])
    assert log.launch_of(5, near_line=50).line == 12  # type: ignore[union-attr]
    assert log.launch_of(5, near_line=11).line == 10  # type: ignore[union-attr]
    assert log.launch_of(5, near_line=150).line == 110  # type: ignore[union-attr]


def test_launch_of_a_task_launched_only_in_an_earlier_run_is_none() -> None:
    log = _two_runs([7], [5])
    assert log.launch_of(7, near_line=150) is None
    assert log.launch_of(5, near_line=105) is None
    assert log.launch_of(9, near_line=150) is None


def test_run_of_gives_each_lines_run() -> None:
    log = _two_runs([5], [5])
    assert [log.run_of(n) for n in (1, 50, 99, 100, 150)] == [1, 1, 1, 2, 2]


def test_ended_tasks_are_the_finished_and_the_cancelled_per_run() -> None:
    from checks.formats.llama_log import Cancel

    log = ServerLog(
        line_count=200,
        timings=(TaskTiming(task=3, line=20, prompt_ms=1.0, prompt_n=1),),
        cancels=(Cancel(line=120, task=4),),
        releases=(),
        truncated=False,
        starts=(ServerStart(line=1), ServerStart(line=100)),
    )
    assert log.ended_tasks() == {(1, 3), (2, 4)}


def test_unfinished_is_a_new_list_each_time() -> None:
    """`unfinished` is found once per log; what a caller does with the list it gets
    changes nothing for the next caller."""
    log = scan_log("0.53.999.256 W srv          stop: cancel task, id_task = 774\n")
    first = log.unfinished()
    first.clear()
    assert [c.task for c in log.unfinished()] == [774]


# -- the lab's build's task lines read the same wrapped or not ----------------------------

_GAP = st.text(" ", min_size=1, max_size=3)
_FIGURE = st.one_of(
    st.sampled_from(["inf", "nan", "-nan"]), st.floats(0, 1e5).map(lambda x: f"{x:.2f}")
)


_TAIL = st.sampled_from(["", "", "", "", " ", ", id_task = 3", " build: 12 (abcd)", " | task 5 |"])
"""What may follow a line: mostly nothing, else a field another pattern reads."""


@st.composite
def _task_line(draw: st.DrawFn) -> str:
    """`_build_line`, now and then with a `_TAIL` after it."""
    return draw(_build_line()) + draw(_TAIL)


@st.composite
def _build_line(draw: st.DrawFn) -> str:
    """One of the five task lines or four run lines of the lab's build, its numbers and
    spacing drawn."""
    n = draw(st.integers(0, 99_999))
    time = f"{draw(st.integers(0, 999))}.{n % 60:02d}.{n % 1000:03d}.{(n * 7) % 1000:03d} I "
    slot = f"id {draw(st.integers(0, 9)):2d} | task {draw(st.integers(0, 40))} |{draw(_GAP)}"
    ms = f"{draw(st.floats(0, 1e6)):.2f}"
    figures = draw(
        st.one_of(
            st.just(""),
            st.tuples(_FIGURE, _FIGURE, _GAP).map(  # the build prints one space before "("
                lambda f: f"{f[2]}({f[0]:>8} ms per token, {f[1]:>8} tokens per second)"
            ),
        )
    )
    kind = draw(
        st.sampled_from(
            ["prompt eval", "eval", "total", "release", "launch", "cancel", "model", "slots", "end"]
        )
    )
    if kind in ("prompt eval", "eval"):
        tokens = f"{n % 2000:5d} tokens{figures}"
        return f"{time}slot print_timing: {slot}{kind} time = {ms:>10} ms / {tokens}"
    if kind == "total":
        return f"{time}slot print_timing: {slot}total time = {ms:>10} ms / {n % 3000:5d} tokens"
    if kind == "release":
        counter = draw(st.sampled_from(["n_tokens", "n_past"]))
        return f"{time}slot      release: {slot}stop processing: {counter} = {n}, truncated = 0"
    if kind == "launch":
        return f"{time}slot launch_slot_: {slot}processing task, is_child = 0"
    if kind == "cancel":
        return f"{time}srv          stop: cancel task, id_task = {n}"
    if kind == "model":  # a path with the characters another pattern could read, at times
        around = st.text("ab/._-+0:= '\"|", max_size=12)
        path = f"{draw(around)}{draw(st.sampled_from(['', '_task', 'build']))}{draw(around)}"
        return f"{time}srv    load_model: loading model '/m/{path}'"
    if kind == "slots":
        slots = f"n_slots = {n % 9}, n_ctx_slot = {n}"
        return f"{time}srv    load_model: initializing, {slots}, kv_unified = 'false'"
    return f"{time}srv    operator(): operator(): cleaning up before exit..."


_REAL_LINES = REAL_CORRECT.read_text("utf-8").splitlines()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_task_line(), st.sampled_from(_REAL_LINES)), max_size=40))
def test_task_lines_read_the_same_behind_a_docker_compose_prefix(lines: list[str]) -> None:
    """The lab's build's task lines are read by a shortcut (`TASK_LINE`); a wrapper
    before each line sends them through the general path, which must agree."""
    wrapped = ["llm-1  | " + line for line in lines]
    assert scan_log("\n".join(lines)) == scan_log("\n".join(wrapped))


_ERA_LINES = sorted(
    {
        line
        for log in sorted((DATA / "eras").glob("*server.log"))
        for line in log.read_text("utf-8").splitlines()
    }
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                _task_line(),
                st.sampled_from(_REAL_LINES),
                st.sampled_from(_ERA_LINES),
                st.sampled_from(SPLIT_BLOCK),
                st.just(""),
            ),
            st.booleans(),
        ),
        max_size=60,
    )
)
def test_a_log_reads_the_same_whichever_of_its_lines_take_the_shortcut(
    lines: list[tuple[str, bool]],
) -> None:
    """Lines of every shape and era, some behind a docker-compose prefix (which sends them
    the general way) and some not: the shortcut's lines and the general path's, in any
    order, read as when every line goes the general way (a prefix-only block, the runs'
    start-up lines, the open timings and the events' order all carry across the two)."""
    mixed = "".join(f"llm-1  | {line}\n" if wrapped else f"{line}\n" for line, wrapped in lines)
    wrapped = "".join(f"llm-1  | {line}\n" for line, _ in lines)
    assert scan_log(mixed) == scan_log(wrapped)


def test_a_task_line_with_other_digits_reads_the_same_behind_a_prefix() -> None:
    """The shortcut reads ASCII digits only; a line whose task is written in other decimal
    digits (`\\d` and `int` accept them) is read by the general path, as when wrapped."""
    line = PROMPT_65.replace("task 65", "task \u0666\u0665")
    log = scan_log(line)
    assert [t.task for t in log.timings] == [65]
    assert log == scan_log("llm-1  | " + line)


def test_real_correct_log_reads_the_same_behind_a_docker_compose_prefix() -> None:
    wrapped = "\n".join("llm-1  | " + line for line in _REAL_LINES)
    assert scan_log("\n".join(_REAL_LINES)) == scan_log(wrapped)


@pytest.mark.parametrize("capture", sorted((DATA / "real").glob("*/server.log")))
def test_every_task_line_of_a_real_capture_takes_the_shortcut(capture: Path) -> None:
    """`TASK_LINE` is narrowed to the build's own spelling (ASCII digits, its function
    names, printf's spacing) to be cheap; every launch, timing, release, cancel, model,
    slots and end line the lab's build really printed must still be one it reads, or the
    shortcut buys nothing."""
    import re

    from checks.formats.llama_log_lines import TASK_LINE

    shape = re.compile(
        r"\| +(?:prompt eval|eval|total) time =|stop processing:|processing task"
        r"|cancel task|loading model|n_slots|cleaning up before exit"
    )
    lines = [line for line in capture.read_text("utf-8").splitlines() if shape.search(line)]
    assert len(lines) >= 76
    assert [line for line in lines if TASK_LINE.match(line) is None] == []


@st.composite
def _task_line_edited(draw: st.DrawFn) -> str:
    """A task line of the lab's build, or one with a few characters inserted, dropped or
    replaced (spaces, digits, a dot, a bar), near where the pattern's repeats are."""
    line = draw(st.one_of(_task_line(), st.sampled_from(_REAL_LINES)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(line)))
        edit = draw(st.sampled_from(["insert", "drop", "replace"]))
        char = draw(st.sampled_from([" ", "  ", "0", "7", ".", "|", "a", "\t"]))
        if edit == "insert":
            line = line[:at] + char + line[at:]
        elif edit == "drop":
            line = line[:at] + line[at + 1 :]
        else:
            line = line[:at] + char + line[at + 1 :]
    return line


@settings(max_examples=500, deadline=None)
@given(_task_line_edited())
def test_task_line_reads_what_its_backtracking_form_reads(line: str) -> None:
    """`TASK_LINE`'s repeats are possessive (they never give characters back, on Python
    3.11 and later), which is cheaper; it must match exactly the lines its plain,
    backtracking form matches, with the same groups."""
    import re

    from checks.formats.llama_log_lines import _TASK_LINE_TEXT, TASK_LINE

    plain = re.compile(_TASK_LINE_TEXT, re.MULTILINE).match(line)
    possessive = TASK_LINE.match(line)
    assert (possessive and possessive.groups()) == (plain and plain.groups())


def test_every_line_of_a_real_capture_reads_as_with_backtracking_repeats() -> None:
    import re

    from checks.formats.llama_log_lines import _TASK_LINE_TEXT, TASK_LINE

    plain = re.compile(_TASK_LINE_TEXT, re.MULTILINE)
    read = 0
    for capture in sorted((DATA / "real").glob("*/server.log")):
        for line in capture.read_text("utf-8").splitlines():
            match = TASK_LINE.match(line)
            assert (match and match.groups()) == ((m := plain.match(line)) and m.groups())
            read += match is not None
    assert read > 300


def test_task_line_groups_are_unpacked_in_the_patterns_order() -> None:
    """`scan_log` unpacks a task line's `groups()` by position: the names it uses for them
    are the pattern's groups, in the pattern's order."""
    from checks.formats.llama_log_lines import TASK_LINE, TASK_LINE_GROUPS

    assert tuple(TASK_LINE.groupindex) == TASK_LINE_GROUPS
    assert TASK_LINE.groups == len(TASK_LINE_GROUPS)


def test_an_open_timings_slots_are_task_timings_fields() -> None:
    """An open timing is `TaskTiming`'s fields in order: the slots its eval and total
    lines fill are those fields'."""
    from dataclasses import fields

    from checks.formats import llama_log_events as events

    names = [f.name for f in fields(TaskTiming)]
    assert [names[i] for i in (events._EVAL_MS, events._EVAL_N)] == ["eval_ms", "eval_n"]
    assert names[events._EVAL_FIGURES] == "eval_figures"
    assert [names[i] for i in (events._TOTAL_MS, events._TOTAL_N)] == ["total_ms", "total_n"]
    opened = events.open_timing(7, 3, 1.5, 2, events.NO_FIGURES, 9.0, True)
    assert TaskTiming(*opened) == TaskTiming(
        task=7, line=3, prompt_ms=1.5, prompt_n=2, time_ms=9.0, prefixed=True
    )


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("|| \t\x0c\x1c\x1b[0;31mKx:"), max_size=16))
def test_a_line_ending_with_a_bar_is_read_as_prefix_only_end_says(tail: str) -> None:
    """The scan reads a line that ends with `|` but for blanks and colour resets (a
    prefix-only line); it tells most such lines by `rstrip`, and must tell exactly the
    lines `PREFIX_ONLY_END` finds."""
    from checks.formats.llama_log_lines import PREFIX_ONLY_END
    from checks.formats.llama_log_text import Lines

    line = "slot print_timing: id  0 | task 3 " + tail
    chunks = Lines(line + "\nnext line\n", None).candidates()
    read = [found for chunk in chunks for found in chunk]
    assert read == ([(0, 1)] if PREFIX_ONLY_END.search(line) else [])


@given(
    st.integers(0, 999_999).map(str),
    st.integers(0, 99).map("{:02d}".format),
    st.integers(0, 999).map("{:03d}".format),
    st.integers(0, 999).map("{:03d}".format),
)
def test_a_time_prefix_is_the_float_its_fields_read_as_floats_give(
    minutes: str, seconds: str, ms: str, us: str
) -> None:
    """A time prefix's fields are read by `int` (faster than `float`); every field the
    prefix can print gives the very float the scan gave when it read them as floats, so
    no event's `time_ms` moves."""
    from checks.formats.llama_log_text import prefix_ms

    as_floats = (float(minutes) * 60 + float(seconds)) * 1000 + float(ms) + float(us) / 1000
    assert prefix_ms(minutes, seconds, ms, us).hex() == as_floats.hex()
