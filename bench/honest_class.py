"""A class of distinct submissions for the batch benchmark, made from real runs.

It is no laundering tool: a generated student keeps the rhythm of its base's stream (its
decoding is rescaled as a whole), which is the base's fingerprint (`checks.fingerprint`),
so the grader knows every student it makes as the published run it came from
(`submission.original` fails, naming it), and a class of them is one group per base
(`grader.class_report.groups`). The benchmark grades them as the project's tests grade
their own captures, with a run registry that does not know the bases
(`checks.runs.OVERRIDE`), so that every check runs; `copy_group` makes the byte-distinct,
rescaled copies of one run whose grouping the benchmark measures.

Every generated student is one of the real captures of `tests/data/real/` (published:
the run registry knows them) re-timed: every file differs in bytes from every other
student's, and everything the grader corroborates still agrees, so, graded with a
registry that does not know the bases, each student gets exactly the verdict of the run
it came from. The benchmark then measures the normal path of grading (every check run),
not an early refusal.

What changes, per student (seeded; the same seed gives the same class):

- each request the server timed runs at its own speed, its prompt processing and its
  decoding apart (compute and memory bandwidth vary apart on a shared pod): a factor per
  student in [0.7, 1.7] for each (another pod) times one per request in [0.85, 1.18] (a
  busy moment; never enough to make a longer prompt the faster one). They scale the
  request's timing block in the log (ms, ms per token and tokens per second recomputed
  with the era's divisor, total = prompt + eval to the cent), the spacing of its log
  lines (a task's lines stay as far apart as it ran, later lines move with it) and every
  time the client measured of it, the part up to the first token at the prompt's speed
  and the rest at the decoding's: ttft.json's runs (the medians recomputed),
  prefill.json, cache.json, sentence.json, the stream's `timings` (three decimals, the
  log's two taken from them), chunks.jsonl's times; report.json copies the new values.
  Which request is which comes from grading the base once (the `*.in_log` checks record
  the task of each measurement).
- the cancel request keeps its speed (the client's own 0.5 s timer ends it): it closes a
  few microseconds later and its slot goes idle a little later, in cancel.json and in
  the log's cancel and release lines alike.
- the stream has its own `chatcmpl` id and `created` time; health.json and props.json
  (byte for byte what the server sent, whitespace aside) end in whitespace of their own;
  sse.py starts with a comment naming its author.

`tests/test_bench_class.py` grades a small class made this way and holds it to all of
the above.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "real"
POD = (0.7, 1.7)
"""The range of a student's pod speed factor, for prompts and for decoding (log-uniform)."""
MOMENT = (0.85, 1.18)
"""The range of one request's own factor on top of the pod's (log-uniform)."""


@dataclass(frozen=True)
class Speed:
    """How much longer one request took: its prompt processing, and its decoding."""

    prompt: float = 1.0
    decode: float = 1.0

    def ttft(self, ms: float) -> float:
        """A time up to the first token (prompt processing)."""
        return round(ms * self.prompt, 3)

    def after(self, ms: float, first: float, new_first: float) -> float:
        """A time after the first token at `first` (now `new_first`): the rest decodes."""
        return round(new_first + (ms - first) * self.decode, 3)


_PREFIX = re.compile(r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) ")
_TASK = re.compile(r"\| task (-?\d+) \||\bid_task = (\d+)")
_BLOCK = re.compile(
    r"(?P<head>(?:prompt eval time|eval time) =)(?P<ms> *\d+\.\d+) ms /(?P<n> *\d+) tokens "
    r"\((?P<per> *\d+\.\d+) ms per token,(?P<rate> *\d+\.\d+) tokens per second\)"
)
_TOTAL = re.compile(r"(?P<head>total time =)(?P<ms> *\d+\.\d+)(?P<tail> ms /)")


@dataclass(frozen=True)
class Base:
    """A real capture and which log task each of its measurements came from."""

    folder: Path
    sse_task: int
    ttft_tasks: tuple[int, ...]
    prefill_tasks: tuple[int, ...]
    cache_tasks: tuple[int, ...]
    sentence_task: int


