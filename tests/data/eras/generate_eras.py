#!/usr/bin/env python3
"""Write the era logs of tests/data/eras/ (see README.md there for the evidence).

Each log replays the run of sample_submissions/correct/ (2026 build b1-0c1e570) in the line
formats of an older llama-server: the same requests in the same order, the same measured
numbers (prompt ms, prompt tokens, eval ms, eval tokens, slot token count at release), and
every derived figure recomputed the way that era's code computes and prints it. The model
loading lines of the library (llama_model_loader, llm_load_*, print_info, ...) are not
derived: they are the lines that era's library printed for the lab's stand-in model file,
kept verbatim in lib_<era>.txt beside this script (only the model path was replaced).

Stdlib only; deterministic; run it from anywhere: python3 generate_eras.py
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import re
import struct
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HOST, PORT = "127.0.0.1", 8080

# ---------------------------------------------------------------------------------------
# The 2026 run that every era log replays: sample_submissions/correct/ (server.log, plus the
# 3-decimal values the submission's own files carry). load_2026() fills these globals.
#
# REQS, per finished request in order:
#   name, P (whole prompt = release n_tokens - (gen - 1)), reused (P - prompt eval tokens),
#   prompt_ms, gen (eval tokens), eval_ms, cache_prompt sent by the lab's client,
#   t_launch, t_done (seconds since start: the 2026 lines `launch_slot_` and `print_timing`).
# prompt_ms / eval_ms: the server measures in microseconds and prints 2 decimals. Where the
# submission's files carry the 3-decimal value (sse_raw.txt `timings` of the first request,
# prefill.json `prompt_ms`) that value is used; elsewhere the value nearest the printed one,
# in 1 us steps, that reproduces EVERY figure of that 2026 block (ms per token and tokens per
# second with the 2026 divisor n_gen - 1 for generation, and the total); check_2026() then
# recomputes the 2026 lines from REQS and compares them with the 2026 log.
REQS: list[tuple] = []
CANCEL: dict = {}
T_LOADED = T_FIRST = T_SIGTERM = 0.0
NAMES = ["sse_raw", "ttft_1", "ttft_2", "ttft_3", "ttft_4", "ttft_5", "prefill_0",
         "prefill_4", "prefill_12", "cache_hi", "cache_first", "cache_second",
         "cache_changed_prefix", "sentence"]
CACHE_PROMPT = [True] + [False] * 8 + [True] * 5  # sse.py default True; ttft, prefill False
# The cancel request's prompt is fixed by the lab (user message only, 2026 Jinja template
# adds the default system prompt): 45 tokens, of which 5 are reused from the previous
# prompt (2026 no_close_on_cancel log: prompt eval 40 tokens, release 300 = 45 + 256 - 1).
CANCEL_P, CANCEL_REUSED = 45, 5
DEFAULT_2026 = os.path.join(HERE, "..", "real", "correct")
# the lab's client: one TCP connection per request (sse.py, curl); ephemeral ports
PORT_LIST = [41146, 41152, 41184, 58924, 51704, 38826, 46970, 44516, 47950, 40834, 35164,
             33654, 46738, 59272, 59274, 40988, 45368, 39810, 46826, 46828, 46830, 46832]
PORTS = iter(PORT_LIST)

_PREFIX = re.compile(r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) [IWED] ")


def _t(line: str) -> float:
    m = _PREFIX.match(line)
    if m is None:
        raise SystemExit("not a 2026 log line with a time prefix: %r" % line)
    mi, se, ms, us = (int(g) for g in m.groups())
    return mi * 60 + se + ms / 1e3 + us / 1e6


def _candidates(printed: str, known: float | None) -> list[float]:
    """Microsecond values that print as the 2-decimal `printed`, nearest first."""
    if known is not None:
        return [known]
    base = float(printed)
    return [c for c in (round(base + d / 1000, 3) for d in sorted(range(-5, 6), key=abs))
            if "%.2f" % c == printed]


def _resolve(pms, pn, ppt, pps, known_p, ems, en, ept, eps, tot, known_e):
    """(prompt_ms, eval_ms) in microsecond steps that reproduce every 2026 figure."""
    pairs = [(p, e) for p in _candidates(pms, known_p) for e in _candidates(ems, known_e)]
    pairs.sort(key=lambda pe: abs(pe[0] - float(pms)) + abs(pe[1] - float(ems)))
    for p, e in pairs:
        if (("%.2f" % (p / pn), "%.2f" % (1e3 / p * pn)) == (ppt, pps)
                and ("%.2f" % (e / (en - 1)), "%.2f" % (1e3 / e * (en - 1)), "%.2f" % (p + e))
                == (ept, eps, tot)):
            return p, e
    raise SystemExit("no microsecond values reproduce %s / %s ms" % (pms, ems))


def load_2026(sub: str) -> None:
    global REQS, CANCEL, T_LOADED, T_FIRST, T_SIGTERM
    with open(os.path.join(sub, "server.log"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    with open(os.path.join(sub, "sse_raw.txt"), encoding="utf-8") as f:
        timings = [json.loads(l[6:])["timings"] for l in f.read().split("\n")
                   if l.startswith("data: {") and '"timings"' in l][-1]
    with open(os.path.join(sub, "prefill.json"), encoding="utf-8") as f:
        prefill = [e["prompt_ms"] for e in json.load(f)]
    launch, done, prompt, evals, release = {}, {}, {}, {}, {}
    order, cancel_t, cancel_task = [], None, None
    for line in lines:
        m = re.search(r"launch_slot_: id +\d+ \| task (\d+) \|", line)
        if m:
            launch[int(m.group(1))] = _t(line)
            order.append(int(m.group(1)))
        m = re.search(r"task (\d+) \| prompt eval time = +([\d.]+) ms / +(\d+) tokens \( +([\d.]+) ms per token, +([\d.]+) tokens", line)
        if m:
            task = int(m.group(1))
            done[task] = _t(line)
            prompt[task] = m.groups()[1:]
        m = re.search(r"task (\d+) \| +eval time = +([\d.]+) ms / +(\d+) tokens \( +([\d.]+) ms per token, +([\d.]+) tokens", line)
        if m:
            evals[int(m.group(1))] = m.groups()[1:]
        m = re.search(r"task (\d+) \| +total time = +([\d.]+) ms", line)
        if m:
            evals[int(m.group(1))] += (m.group(2),)
        m = re.search(r"task (\d+) \| stop processing: n_tokens = (\d+)", line)
        if m:
            release[int(m.group(1))] = (int(m.group(2)), _t(line))
        m = re.search(r"cancel task, id_task = (\d+)", line)
        if m:
            cancel_task, cancel_t = int(m.group(1)), _t(line)
        if "llama_server: model loaded" in line:
            T_LOADED = _t(line)
        if "cleaning up before exit" in line:
            T_SIGTERM = _t(line)
    finished = [t for t in order if t in prompt]
    if len(finished) != len(NAMES) or order[-1] != cancel_task:
        raise SystemExit("the 2026 log does not hold the lab's 14 finished requests + cancel")
    T_FIRST = launch[order[0]]
    REQS = []
    for i, task in enumerate(finished):
        pms, pn, ppt, pps = prompt[task]
        ems, en, ept, eps, tot = evals[task]
        pn, en = int(pn), int(en)
        known_p = timings["prompt_ms"] if i == 0 else prefill[i - 6] if 6 <= i <= 8 else None
        known_e = timings["predicted_ms"] if i == 0 else None
        p, e = _resolve(pms, pn, ppt, pps, known_p, ems, en, ept, eps, tot, known_e)
        P = release[task][0] - (en - 1)
        REQS.append((NAMES[i], P, P - pn, p, en, e, CACHE_PROMPT[i], launch[task], done[task]))
    n_past, _ = release[cancel_task]
    CANCEL = dict(P=CANCEL_P, reused=CANCEL_REUSED, t_launch=launch[cancel_task],
                  t_cancel=cancel_t, n_past=n_past, sampled=n_past - CANCEL_P + 1)


def release_n(req):
    _, P, _, _, gen, *_ = req
    return P + gen - 1


def f32(x: float) -> float:
    """`(float) a / b` in C: the quotient rounded to single precision."""
    return struct.unpack("f", struct.pack("f", x))[0]


# ---------------------------------------------------------------------------------------
# Era (a)/(b): ggerganov/llama.cpp@ba589931 (b3186, 2024-06-20), examples/server/utils.hpp
# server_log() and examples/server/server.cpp LOG_INFO(...) calls.
B3186_BASE = 1719221400  # 2024-06-24 09:30:00 UTC, time(nullptr) of the server start
B3186_MAIN_TID = "140245866536768"
B3186_HTTP_TIDS = ["140245101741760", "140245093349056", "140245084956352"]


def jdump(v) -> str:
    """nlohmann::ordered_json dump(-1, ' ', false, replace): compact, UTF-8 kept."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


