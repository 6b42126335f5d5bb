# sse.py -- urllib.request is http.client underneath; readline() gives one SSE line
import json
import time
import urllib.request

URL = "http://127.0.0.1:8080/v1/chat/completions"


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    body = json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                       "temperature": 0, "seed": 7, "cache_prompt": cache_prompt}).encode()
    req = urllib.request.Request(URL, data=body, headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    resp = urllib.request.urlopen(req, timeout=300)
    chunks = []
    timings = None
    while True:
        raw = resp.readline()
        if not raw:
            break
        if raw_out:
            raw_out.write(raw.decode())
        line = raw.decode().strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        obj = json.loads(data)
        if obj.get("timings"):
            timings = obj["timings"]
        delta = obj["choices"][0]["delta"] if obj.get("choices") else {}
        if delta.get("content"):
            chunks.append({"t_ms": round((time.perf_counter() - t0) * 1000, 3),
                           "text": delta["content"]})
    resp.close()
    return chunks, round((time.perf_counter() - t0) * 1000, 3), timings


def cancel_after(messages, seconds=0.5):
    """Step 7: read until `seconds`, then close the response (and with it the socket)."""
    body = json.dumps({"messages": messages, "stream": True, "max_tokens": 256}).encode()
    req = urllib.request.Request(URL, data=body, headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    resp = urllib.request.urlopen(req)
    received = 0
    while time.perf_counter() - t0 < seconds:
        line = resp.readline()
        if line.startswith(b"data: {") and b'"content":"' in line:
            received += 1
    resp.close()
    return received, (time.perf_counter() - t0) * 1000
