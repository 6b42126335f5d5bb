"""Every measurement is its own request of the log: the lab-wide one-to-one assignment.

Each step's `*.in_log` check finds a request of the log for its own numbers. Alone, each
could find the same one: sentence.json filled from a ttft run's numbers finds that run's
request, and a 64-token request passes for the sentence's. Here every measurement the
lab made (the stream of sse_raw.txt, the five ttft runs, the three prefill requests,
first, second and changed_prefix, the sentence, the cancel) is given a request of its
own, at once, each by its own signature:

- the stream: its final `timings` (prompt_n, predicted_n, prompt_ms, predicted_ms);
- a ttft run: its token count, its time from first token to end (the request's `eval
  time`), a first token after the request's prefill;
- a prefill entry: its prompt_n and prompt_ms, a first token after them;
- a cache entry: its prompt_n, a first token after that prefill;
- the sentence: at most `sentence_max_tokens` generated, its time from first token to
  end, a first token after the prefill;
- the cancel: a task cut off before it finished, or one that ran to cancel.json's
  max_tokens.

The time tolerances are generous (`noise_ms`, or `noise_share` of the duration, which is
larger): this decides which step a request belongs to, not whether a number agrees
(each step's `*.in_log` judges that). The assignment is a minimum-cost perfect matching
(the Hungarian method, with one "no request" column per measurement that costs more
than any set of real pairs): as many measurements as possible get a request, and among
those assignments the one whose numbers lie closest, ties going to the earlier request
and, between measurements, to the one with the stronger signature (a measurement that
loses its request to another is the weaker: the cancel, then the sentence, the ttft
runs, the cache, the prefill, the stream). Deterministic: it depends only on the files.

Only the `len(items)` nearest candidates of each measurement are offered (exact: the
other measurements hold at most `len(items) - 1`, so swapping one for a free nearer one
never costs more), so a near-cap log of 18,000 requests costs a few window walks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from checks.evidence import agree, blocks, finite, request_data, request_params, resolution
from checks.formats.llama_log import Cancel, Release, ServerLog, TaskTiming
from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer, Number

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    Request = TaskTiming | Cancel | Release
    RequestKey = tuple[str | int, int]
    """One request of the log (`request_key`): its server run and task, or its line."""

MOST_MEASUREMENTS = 20
"""The lab makes 14 measurements. A file with far more (ttft.json and prefill.json take
any number of entries) is no run of the lab: its own check reports it, and matching
them all would cost the square of their number times their candidates."""
UNMATCHED = 1_000.0
"""What leaving a measurement without a request costs: more than any assignment of real
pairs (each costs at most 1, and there are at most a few dozen)."""
PRIORITY = {"sse": 6, "prefill": 5, "cache": 4, "ttft": 3, "sentence": 2, "cancel": 1}
"""How strong each step's signature is: the weaker loses a request both fit."""
STEP_FILES = {
    "sse": "sse",
    "ttft": "ttft",
    "prefill": "prefill",
    "cache": "cache",
    "sentence": "sentence",
    "cancel": "cancel",
}
"""The artifact each step's measurements are in."""
FILE_NAMES = {
    "sse": "sse_raw.txt",
    "ttft": "ttft.json",
    "prefill": "prefill.json",
    "cache": "cache.json",
    "sentence": "sentence.json",
    "cancel": "cancel.json",
}


class Settings:
    """The assignment's tolerances (the rubric's `log.one_request_each` parameters)."""

    def __init__(
        self, noise_ms: float, noise_share: float, overhead_ms: float, sentence_max_tokens: int
    ) -> None:
        self.noise_ms, self.noise_share = noise_ms, noise_share
        self.overhead_ms, self.sentence_max_tokens = overhead_ms, sentence_max_tokens

    def noise(self, duration: float) -> float:
        return max(self.noise_ms, self.noise_share * abs(duration))

    def first_token_fits(self, ttft: float, timing: TaskTiming) -> bool:
        """A first token after the request's prefill, and not absurdly later."""
        low = timing.prompt_ms - resolution(timing.prompt_ms) - resolution(ttft)
        high = timing.prompt_ms + self.overhead_ms + self.noise(timing.prompt_ms)
        return low - 1e-9 <= ttft <= high + resolution(ttft)


