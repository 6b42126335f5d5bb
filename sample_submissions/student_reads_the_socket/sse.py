"""Lab client: stream(messages, max_tokens=64, cache_prompt=True, raw_out=None).

I read the answer straight off the socket (resp.fp.readline()) so that I see
every byte the server sends as soon as it arrives.  llama-server answers with
Transfer-Encoding: chunked, so between the SSE lines there are the chunk
headers (hex sizes) and chunk-ending CRLFs; they are written to raw_out
exactly as they came, and the parser simply skips every line that is not a
"data: " line.
Returns (chunks, total_ms, timings).
"""
import http.client
import json
import time

HOST, PORT = "127.0.0.1", 8080


def request(messages, max_tokens=64, cache_prompt=True):
    conn = http.client.HTTPConnection(HOST, PORT, timeout=120)
    body = json.dumps({
        "messages": messages, "stream": True, "max_tokens": max_tokens,
        "temperature": 0, "seed": 7, "cache_prompt": cache_prompt,
    })
    t0 = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise RuntimeError("HTTP %s" % resp.status)
    return conn, resp, t0


def parse(line):
    """-> ("done", None) | ("event", dict) | ("other", None)"""
    if line.startswith(b"data: "):
        rest = line[6:].strip()
        if rest == b"[DONE]":
            return "done", None
        return "event", json.loads(rest)
    return "other", None


def content(event):
    ch = event.get("choices")
    if ch and ch[0].get("delta", {}).get("content"):
        return ch[0]["delta"]["content"]
    return None


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    conn, resp, t0 = request(messages, max_tokens, cache_prompt)
    chunks = []
    timings = None
    try:
        while True:
            line = resp.fp.readline()          # raw socket file, no de-chunking
            if not line:
                break
            t = (time.perf_counter() - t0) * 1000
            if raw_out is not None:
                raw_out.write(line)
            kind, ev = parse(line)
            if kind == "done":
                break
            if kind != "event":
                if line == b"0\r\n":           # last chunk of the HTTP body
                    break
                continue
            if "timings" in ev:
                timings = ev["timings"]
            c = content(ev)
            if c is not None:
                chunks.append({"t_ms": round(t, 3), "text": c})
        total_ms = round((time.perf_counter() - t0) * 1000, 3)
    finally:
        conn.close()
    return chunks, total_ms, timings