def registry_without_bases() -> str:
    """A run registry without the bases' runs, in a temporary file, now in use
    (`checks.runs.OVERRIDE`, also for the graders this process starts): the generated
    students are graded as their bases would be if they were a student's own runs."""
    import os
    import tempfile

    sys.path.insert(0, str(ROOT))
    from checks.runs import OVERRIDE, preload, without_runs_of

    if os.environ.get(OVERRIDE):
        return os.environ[OVERRIDE]
    runs = without_runs_of(sorted(p for p in REAL.iterdir() if p.is_dir()))
    handle, path = tempfile.mkstemp(prefix="runs-without-bases-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump({"runs": runs}, out)
    os.environ[OVERRIDE] = path
    preload()
    return path


def bases() -> list[Base]:
    """The real captures of tests/data/real, each graded once for its task mapping (with
    a registry that does not know them, `registry_without_bases`)."""
    registry_without_bases()
    from checks import LAB
    from grader.engine.grade import grade
    from grader.engine.rubric import load_lab_rubric

    rubric = load_lab_rubric(LAB, None)
    found = []
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        data = {c.id: c.data for c in grade(LAB, str(folder), rubric).checks}
        found.append(
            Base(
                folder,
                data["sse.in_log"]["task"],
                tuple(data["ttft.in_log"]["tasks"]),
                tuple(data["prefill.in_log"]["tasks"]),
                tuple(data["cache.in_log"]["tasks"]),
                data["sentence.in_log"]["task"],
            )
        )
    return found


# -- the server log ----------------------------------------------------------------------


def _stamp(us: int) -> str:
    ms, micro = divmod(us, 1000)
    seconds, milli = divmod(ms, 1000)
    minutes, sec = divmod(seconds, 60)
    return f"{minutes}.{sec:02d}.{milli:03d}.{micro:03d} "


def _cents(value: float) -> int:
    return round(value * 100)


def _two(cents: int, width: int) -> str:
    return f"{cents / 100:.2f}".rjust(width)


def _figures(ms_cents: int, divisor: int, per: str, rate: str) -> tuple[str, str]:
    ms = ms_cents / 100
    return f"{ms / divisor:.2f}".rjust(len(per)), f"{1000 * divisor / ms:.2f}".rjust(len(rate))


def _divisor(ms: float, n: int, per: float) -> int:
    """The token count this era divides `ms` by (n, or n - 1 for `eval time`)."""
    return min((d for d in (n, n - 1) if d > 0), key=lambda d: abs(ms / d - per))


def _timed_line(line: str, speed: Speed, precise: dict[str, float]) -> tuple[str, dict[str, int]]:
    """A timing line with its ms scaled; `precise` gives the three-decimal value a client
    file holds for this task's prompt or eval, from which the log's two decimals come."""
    sums: dict[str, int] = {}

    def block(match: re.Match[str]) -> str:
        which = "prompt" if match["head"].startswith("prompt") else "eval"
        ms, n = float(match["ms"]), int(match["n"])
        divisor = n if which == "prompt" else _divisor(ms, n, float(match["per"]))
        factor = speed.prompt if which == "prompt" else speed.decode
        cents = _cents(precise[which] if which in precise else ms * factor)
        sums[which] = cents
        per, rate = _figures(cents, divisor, match["per"], match["rate"])
        return (
            f"{match['head']}{_two(cents, len(match['ms']))} ms /{match['n']} tokens "
            f"({per} ms per token,{rate} tokens per second)"
        )

    return _BLOCK.sub(block, line), sums


def rewrite_log(
    text: str, speeds: dict[int, Speed], precise: dict[int, dict[str, float]], cancel: int,
    late_us: tuple[int, int],
) -> str:  # fmt: skip
    """The log of the same run with each timed task at its own speed; the cancel task
    `cancel` noticed the close `late_us[0]` µs later (when it noticed it at all) and
    released its slot `late_us[1]` µs later than that."""
    noticed = _has_cancel_line(text)
    log_blocks = _blocks(text)
    out: list[str] = []
    shift = 0
    task: int | None = None
    launch = last = 0
    sums: dict[int, dict[str, int]] = {}
    for line in text.splitlines(keepends=True):
        prefix = _PREFIX.match(line)
        if prefix is None:
            out.append(line)
            continue
        m, s, ms, us = (int(g) for g in prefix.groups())
        at = ((m * 60 + s) * 1000 + ms) * 1000 + us
        found = _TASK.search(line)
        this = int(found[1] or found[2]) if found else None
        if this is not None and this < 0:
            this = None
        if task is not None and this != task:
            shift += _grown(task, launch, last, log_blocks, speeds, cancel, _late(late_us, noticed))
            task = None
        rest = line[prefix.end() :]
        if this is None:
            out.append(_stamp(at + shift) + rest)
            continue
        if task is None:
            task, launch = this, at
        last = at
        speed = speeds.get(this, Speed())
        new = launch + shift + round((at - launch) * _stretch(log_blocks, this, speed))
        if this == cancel:
            new = at + shift + _cancel_delay(rest, late_us, noticed)
        rest, got = _timed_line(rest, speed, precise.get(this, {}))
        sums.setdefault(this, {}).update(got)
        if "total time =" in rest and {"prompt", "eval"} <= sums[this].keys():
            total = sums[this]["prompt"] + sums[this]["eval"]
            rest = _TOTAL.sub(
                lambda t, cents=total: f"{t['head']}{_two(cents, len(t['ms']))}{t['tail']}",
                rest,
                count=1,
            )
        out.append(_stamp(new) + rest)
    return "".join(out)


def _late(late_us: tuple[int, int], noticed: bool) -> int:
    """How much later the cancel task releases its slot: the later close, if the server
    noticed it, and the slower release."""
    return late_us[0] + late_us[1] if noticed else late_us[1]


def _cancel_delay(rest: str, late_us: tuple[int, int], noticed: bool) -> int:
    if "cancel task" in rest:
        return late_us[0]
    if "stop processing" in rest:
        return _late(late_us, noticed)
    return 0


def _grown(
    task: int, launch: int, last: int, log_blocks: dict[int, tuple[float, float]],
    speeds: dict[int, Speed], cancel: int, late: int,
) -> int:  # fmt: skip
    """How much later the lines after `task` come, now that it ran at its speed."""
    if task == cancel:
        return late
    stretch = _stretch(log_blocks, task, speeds.get(task, Speed()))
    return round((last - launch) * stretch) - (last - launch)


def _blocks(log: str) -> dict[int, tuple[float, float]]:
    """Per task, its prompt and eval ms as the log prints them."""
    found: dict[int, tuple[float, float]] = {}
    for match in re.finditer(r"\| task (\d+) \| prompt eval time = *(\d+\.\d+)", log):
        found[int(match[1])] = (float(match[2]), 0.0)
    for match in re.finditer(r"\| task (\d+) \| +eval time = *(\d+\.\d+)", log):
        task = int(match[1])
        found[task] = (found.get(task, (0.0, 0.0))[0], float(match[2]))
    return found


def _stretch(log_blocks: dict[int, tuple[float, float]], task: int, speed: Speed) -> float:
    """How much longer the whole task ran: its prompt and decoding, each at its speed."""
    prompt, decode = log_blocks.get(task, (0.0, 0.0))
    if prompt + decode <= 0:
        return 1.0
    return (prompt * speed.prompt + decode * speed.decode) / (prompt + decode)


# -- the client's files ------------------------------------------------------------------


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _whitespace(number: int) -> str:
    """Insignificant whitespace unique to `number`: its bits as spaces and tabs."""
    bits = max(11, number.bit_length())
    return "".join("\t" if number >> i & 1 else " " for i in range(bits)) + "\n"


def student(
    base: Base, target: Path, number: int, rng: random.Random, factor: float | None = None
) -> None:
    """Write student `number` of `base` into `target` (a new folder); with `factor`, a
    plain copy of the run with every time of every request times `factor` (`copy_group`)."""
    shutil.copytree(base.folder, target)
    text: Callable[[str], str] = lambda name: (target / name).read_text("utf-8")  # noqa: E731
    log = text("server.log")
    cancel_task = _last_task(log)
    pod = Speed(_draw(rng, POD), _draw(rng, POD)) if factor is None else Speed(factor, factor)
    speeds = {
        t: (
            Speed(pod.prompt * _draw(rng, MOMENT), pod.decode * _draw(rng, MOMENT))
            if factor is None
            else pod
        )
        for t in _timed_tasks(log)
        if t != cancel_task
    }
    precise: dict[int, dict[str, float]] = {}

    ttft = json.loads(text("ttft.json"))
    for run, task in zip(ttft["runs"], base.ttft_tasks, strict=True):
        first = speeds[task].ttft(run["ttft_ms"])
        run["total_ms"] = speeds[task].after(run["total_ms"], run["ttft_ms"], first)
        run["ttft_ms"] = first
    ttft["ttft_p50"] = median(r["ttft_ms"] for r in ttft["runs"])
    ttft["total_p50"] = median(r["total_ms"] for r in ttft["runs"])
    prefill = json.loads(text("prefill.json"))
    for entry, task in zip(prefill, base.prefill_tasks, strict=True):
        entry["prompt_ms"] = speeds[task].ttft(entry["prompt_ms"])
        entry["ttft_ms"] = speeds[task].ttft(entry["ttft_ms"])
        precise[task] = {"prompt": entry["prompt_ms"]}
    cache = json.loads(text("cache.json"))
    for key, task in zip(("first", "second", "changed_prefix"), base.cache_tasks, strict=True):
        cache[key]["ttft_ms"] = speeds[task].ttft(cache[key]["ttft_ms"])
    sentence = json.loads(text("sentence.json"))
    speed, first = speeds[base.sentence_task], sentence["ttft_ms"]
    sentence["ttft_ms"] = speed.ttft(first)
    for key in ("first_sentence_ms", "total_ms"):
        sentence[key] = speed.after(sentence[key], first, sentence["ttft_ms"])
    cancel = json.loads(text("cancel.json"))
    late_us = (1 + number % 997, 10 * rng.randrange(100))
    cancel["closed_at_ms"] = round(cancel["closed_at_ms"] + late_us[0] / 1000, 3)
    release_later = _late(late_us, _has_cancel_line(log)) - late_us[0]  # after the close
    cancel["slot_idle_after_ms"] = round(cancel["slot_idle_after_ms"] + release_later / 1000, 3)
    report = json.loads(text("report.json"))
    twelve = next(e for e in prefill if e["docs"] == 12)
    report.update(
        ttft_p50_ms=ttft["ttft_p50"],
        total_p50_ms=ttft["total_p50"],
        ttft_12docs_ms=twelve["ttft_ms"],
        cache_ttft_ms=cache["second"]["ttft_ms"],
        first_sentence_ms=sentence["first_sentence_ms"],
        cancel_idle_ms=cancel["slot_idle_after_ms"],
    )
    for name, data in (("ttft.json", ttft), ("prefill.json", prefill), ("cache.json", cache),
                       ("sentence.json", sentence), ("cancel.json", cancel),
                       ("report.json", report)):  # fmt: skip
        (target / name).write_text(_json(data), "utf-8")

    speed = speeds[base.sse_task]
    stream, timings = _stream(text("sse_raw.txt"), speed, rng)
    (target / "sse_raw.txt").write_text(stream, "utf-8")
    precise[base.sse_task] = timings
    chunks = [json.loads(line) for line in text("chunks.jsonl").splitlines() if line.strip()]
    first = chunks[0]["t_ms"] if chunks else 0.0
    for chunk in chunks:
        chunk["t_ms"] = speed.after(chunk["t_ms"], first, speed.ttft(first))
    lines = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chunks)
    (target / "chunks.jsonl").write_text(lines, "utf-8")
    (target / "server.log").write_text(
        rewrite_log(log, speeds, precise, cancel_task, late_us), "utf-8"
    )
    for name in ("health.json", "props.json"):
        (target / name).write_text(text(name).rstrip() + _whitespace(number), "utf-8")
    (target / "sse.py").write_text(f"# sse.py of student {number}\n" + text("sse.py"), "utf-8")