class Item:
    """One measurement: its step, its place in its file, and the requests it fits, each
    with what taking it costs (0: the numbers agree exactly; at most 1)."""

    def __init__(self, step: str, index: int, pointer: str) -> None:
        self.step, self.index, self.pointer = step, index, pointer
        self.options: dict[RequestKey, tuple[float, Request]] = {}

    @property
    def label(self) -> str:
        """How a message names it: its file, and its place there (`ttft.json /runs/2`)."""
        file = FILE_NAMES[self.step.partition(".")[0]]
        return f"{file} {self.pointer}" if self.pointer else file


def request_key(log: ServerLog, request: Request) -> RequestKey:
    """What makes two events one request: its task in its server run (task ids restart
    with the server), or its line for a request of no task."""
    if request.task is None:
        return ("line", request.line)
    return (log.run_of(request.line), request.task)


def _offer(
    log: ServerLog,
    item: Item,
    found: Iterable[Request],
    cost: Callable[[Request], float],
    most: int,
) -> None:
    """Give `item` the first `most` of `found` (already only those that fit, nearest
    first) with their costs."""
    for request in found:
        key = request_key(log, request)
        if key not in item.options:
            item.options[key] = (min(1.0, max(0.0, cost(request))), request)
            if len(item.options) >= most:
                return


def _fitting(
    candidates: tuple[TaskTiming, ...], positions: Iterable[int], fits: Callable[[TaskTiming], bool]
) -> Iterable[TaskTiming]:
    return (candidates[j] for j in positions if fits(candidates[j]))


def measurements(
    log: ServerLog, files: dict[str, Any], settings: Settings, most: int = 0
) -> list[Item]:
    """Every measurement of the files given (a missing or invalid file: none of its
    own), each with the requests of the log it fits."""
    items: list[Item] = []
    candidates = blocks(log)
    eval_window, prompt_window = log.eval_window, log.prompt_window
    sse, ttft, prefill = files.get("sse"), files.get("ttft"), files.get("prefill")
    cache, sentence, cancel = files.get("cache"), files.get("sentence"), files.get("cancel")
    pending: list[tuple[Item, Callable[[Item, int], None]]] = []

    if sse is not None:
        chunks = sse.chunks
        timings = (chunks[-1].chunk or {}).get("timings") if chunks else None
        if isinstance(timings, dict):
            item = Item("sse", -1, "")
            pn, en = timings.get("prompt_n"), timings.get("predicted_n")
            pms, ems = timings.get("prompt_ms"), timings.get("predicted_ms")
            pms = pms if finite(pms) else None
            ems = ems if finite(ems) else None

            def sse_fits(t: TaskTiming) -> bool:
                return (
                    t.prompt_n == pn
                    and t.eval_n == en
                    and (pms is None or agree(pms, t.prompt_ms))
                    and (ems is None or t.eval_ms is None or agree(ems, t.eval_ms))
                )

            def sse_cost(t: Request) -> float:
                assert isinstance(t, TaskTiming)
                off = abs((pms or t.prompt_ms) - t.prompt_ms)
                off += abs((ems or t.eval_ms or 0) - (t.eval_ms or 0))
                mean: float = off / 2.0  # pms and ems are the stream's JSON numbers
                return mean

            def offer_sse(item: Item, most: int, pms: Any = pms) -> None:
                near = prompt_window.agreeing(pms) if pms is not None else range(len(candidates))
                _offer(log, item, _fitting(candidates, near, sse_fits), sse_cost, most)

            pending.append((item, offer_sse))

    def timed(step: str, index: int, pointer: str, ttft_ms: float, total_ms: float,
              tokens: Callable[[int | None], bool]) -> None:  # fmt: skip
        if not (finite(ttft_ms) and finite(total_ms)) or not ttft_ms < total_ms:
            return
        generated = total_ms - ttft_ms
        noise = settings.noise(generated)

        def fits(t: TaskTiming) -> bool:
            return (
                tokens(t.eval_n)
                and t.eval_ms is not None
                and agree(generated, t.eval_ms, noise)
                and settings.first_token_fits(ttft_ms, t)
            )

        def cost(t: Request) -> float:
            assert isinstance(t, TaskTiming)
            return abs(generated - (t.eval_ms or 0)) / (noise + 1.0)

        def offer(item: Item, most: int) -> None:
            near = eval_window.agreeing(generated, noise)
            _offer(log, item, _fitting(candidates, near, fits), cost, most)

        pending.append((Item(step, index, pointer), offer))

    if ttft is not None:
        for index, run in enumerate(ttft.get("runs") or []):
            tokens = run.get("tokens")

            def same_tokens(n: int | None, tokens: object = tokens) -> bool:
                return n == tokens

            timed("ttft", index, f"/runs/{index}", run["ttft_ms"], run["total_ms"], same_tokens)

    if prefill is not None:
        for index, entry in enumerate(prefill):
            item = Item("prefill", index, f"/{index}")

            def prefill_fits(t: TaskTiming, e: Any = entry) -> bool:
                return (
                    t.prompt_n == e["prompt_n"]
                    and agree(t.prompt_ms, e["prompt_ms"])
                    and e["ttft_ms"]
                    >= t.prompt_ms - resolution(t.prompt_ms) - resolution(e["ttft_ms"]) - 1e-9
                )

            def prefill_cost(t: Request, e: Any = entry) -> float:
                assert isinstance(t, TaskTiming)
                prompt_ms: float = e["prompt_ms"]
                return abs(t.prompt_ms - prompt_ms)

            def offer_prefill(item: Item, most: int, e: Any = entry,
                              f: Callable[[TaskTiming], bool] = prefill_fits,
                              c: Callable[[Request], float] = prefill_cost) -> None:  # fmt: skip
                near = prompt_window.agreeing(e["prompt_ms"])
                _offer(log, item, _fitting(candidates, near, f), c, most)

            pending.append((item, offer_prefill))

    if cache is not None:
        for key in ("first", "second", "changed_prefix"):
            entry = cache[key]
            item = Item("cache", -1, f"/{key}")
            item.step = f"cache.{key}"

            def cache_fits(t: TaskTiming, e: Any = entry) -> bool:
                return t.prompt_n == e["prompt_n"] and settings.first_token_fits(e["ttft_ms"], t)

            def cache_cost(t: Request, e: Any = entry) -> float:
                assert isinstance(t, TaskTiming)
                ttft_ms: float = e["ttft_ms"]
                return abs(ttft_ms - t.prompt_ms) / (settings.overhead_ms + 1.0)

            def offer_cache(item: Item, most: int, e: Any = entry,
                            f: Callable[[TaskTiming], bool] = cache_fits,
                            c: Callable[[Request], float] = cache_cost) -> None:  # fmt: skip
                high = settings.overhead_ms + settings.noise(e["ttft_ms"]) + 1.0
                near = prompt_window.nearest(e["ttft_ms"], max(high, e["ttft_ms"]))
                _offer(log, item, _fitting(candidates, near, f), c, most)

            pending.append((item, offer_cache))

    if sentence is not None:
        limit = settings.sentence_max_tokens
        timed("sentence", -1, "", sentence["ttft_ms"], sentence["total_ms"],
              lambda n: n is not None and n <= limit)  # fmt: skip

    if cancel is not None:
        item = Item("cancel", -1, "")
        max_tokens = cancel["max_tokens"]

        def offer_cancel(item: Item, most: int) -> None:
            cut = [e for e in reversed(log.unfinished()) if e.task is not None]
            _offer(log, item, cut, lambda e: 0.0, most)
            ran = (t for t in reversed(candidates) if t.eval_n == max_tokens)
            _offer(log, item, ran, lambda e: 0.5, most)

        pending.append((item, offer_cancel))

    most = most or len(pending)
    for item, offer in pending:
        offer(item, most)
        items.append(item)
    return items