class B3186Log:
    def __init__(self, json_mode: bool):
        self.json_mode = json_mode
        self.out: list[tuple[float, str]] = []
        self.http = 0

    def http_tid(self) -> str:
        tid = B3186_HTTP_TIDS[self.http % len(B3186_HTTP_TIDS)]
        self.http += 1
        return tid

    def log(self, t, function, line, msg, extra=None, tid=B3186_MAIN_TID, level="INFO"):
        extra = extra or {}
        ts = B3186_BASE + int(t)
        if self.json_mode:
            d = {"tid": tid, "timestamp": ts, "level": level, "function": function,
                 "line": line, "msg": msg}
            d.update(extra)
            text = jdump(d)
        else:
            head = "%4s [%24s] %s" % (level, function, msg)
            d = {"tid": tid, "timestamp": ts}
            d.update(extra)
            text = head + " |" + "".join(" %s=%s" % (k, jdump(v)) for k, v in d.items())
        self.out.append((t, text))

    def raw(self, t, text):
        self.out.append((t, text))

    def request(self, t, method, path, status=200):
        self.log(t, "log_server_request", 2433, "request", {
            "remote_addr": HOST, "remote_port": next(PORTS), "status": status,
            "method": method, "path": path, "params": {}}, tid=self.http_tid())

    def timings(self, t, task, prompt_ms, n_prompt, eval_ms, n_gen):
        t_token = prompt_ms / n_prompt
        n_tokens_second = 1e3 / prompt_ms * n_prompt
        self.log(t, "print_timings", 302,
                 "prompt eval time     = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)"
                 % (prompt_ms, n_prompt, t_token, n_tokens_second),
                 {"id_slot": 0, "id_task": task, "t_prompt_processing": prompt_ms,
                  "n_prompt_tokens_processed": n_prompt, "t_token": t_token,
                  "n_tokens_second": n_tokens_second})
        t_token = eval_ms / n_gen
        n_tokens_second = 1e3 / eval_ms * n_gen
        self.log(t, "print_timings", 318,
                 "generation eval time = %10.2f ms / %5d runs   (%8.2f ms per token, %8.2f tokens per second)"
                 % (eval_ms, n_gen, t_token, n_tokens_second),
                 {"id_slot": 0, "id_task": task, "t_token_generation": eval_ms,
                  "n_decoded": n_gen, "t_token": t_token, "n_tokens_second": n_tokens_second})
        self.log(t, "print_timings", 329,
                 "          total time = %10.2f ms" % (prompt_ms + eval_ms),
                 {"id_slot": 0, "id_task": task, "t_prompt_processing": prompt_ms,
                  "t_token_generation": eval_ms, "t_total": prompt_ms + eval_ms})

    def released(self, t, task, n_past, cache_prompt):
        self.log(t, "update_slots", 1882, "slot released", {
            "id_slot": 0, "id_task": task, "n_ctx": 4096, "n_past": n_past,
            "n_system_tokens": 0, "n_cache_tokens": n_past if cache_prompt else 0,
            "truncated": False})

    def idle(self, t):
        self.log(t, "update_slots", 1908, "all slots are idle")

    def slot_data(self, t, task, idle=1, processing=0):
        self.log(t, "process_single_task", 1683, "slot data", {
            "id_task": task, "n_idle_slots": idle, "n_processing_slots": processing})


