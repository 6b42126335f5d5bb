# /root/voice/llm/sse.py
# Reads llama-server's streamed chat answer line by line (Server-Sent Events).
# All times are whole milliseconds since just before the request.
import http.client
import json
import time

URL_HOST = "127.0.0.1"
URL_PORT = 8080


class Stream:
    """One streamed /v1/chat/completions request."""

    def __init__(self, messages, max_tokens=64, cache_prompt=True, timeout=120):
        body = {
            "messages": messages,
            "stream": True,
            "max_tokens": max_tokens,
            "temperature": 0,
            "seed": 7,
            "cache_prompt": cache_prompt,
        }
        self.conn = http.client.HTTPConnection(URL_HOST, URL_PORT, timeout=timeout)
        self.start = time.perf_counter()
        self.conn.request("POST", "/v1/chat/completions", json.dumps(body),
                          {"Content-Type": "application/json"})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200, self.resp.status

    def now(self):
        return round((time.perf_counter() - self.start) * 1000)

    def lines(self):
        while True:
            line = self.resp.readline()
            if not line:
                return
            yield line

    def close(self):
        self.conn.close()


def decode(line):
    text = line.decode("utf-8")
    if not text.startswith("data: "):
        return None
    text = text[6:].strip()
    if text == "[DONE]":
        return "[DONE]"
    return json.loads(text)


def piece(msg):
    try:
        return msg["choices"][0]["delta"].get("content") or None
    except (KeyError, IndexError):
        return None


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    s = Stream(messages, max_tokens, cache_prompt)
    chunks = []
    timings = None
    try:
        for line in s.lines():
            if raw_out:
                raw_out.write(line)
            msg = decode(line)
            if msg == "[DONE]":
                break
            if not msg:
                continue
            p = piece(msg)
            if p:
                chunks.append({"t_ms": s.now(), "text": p})
            if "timings" in msg:
                timings = msg["timings"]
        total_ms = s.now()
    finally:
        s.close()
    return chunks, total_ms, timings