def _hungarian(costs: list[list[float]]) -> list[int]:
    """For each row, the column of a minimum-cost assignment (rows <= columns), by the
    shortest augmenting paths with potentials (O(rows^2 x columns)). Deterministic: ties
    go to the lower column, rows placed in order."""
    rows, columns = len(costs), len(costs[0]) if costs else 0
    inf = float("inf")
    u, v = [0.0] * (rows + 1), [0.0] * (columns + 1)
    owner = [0] * (columns + 1)  # owner[j]: the row (1-based) holding column j; 0: none
    way = [0] * (columns + 1)
    for row in range(1, rows + 1):
        owner[0] = row
        j0 = 0
        least = [inf] * (columns + 1)
        used = [False] * (columns + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], inf, 0
            for j in range(1, columns + 1):
                if not used[j]:
                    current = costs[i0 - 1][j - 1] - u[i0] - v[j]
                    if current < least[j]:
                        least[j], way[j] = current, j0
                    if least[j] < delta:
                        delta, j1 = least[j], j
            for j in range(columns + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    found = [-1] * rows
    for j in range(1, columns + 1):
        if owner[j]:
            found[owner[j] - 1] = j - 1
    return found


class Assignment:
    """Which request each measurement got (None: none of its own), and the log's requests
    no measurement took."""

    def __init__(self, log: ServerLog, items: list[Item]) -> None:
        self.items = items
        keys: list[RequestKey] = sorted({key for item in items for key in item.options}, key=repr)
        requests = {key: r for item in items for key, (_, r) in item.options.items()}
        keys.sort(key=lambda key: requests[key].line)  # the earlier request wins a tie
        column = {key: j for j, key in enumerate(keys)}
        size = len(keys) + len(items)
        costs: list[list[float]] = []
        for i, item in enumerate(items):
            row = [UNMATCHED * 10] * size
            for key, (cost, _) in item.options.items():
                row[column[key]] = cost + 1e-6 * column[key]
            row[len(keys) + i] = UNMATCHED + PRIORITY[item.step.partition(".")[0]]
            costs.append(row)
        chosen = _hungarian(costs) if items else []
        self.request: list[Request | None] = []
        self.holder: dict[RequestKey, Item] = {}
        for item, j in zip(items, chosen, strict=True):
            if 0 <= j < len(keys) and keys[j] in item.options:
                self.request.append(item.options[keys[j]][1])
                self.holder[keys[j]] = item
            else:
                self.request.append(None)
        taken = set(self.holder)
        every: list[Request] = [*blocks(log), *(e for e in log.unfinished())]
        self.unexplained = sorted(
            (r for r in every if request_key(log, r) not in taken), key=lambda r: r.line
        )

    def clearing(self, log: ServerLog) -> Request | None:
        """The cache step's short request that clears the slot: the request no
        measurement took, right before cache.first's in the same server run, with no
        measurement's request between them (None when there is none)."""
        first = next(
            (r for i, r in zip(self.items, self.request, strict=True) if i.step == "cache.first"),
            None,
        )
        if first is None:
            return None
        before = [r for r in self.unexplained if r.line < first.line]
        if not before or log.run_of(before[-1].line) != log.run_of(first.line):
            return None
        taken = [r.line for r in self.request if r is not None and r.line < first.line]
        return before[-1] if not taken or max(taken) < before[-1].line else None

    def lost(self) -> list[tuple[Item, Request, Item]]:
        """Each measurement left without a request of its own though it fits one, with
        the request it fits best and the measurement that holds it."""
        found = []
        for item, request in zip(self.items, self.request, strict=True):
            if request is not None or not item.options:
                continue
            key = min(item.options, key=lambda k: (item.options[k][0], item.options[k][1].line))
            found.append((item, item.options[key][1], self.holder[key]))
        return found


def assign(log: ServerLog, files: dict[str, Any], settings: Settings) -> Assignment:
    """The one-to-one assignment of the files' measurements to the log's requests."""
    return Assignment(log, measurements(log, files, settings))


@check(
    "log.one_request_each",
    reads=("log",),
    uses=tuple(STEP_FILES.values()),
    confirmed_by=("log.intact", "log.story"),
    params={
        "noise_ms": Number(0, 60_000),
        "noise_share": Number(0, 1),
        "overhead_ms": Number(0, 3_600_000),
        "sentence_max_tokens": Integer(1, 1_000_000),
    },
)
def one_request_each(ctx: Context) -> None:
    """Every measurement of the lab is its own request of the log: no request serves two
    steps (or two runs of one step)."""
    log: ServerLog = ctx["log"]
    settings = Settings(
        ctx.param("noise_ms"),
        ctx.param("noise_share"),
        ctx.param("overhead_ms"),
        ctx.param("sentence_max_tokens"),
    )
    files = {step: ctx.optional(name) for step, name in STEP_FILES.items()}
    counted = len((files["ttft"] or {}).get("runs") or []) + len(files["prefill"] or [])
    if counted + 6 > MOST_MEASUREMENTS:  # the stream, three cache entries, sentence, cancel
        ctx.record(measurements=counted + 6)
        return
    found = assign(log, files, settings)
    clearing = found.clearing(log)
    ctx.record(
        tasks={
            item.label: (request.task if request is not None else None)
            for item, request in zip(found.items, found.request, strict=True)
        },
        unexplained=[request_data(r) for r in found.unexplained[:20]],
        unexplained_count=len(found.unexplained),
        clearing=request_data(clearing) if clearing is not None else None,
    )
    lost = found.lost()
    if lost:
        item, request, holder = lost[0]
        file = STEP_FILES[item.step.partition(".")[0]]
        raise Fail(
            "shared",
            expected="—",
            found=item.label,
            step=item.label,
            other=holder.label,
            **request_params(request),
            at=ctx.at(file, item.pointer),
        )
