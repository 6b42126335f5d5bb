"""Specification of log.story: the log's other lines tell the story its timing blocks tell.

The forgeries here are the ones a forger who has read the source makes: a timing block
rewritten alone, at the run's own ms per token, with its totals recomputed; the lines
around it still tell the old story. Every era's genuine log, wrapped or not, tells one
story.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from checks.formats.llama_log import scan_log
from checks.story import _block_problem, _cancel_problem, _clock_problem, _slot_problem
from tests.conftest import REAL, ROOT, SAMPLES, check_of

ERAS = ROOT / "tests" / "data" / "eras"
UNPUBLISHED = ROOT / "tests" / "data" / "unpublished"
GENUINE = sorted(
    [*ERAS.glob("*.log"), *ERAS.glob("real_runs/*/server.log"), *SAMPLES.glob("*/server.log"),
     *SAMPLES.glob("derived/*/server.log"), *REAL.glob("*/server.log")]
)  # fmt: skip


def problems(text: str) -> list[str]:
    log = scan_log(text)
    found = [
        _block_problem(log),
        _slot_problem(log),
        _cancel_problem(log, 3, 8),
        _clock_problem(log, 1.0),
    ]
    return [p.key for p in found if p is not None]


@pytest.mark.parametrize("path", GENUINE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_genuine_log_of_every_era_tells_one_story(path: Path) -> None:
    assert problems(path.read_text("utf-8", errors="replace")) == []


def test_the_real_capture_passes(grade_folder, submission: Path) -> None:
    check = check_of(grade_folder(submission), "log.story")
    assert check.status == "passed" and check.data["slots"] == []


def test_a_docker_logs_t_copy_of_the_log_tells_the_same_story(
    grade_folder, submission: Path
) -> None:
    log = submission / "server.log"
    lines = log.read_text("utf-8").splitlines()
    log.write_text(
        "".join(f"2026-12-06T10:{i // 60 % 60:02d}:{i % 60:02d}.123456789Z {line}\n"
                for i, line in enumerate(lines)),
        "utf-8",
    )  # fmt: skip
    result = grade_folder(submission)
    assert check_of(result, "log.story").status == "passed"
    assert result.score == result.max_score


def test_a_cache_hit_whose_lines_saying_so_are_deleted_is_a_hit_unsaid() -> None:
    """A cold request rewritten as a hit: the server prints, for a whole prompt found in
    the cache, that it must still compute one token; a typed hit lacks that line."""
    text = (REAL / "correct" / "server.log").read_text("utf-8")
    forged = "".join(
        line for line in text.splitlines(keepends=True) if "evaluate at least" not in line
        and "n_past was set" not in line
    )  # fmt: skip
    assert problems(forged) == ["hit_unsaid"]


def test_a_whole_prompt_hit_rewritten_as_a_cold_prefill_still_says_it_was_a_hit() -> None:
    """no_cache_ram_flag: cache.first was a hit (the honest mistake); its block rewritten
    to the whole 1366 tokens at the run's own ms per token, totals recomputed."""
    text = (REAL / "no_cache_ram_flag" / "server.log").read_text("utf-8")
    block = re.search(r"task 554 \| prompt eval time =\s+([\d.]+) ms /\s+1 tokens.*", text)
    assert block is not None
    cold = "task 554 | prompt eval time =   13070.93 ms /  1366 tokens (    9.57 ms per token,   104.51 tokens per second)"  # noqa: E501
    # (the later time stamps not shifted here: the check reports the story first)
    assert problems(text.replace(block.group(0), cold))[0] == "whole_recomputed"


def test_a_reused_prefix_rewritten_as_a_cold_prefill_contradicts_its_kv_cache_line() -> None:
    """A 2025 log: task 554 kept 5 tokens (`kv cache rm [5, end)`) and computed 1361;
    rewritten as a cold 1366-token prefill, the kept tokens and the block disagree."""
    text = (ERAS / "early2025_server.log").read_text("utf-8")
    assert "kv cache rm [5, end)" in text and "/  1361 tokens" in text
    forged = text.replace("/  1361 tokens", "/  1366 tokens", 1)
    assert problems(forged) == ["reuse"]


def test_the_kept_count_of_a_mid_2024_json_log_is_read_from_its_p0_field() -> None:
    text = (ERAS / "mid2024_json_server.log").read_text("utf-8")
    log = scan_log(text)
    assert any(fact.value > 0 for fact in log.story.kept)
    kept = next(fact for fact in log.story.kept if fact.value > 0)
    block = next(t for t in log.timings if t.task == kept.task)
    forged = text.replace(
        f'"n_prompt_tokens_processed":{block.prompt_n}',
        f'"n_prompt_tokens_processed":{block.prompt_n + kept.value}',
    )
    forged = re.sub(
        rf"(prompt eval time\s+=\s+[\d.]+ ms /\s*){block.prompt_n}( tokens)",
        lambda m: f"{m.group(1)}{block.prompt_n + kept.value}{m.group(2)}",
        forged,
        count=1,
    )
    assert "reuse" in problems(forged)