def era_b3186(json_mode: bool) -> list[str]:
    L = B3186Log(json_mode)
    L.log(0.000, "main", 2492, "build info", {"build": 3186, "commit": "ba589931"})
    L.log(0.000, "main", 2497, "system info", {
        "n_threads": 2, "n_threads_batch": -1, "total_threads": 2,
        "system_info": "AVX = 1 | AVX_VNNI = 0 | AVX2 = 1 | AVX512 = 1 | AVX512_VBMI = 1 | "
                       "AVX512_VNNI = 1 | AVX512_BF16 = 1 | FMA = 1 | NEON = 0 | SVE = 0 | "
                       "ARM_FMA = 0 | F16C = 1 | FP16_VA = 0 | WASM_SIMD = 0 | BLAS = 0 | "
                       "SSE3 = 1 | SSSE3 = 1 | VSX = 0 | MATMUL_INT8 = 0 | LLAMAFILE = 1 | "})
    for text in lib_lines("b3186"):
        L.raw(T_LOADED / 2, text)  # stderr of libllama while loading the model
    L.log(T_LOADED, "init", 706, "initializing slots", {"n_slots": 1})
    L.log(T_LOADED, "init", 715, "new slot", {"id_slot": 0, "n_ctx_slot": 4096})
    L.log(T_LOADED, "main", 2595, "model loaded")
    L.log(T_LOADED, "main", 2617, "chat template", {
        "chat_example": "<|im_start|>system\nYou are a helpful assistant<|im_end|>\n"
                        "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n"
                        "<|im_start|>user\nHow are you?<|im_end|>\n<|im_start|>assistant\n",
        "built_in": True})
    L.log(T_LOADED, "main", 3360, "HTTP server listening",
          {"n_threads_http": "3", "port": str(PORT), "hostname": HOST})
    L.idle(T_LOADED)
    # GET /health while loading (queued in the listen backlog until the accept loop runs),
    # then the student's `curl -s localhost:8080/health`; each is a METRICS task (an id)
    task = 0
    gap = T_FIRST - T_LOADED
    for t in (T_LOADED + 0.05 * gap, T_LOADED + 0.45 * gap):
        L.slot_data(t, task)
        L.idle(t)
        L.request(t, "GET", "/health")
        task += 1
    L.request(T_LOADED + 0.7 * gap, "GET", "/props")
    for req in REQS:
        name, P, reused, prompt_ms, gen, eval_ms, cache_prompt, t0, t1 = req
        L.log(t0, "launch_slot_with_task", 1101, "slot is processing task",
              {"id_slot": 0, "id_task": task})
        if reused == P:
            raise AssertionError
        if reused == P - 1 and cache_prompt:  # the whole prompt was cached: n_past-- (second)
            L.log(t0, "update_slots", 2148,
                  "we have to evaluate at least 1 token to generate logits",
                  {"id_slot": 0, "id_task": task})
        L.log(t0, "update_slots", 2192, "kv cache rm [p0, end)",
              {"id_slot": 0, "id_task": task, "p0": reused})
        L.timings(t1, task, prompt_ms, P - reused, eval_ms, gen)
        L.released(t1 + 0.0001, task, release_n(req), cache_prompt)
        L.idle(t1 + 0.0001)
        L.request(t1 + 0.0005, "POST", "/v1/chat/completions")
        L.idle(t1 + 0.0006)  # after the CANCEL task that on_complete posts for every stream
        # ids: the completion, one NEXT_RESPONSE per update_slots() while the slot is busy
        # (= gen), and the CANCEL posted by on_complete when the stream ends
        task += gen + 2
    c = CANCEL
    L.log(c["t_launch"], "launch_slot_with_task", 1101, "slot is processing task",
          {"id_slot": 0, "id_task": task})
    L.log(c["t_launch"], "update_slots", 2192, "kv cache rm [p0, end)",
          {"id_slot": 0, "id_task": task, "p0": c["reused"]})
    # the client closes at 0.5 s and polls GET /slots: no `is_processing` key in this era,
    # so its first poll ends the loop (the slot is still generating: the server notices the
    # closed socket only when a later write fails)
    L.slot_data(c["t_cancel"] + 0.001, task + c["sampled"], idle=0, processing=1)
    L.request(c["t_cancel"] + 0.0012, "GET", "/slots")
    L.request(c["t_cancel"] + 0.012, "POST", "/v1/chat/completions")
    L.released(c["t_cancel"] + 0.013, task, c["n_past"], True)
    L.idle(c["t_cancel"] + 0.013)
    # SIGTERM: signal_handler -> queue_tasks.terminate(); main() returns without a log line
    return [text for _, text in L.out]


