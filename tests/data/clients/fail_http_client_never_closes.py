import http.client
import json
import time

conn = http.client.HTTPConnection("127.0.0.1", 8080)


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    t0 = time.perf_counter()
    conn.request("POST", "/v1/chat/completions",
                 json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                             "cache_prompt": cache_prompt}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    chunks, timings = [], None
    while True:
        line = resp.readline()
        if not line or line.strip() == b"data: [DONE]":
            break
        if raw_out:
            raw_out.write(line.decode())
        if line.startswith(b"data: {"):
            obj = json.loads(line[6:])
            timings = obj.get("timings", timings)
            if obj["choices"] and obj["choices"][0]["delta"].get("content"):
                chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                               "text": obj["choices"][0]["delta"]["content"]})
    return chunks, (time.perf_counter() - t0) * 1000, timings


def cancel(messages, seconds=0.5):
    """Stop reading at `seconds` (the connection stays open: the server keeps going)."""
    t0 = time.perf_counter()
    conn.request("POST", "/v1/chat/completions",
                 json.dumps({"messages": messages, "stream": True, "max_tokens": 256}))
    resp = conn.getresponse()
    n = 0
    while time.perf_counter() - t0 < seconds:
        if b'"content"' in resp.readline():
            n += 1
    return n
