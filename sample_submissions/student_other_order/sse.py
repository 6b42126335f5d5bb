"""stream(messages, max_tokens=64, cache_prompt=True, raw_out=None) -> (chunks, total_ms, timings)

Streams a chat completion from the lab's llama-server over plain http.client
and reads the Server-Sent Events with resp.readline().
"""
import http.client
import json
import time

BASE = ("127.0.0.1", 8080)
CHAT = "/v1/chat/completions"


def body_for(messages, max_tokens, cache_prompt):
    return json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                       "temperature": 0, "seed": 7, "cache_prompt": cache_prompt})


def events(resp, raw_out=None):
    """Yield (kind, value) for every line: ('data', dict), ('done', None), ('line', bytes)."""
    while True:
        line = resp.readline()
        if line == b"":
            return
        if raw_out is not None:
            raw_out.write(line)
        s = line.decode("utf-8").rstrip("\r\n")
        if s.startswith("data: "):
            if s == "data: [DONE]":
                yield "done", None
                return
            yield "data", json.loads(s[6:])
        else:
            yield "line", line


def delta_text(ev):
    choices = ev.get("choices") or [{}]
    return (choices[0].get("delta") or {}).get("content") or ""


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    conn = http.client.HTTPConnection(*BASE, timeout=120)
    out, timings = [], None
    try:
        t0 = time.perf_counter()
        conn.request("POST", CHAT, body=body_for(messages, max_tokens, cache_prompt),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        for kind, ev in events(resp, raw_out):
            if kind != "data":
                continue
            txt = delta_text(ev)
            if txt:
                out.append({"t_ms": round((time.perf_counter() - t0) * 1e3, 3), "text": txt})
            timings = ev.get("timings", timings)
        total_ms = round((time.perf_counter() - t0) * 1e3, 3)
    finally:
        conn.close()
    return out, total_ms, timings