# ---------------------------------------------------------------------------------------
# Era (c): ggerganov/llama.cpp@553f1e46 (b4600, 2025-01-30) and era (d): llama.cpp@4227c9be
# (2025-08-14, vendored by llama-cpp-python 0.3.16). common/log.cpp: no prefix and no
# timestamp by default; examples|tools/server/utils.hpp: SLT_INF/SRV_INF prefixes
# "slot %12.*s: id %2d | task %d | " and "srv  %12.*s: " (function name right-aligned in 12
# columns, cut to 12 characters).


def fn12(name: str) -> str:
    """printf("%12.*s", 12, name): right-aligned in 12 columns, at most 12 characters."""
    return "%12s" % name[:12]


def slt(func: str, task: int, msg: str) -> str:
    return "slot %s: id %2d | task %d | %s" % (fn12(func), 0, task, msg)


def srv(func: str, msg: str) -> str:
    return "srv  %s: %s" % (fn12(func), msg)


def timing_block_2025(task, prompt_ms, n_prompt, eval_ms, n_gen, cr=False) -> list[str]:
    """server_slot::print_timings(): ONE SLT_INF message that starts with "\n"; from b3761
    (#9418) to b4325 each figure line also starts with "\r" (removed by #10771, b4326)."""
    t_prompt = prompt_ms / n_prompt
    n_prompt_second = 1e3 / prompt_ms * n_prompt
    t_gen = eval_ms / n_gen
    n_gen_second = 1e3 / eval_ms * n_gen
    r = "\r" if cr else ""
    msg = (("\n"
           + r + "prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n"
           + r + "       eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n"
           + r + "      total time = %10.2f ms / %5d tokens\n")
           % (prompt_ms, n_prompt, t_prompt, n_prompt_second,
              eval_ms, n_gen, t_gen, n_gen_second,
              prompt_ms + eval_ms, n_prompt + n_gen))
    return (slt("print_timings", task, msg)).split("\n")[:-1]