def _timed_tasks(log: str) -> list[int]:
    return sorted({int(m[1]) for m in re.finditer(r"\| task (\d+) \| prompt eval time", log)})


def _last_task(log: str) -> int:
    return max(int(m[1]) for m in re.finditer(r"\| task (\d+) \| processing task", log))


def _has_cancel_line(log: str) -> bool:
    return "cancel task" in log


_ID = re.compile(r'"chatcmpl-[A-Za-z0-9]+"')
_CREATED = re.compile(r'"created":(\d+)')
_TIMINGS = re.compile(r'"timings":(\{[^{}]*\})')


def _draw(rng: random.Random, bounds: tuple[float, float]) -> float:
    low, high = bounds
    return float(low * (high / low) ** rng.random())


def _stream(text: str, speed: Speed, rng: random.Random) -> tuple[str, dict[str, float]]:
    """The stream with its own id and `created` time, its `timings` at `speed`; and the
    three-decimal prompt and eval ms the log's two decimals must come from."""
    alphabet = string.ascii_letters + string.digits
    new_id = '"chatcmpl-' + "".join(rng.choice(alphabet) for _ in range(32)) + '"'
    later = rng.randrange(3600, 10**7)
    text = _ID.sub(new_id, text)
    text = _CREATED.sub(lambda m: f'"created":{int(m[1]) + later}', text)
    precise: dict[str, float] = {}

    def timings(match: re.Match[str]) -> str:
        data = json.loads(match[1])
        for part, n_key, divisor_of in (("prompt", "prompt_n", 0), ("predicted", "predicted_n", 1)):
            ms = data[f"{part}_ms"]
            divisor = _divisor(ms, data[n_key], data[f"{part}_per_token_ms"]) if divisor_of else (
                data[n_key]
            )  # fmt: skip
            new = speed.ttft(ms) if part == "prompt" else round(ms * speed.decode, 3)
            data[f"{part}_ms"] = new
            data[f"{part}_per_token_ms"] = new / divisor
            data[f"{part}_per_second"] = 1000 * divisor / new
            precise["prompt" if part == "prompt" else "eval"] = new
        return '"timings":' + json.dumps(data, separators=(",", ":"))

    return _TIMINGS.sub(timings, text), precise