def test_two_slots_hidden_in_props_json_and_the_start_up_line_are_named_by_every_slot_line(
    grade_folder, tmp_path: Path
) -> None:
    """-np 2: props.json edited to one slot of 4096 and the log's `n_slots = 2, n_ctx_slot
    = 2048` line to match; the tasks still ran on slot 1."""
    folder = tmp_path / "two_slots"
    shutil.copytree(UNPUBLISHED / "two_slots", folder)
    props = json.loads((folder / "props.json").read_text("utf-8"))
    props["total_slots"] = 1
    props["default_generation_settings"]["n_ctx"] = 4096
    (folder / "props.json").write_text(json.dumps(props), "utf-8")
    log = folder / "server.log"
    log.write_text(
        log.read_text("utf-8").replace(
            "n_slots = 2, n_ctx_slot = 2048", "n_slots = 1, n_ctx_slot = 4096"
        ),
        "utf-8",
    )
    result = grade_folder(folder)
    assert check_of(result, "log.lab_run").status == "passed"
    check = check_of(result, "log.story")
    assert (check.status, check.message_id) == ("failed", "log.story.slot")
    honest = grade_folder(UNPUBLISHED / "two_slots")
    assert result.score <= honest.score


def test_a_typed_cancel_over_a_task_that_ran_to_the_end_generated_too_many_tokens() -> None:
    """no_close_on_cancel: the 256-token task's timing block removed, a `cancel task` line
    typed 518 ms after its launch and its release moved right after it; the release still
    counts the whole answer's tokens."""
    text = (REAL / "no_close_on_cancel" / "server.log").read_text("utf-8")
    lines = text.splitlines(keepends=True)
    kept = [
        line for line in lines
        if not ("task 774 | prompt eval time" in line or "task 774 |        eval time" in line
                or "task 774 |       total time" in line or "task 774 |    graphs reused" in line
                or "task 774 | n_gen" in line or "task 774 | stop processing" in line)
    ]  # fmt: skip
    launch = next(i for i, line in enumerate(kept) if "task 774 | processing task" in line)
    kept[launch + 1 : launch + 1] = [
        "0.51.358.788 W srv          stop: cancel task, id_task = 774\n",
        "0.51.359.101 I slot      release: id  0 | task 774 | stop processing: n_tokens = 300, truncated = 0\n",  # noqa: E501
    ]
    assert problems("".join(kept)) == ["cancel_tokens"]


def test_the_honest_cancel_generated_what_its_time_allows() -> None:
    log = scan_log((REAL / "correct" / "server.log").read_text("utf-8"))
    assert log.unfinished() and _cancel_problem(log, 3, 8) is None


def test_a_release_stamped_sooner_than_its_task_ran_is_a_clock_problem() -> None:
    text = (REAL / "correct" / "server.log").read_text("utf-8")
    release = re.search(r"^(\S+)( I slot      release: id  0 \| task 423 \|)", text, re.M)
    assert release is not None
    forged = text.replace(release.group(0), "0.03.000.000" + release.group(2))
    assert "release_clock" in problems(forged)


def test_a_prompt_longer_than_the_batch_prints_one_kv_line_per_batch_and_the_first_counts() -> None:
    """Run with a small `-b`, a 2024-25 server prints `kv cache rm [p, end)` before each
    batch of the prompt, each from where the last batch ended: the first says what the
    cache kept."""
    text = (ERAS / "early2025_server.log").read_text("utf-8")
    first = "slot update_slots: id  0 | task 456 | kv cache rm [0, end)\n"
    assert first in text
    batches = first + "".join(
        f"slot update_slots: id  0 | task 456 | kv cache rm [{p}, end)\n" for p in (512, 1024)
    )
    assert problems(text.replace(first, batches)) == []


def _verbose(text: str) -> str:
    """The real 2026 capture as `-v` prints it: before each task's first timing line, its
    `new prompt ... task.n_tokens = N` and `n_tokens = K, memory_seq_rm [K, end)` lines,
    with the whole prompt N from its release and K = N - the block's prompt tokens."""
    log = scan_log(text)
    lines = text.splitlines(keepends=True)
    for t in sorted(log.timings, key=lambda t: -t.line):
        full = log.full_prompt_tokens(t)
        assert full is not None
        stamp = lines[t.line - 1].split(" ", 1)[0]
        prefix = f"{stamp} I slot update_slots: id  0 | task {t.task} | "
        lines[t.line - 1 : t.line - 1] = [
            f"{prefix}new prompt, n_ctx_slot = 4096, n_keep = 0, task.n_tokens = {full}\n",
            f"{prefix}n_tokens = {full - t.prompt_n}, memory_seq_rm [{full - t.prompt_n}, end)\n",
        ]
    return "".join(lines)


@pytest.mark.parametrize("name", ["correct", "cache_on_in_prefill", "no_cache_ram_flag"])
def test_a_verbose_2026_log_tells_the_same_story(name: str) -> None:
    assert problems(_verbose((REAL / name / "server.log").read_text("utf-8"))) == []


def test_cache_on_in_prefill_rewritten_cold_in_a_verbose_log_contradicts_memory_seq_rm() -> None:
    """The 4-document prefill kept 15 tokens from the cache (mistake 2); its block
    rewritten to the whole 526 tokens, the verbose lines still say 15 were kept."""
    text = _verbose((REAL / "cache_on_in_prefill" / "server.log").read_text("utf-8"))
    assert "/   511 tokens" in text
    assert problems(text.replace("/   511 tokens", "/   526 tokens", 1)) == ["reuse"]


def test_two_slots_hidden_down_to_every_slot_id_still_pick_two_never_used_slots() -> None:
    """-np 2 hidden further: the start-up line edited and every `id  1` made `id  0`. A
    2026 server picks a slot no task used yet (`t_last = -1`) once per slot: twice."""
    text = (UNPUBLISHED / "two_slots" / "server.log").read_text("utf-8")
    text = text.replace("n_slots = 2, n_ctx_slot = 2048", "n_slots = 1, n_ctx_slot = 4096")
    assert problems(text.replace("id  1 |", "id  0 |")) == ["unused_slots"]