def era_2025(era: str) -> list[tuple[float, str]]:
    """(t, line) pairs; era "b4000" (late 2024), "b4600" (early 2025) or "d4227" (mid 2025)."""
    d = era == "d4227"
    cr = era == "b4000"
    out: list[tuple[float, str]] = []

    def emit(t, text):
        for line in text.split("\n"):
            out.append((t, line))

    def request(t, method, path, status=200):
        msg = "request: %s %s %s %d" % (method, path, HOST, status)
        emit(t, srv("log_server_request", msg) if d else msg)

    if d:  # vendored tree of llama-cpp-python 0.3.16: `git rev-list --count` of a shallow clone
        emit(0.0, "build: 1 (4227c9b) with cc (Debian 12.2.0-14+deb12u1) 12.2.0 for x86_64-linux-gnu")
    elif era == "b4000":
        emit(0.0, "build: 4000 (c02e5ab2) with cc (Debian 12.2.0-14+deb12u1) 12.2.0 for x86_64-linux-gnu")
    else:
        emit(0.0, "build: 4600 (553f1e46) with cc (Debian 12.2.0-14+deb12u1) 12.2.0 for x86_64-linux-gnu")
    lib = lib_lines(era)
    for i, line in enumerate(lib):  # start-up as that build printed it for this model file
        out.append((0.001 + (T_LOADED - 0.001) * i / len(lib), line))
    emit(T_LOADED, "main: server is listening on http://%s:%d - starting the main loop" % (HOST, PORT))
    emit(T_LOADED, srv("update_slots", "all slots are idle"))
    gap = T_FIRST - T_LOADED
    request(T_LOADED + 0.05 * gap, "GET", "/health")  # the start script's readiness poll
    request(T_LOADED + 0.45 * gap, "GET", "/health")  # the student's curl
    request(T_LOADED + 0.7 * gap, "GET", "/props")
    task = 0
    for req in REQS:
        name, P, reused, prompt_ms, gen, eval_ms, cache_prompt, t0, t1 = req
        if d:
            emit(t0 - 0.0001, srv("params_from_json_cmpl", "Chat format: Content-only"))
        emit(t0, slt("launch_slot_with_task", task, "processing task"))
        emit(t0, slt("update_slots", task, "new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = %d" % P))
        if reused == P - 1 and cache_prompt:  # whole prompt cached (the `second` request)
            what = "for each active slot" if d else "to generate logits"
            emit(t0, slt("update_slots", task, "need to evaluate at least 1 token %s, n_past = %d, n_prompt_tokens = %d" % (what, P, P)))
        emit(t0, slt("update_slots", task, "kv cache rm [%d, end)" % reused))
        n_eval = P - reused
        progress = f32(n_eval / P)
        emit(t0, slt("update_slots", task, "prompt processing progress, n_past = %d, n_tokens = %d, progress = %f" % (P, n_eval, progress)))
        emit(t0 + 0.0002, slt("update_slots", task, "prompt done, n_past = %d, n_tokens = %d" % (P, n_eval)))
        # server_slot::release() logs at once, then print_timings() (update_slots: release();
        # print_timings(); send_final_response())
        emit(t1, slt("release", task, "stop processing: n_past = %d, truncated = 0" % release_n(req)))
        for line in timing_block_2025(task, prompt_ms, n_eval, eval_ms, gen, cr):
            out.append((t1, line))
        emit(t1 + 0.0001, srv("update_slots", "all slots are idle"))
        request(t1 + 0.0005, "POST", "/v1/chat/completions")
        # ids: the completion task, then one NEXT_RESPONSE per update_slots() while the slot
        # is busy (gen of them); nothing else takes an id in this run
        task += gen + 1
    c = CANCEL
    t0 = c["t_launch"]
    P, R = c["P"], c["reused"]
    if d:
        emit(t0 - 0.0001, srv("params_from_json_cmpl", "Chat format: Content-only"))
    emit(t0, slt("launch_slot_with_task", task, "processing task"))
    emit(t0, slt("update_slots", task, "new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = %d" % P))
    emit(t0, slt("update_slots", task, "kv cache rm [%d, end)" % R))
    emit(t0, slt("update_slots", task, "prompt processing progress, n_past = %d, n_tokens = %d, progress = %f" % (P, P - R, f32((P - R) / P))))
    emit(t0 + 0.0002, slt("update_slots", task, "prompt done, n_past = %d, n_tokens = %d" % (P, P - R)))
    tc = c["t_cancel"]
    # receive_cmpl_results_stream(): the next result finds !sink.is_writable() -> cancel_tasks()
    emit(tc, srv("cancel_tasks", "cancel task, id_task = %d" % task))
    request(tc + 0.0001, "POST", "/v1/chat/completions")
    if cr:
        # b4000: /slots has no `is_processing` yet (#10162, b4029), the lab's poll
        # loop ends at its first answer
        emit(tc + 0.0005, slt("release", task, "stop processing: n_past = %d, truncated = 0" % c["n_past"]))
        emit(tc + 0.0006, srv("update_slots", "all slots are idle"))
        request(tc + 0.0010, "GET", "/slots")
        return out
    request(tc + 0.0004, "GET", "/slots")  # first poll: is_processing still true
    emit(tc + 0.0005, slt("release", task, "stop processing: n_past = %d, truncated = 0" % c["n_past"]))
    emit(tc + 0.0006, srv("update_slots", "all slots are idle"))
    request(tc + 0.0110, "GET", "/slots")  # second poll: idle, the client stops polling
    emit(tc + 0.0111, srv("update_slots", "all slots are idle"))
    if d:
        # SIGTERM -> signal_handler -> queue_tasks.terminate(); main() then runs clean_up()
        emit(T_SIGTERM, srv("operator()", "operator(): cleaning up before exit..."))
    # b4600 installs its SIGINT/SIGTERM handler only after start_loop() returns, so SIGTERM
    # ends the process with the default action and nothing more is printed
    return out