def copy_group(
    out: Path, count: int, base_name: str = "correct", seed: int = 17, rescaled: bool = True
) -> list[Path]:
    """`count` students in `out/copy-<number>` who all hand in the one real run
    `base_name`, each with every time rescaled (1.2 % apart: x 0.7 * 1.012 ** (n % 80),
    nudged by 0.01 % per 80), its own ids and whitespace: byte-distinct copies, which the
    class report must find as one group (`grader.class_report.groups`). Not `rescaled`:
    every time as it was (the ids, whitespace and cancel's microseconds differ)."""
    rng = random.Random(seed)
    base = next(b for b in bases() if b.folder.name == base_name)
    made = []
    for number in range(count):
        factor = 0.7 * 1.012 ** (number % 80) * (1 + 1e-4 * (number // 80)) if rescaled else 1.0
        target = out / f"copy-{number:05d}"
        student(base, target, number, rng, factor)
        made.append(target)
    return made


def make_class(out: Path, count: int, seed: int = 13) -> list[Path]:
    """`count` students in `out/<base>-<number>`, round-robin over the real captures."""
    rng = random.Random(seed)
    found = bases()
    made = []
    for number in range(count):
        base = found[number % len(found)]
        target = out / f"{base.folder.name}-{number:05d}"
        student(base, target, number, rng)
        made.append(target)
    return made
