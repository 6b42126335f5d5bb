"""sse.py - streaming client for the "first token" lab.

stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)
returns (chunks, total_ms, timings).

I keep times to 0.1 ms: perf_counter is much finer than that, but the
server only reports timings in ms and tenths are plenty for this lab.
"""
import http.client
import json
import time

SERVER = ("127.0.0.1", 8080)
ENDPOINT = "/v1/chat/completions"


def ms_since(t0):
    return round((time.perf_counter() - t0) * 1000.0, 1)


def payload(messages, max_tokens=64, cache_prompt=True):
    return {"messages": messages, "stream": True, "max_tokens": max_tokens,
            "temperature": 0, "seed": 7, "cache_prompt": cache_prompt}


def open_stream(messages, max_tokens=64, cache_prompt=True, timeout=120):
    """Start a streamed chat request. Returns (conn, resp, t0)."""
    conn = http.client.HTTPConnection(*SERVER, timeout=timeout)
    data = json.dumps(payload(messages, max_tokens, cache_prompt)).encode("utf-8")
    t0 = time.perf_counter()
    conn.request("POST", ENDPOINT, body=data,
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        body = resp.read()
        conn.close()
        raise RuntimeError("server said %d: %r" % (resp.status, body[:300]))
    return conn, resp, t0


def event_of(raw):
    """b'data: {...}\\n' -> dict, b'data: [DONE]\\n' -> 'DONE', anything else -> None."""
    line = raw.strip()
    if not line.startswith(b"data:"):
        return None
    data = line[5:].strip()
    if data == b"[DONE]":
        return "DONE"
    return json.loads(data.decode("utf-8"))


def texts_of(ev):
    """Content fragments of one event (the role-only first event has none)."""
    out = []
    for choice in ev.get("choices") or []:
        piece = (choice.get("delta") or {}).get("content")
        if piece:
            out.append(piece)
    return out


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    conn, resp, t0 = open_stream(messages, max_tokens, cache_prompt)
    chunks, timings = [], {}
    try:
        while True:
            raw = resp.readline()
            if not raw:
                break
            if raw_out is not None:
                raw_out.write(raw)
            ev = event_of(raw)
            if ev is None:
                continue
            if ev == "DONE":
                break
            if ev.get("timings"):
                timings = ev["timings"]
            for piece in texts_of(ev):
                chunks.append({"t_ms": ms_since(t0), "text": piece})
        total_ms = ms_since(t0)
    finally:
        conn.close()
    return chunks, total_ms, timings