# wrappers --------------------------------------------------------------------------------
def compose(lines: list[str], prefix: str = "llm-1  | ") -> list[str]:
    return [prefix + line for line in lines]


def journald(pairs: list[tuple[float, str]], start: str = "Nov 30 12:00:01",
             host: str = "pod", ident: str = "llama-server", pid: int = 123) -> list[str]:
    t_start = calendar.timegm(time.strptime("2025 " + start, "%Y %b %d %H:%M:%S"))
    out = []
    for t, line in pairs:
        stamp = time.strftime("%b %d %H:%M:%S", time.gmtime(t_start + t))
        out.append("%s %s %s[%d]: %s" % (stamp, host, ident, pid, line))
    return out


# ---------------------------------------------------------------------------------------
def lib_lines(era: str) -> list[str]:
    with open(os.path.join(HERE, "lib_%s.txt" % era), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def write(name: str, lines: list[str]) -> None:
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")
    print("wrote", path, len(lines), "lines")


def check_2026(sub: str) -> None:
    """Recompute the 2026 timing lines from REQS with the 2026 formulas (tools/server/
    server-common.h: generation per-token figures use n_gen - 1 decode steps) and compare
    them with the 2026 log; also the task ids (each request: gen + 1 ids) and the cancel."""
    with open(os.path.join(sub, "server.log"), encoding="utf-8") as f:
        log = f.read()
    task = 0
    for req in REQS:
        name, P, reused, pms, gen, ems, *_ = req
        n = P - reused
        want = [
            "task %d | prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)"
            % (task, pms, n, pms / n, 1e3 / pms * n),
            "task %d |        eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)"
            % (task, ems, gen, ems / (gen - 1), 1e3 / ems * (gen - 1)),
            "task %d |       total time = %10.2f ms / %5d tokens" % (task, pms + ems, n + gen),
            "task %d | stop processing: n_tokens = %d, truncated = 0" % (task, release_n(req)),
        ]
        for w in want:
            if w not in log:
                raise SystemExit("2026 check failed for %s: %r" % (name, w))
        task += gen + 1
    if "cancel task, id_task = %d" % task not in log:
        raise SystemExit("2026 check failed: cancel id %d" % task)
    print("2026 check: REQS reproduce every timing, release and task id of", os.path.join(sub, "server.log"))


def main() -> None:
    global PORTS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="sub", default=DEFAULT_2026,
                    help="the 2026 submission to replay (default: tests/data/real/correct)")
    sub = os.path.normpath(ap.parse_args().sub)
    load_2026(sub)
    check_2026(sub)
    PORTS = iter(PORT_LIST)
    write("mid2024_json_server.log", era_b3186(json_mode=True))
    PORTS = iter(PORT_LIST)
    write("mid2024_text_server.log", era_b3186(json_mode=False))
    late = era_2025("b4000")
    write("late2024_server.log", [line for _, line in late])
    early = era_2025("b4600")
    write("early2025_server.log", [line for _, line in early])
    write("early2025_compose_server.log", compose([line for _, line in early]))
    mid = era_2025("d4227")
    write("mid2025_server.log", [line for _, line in mid])
    write("mid2025_journald_server.log", journald(mid))


if __name__ == "__main__":
    main()
