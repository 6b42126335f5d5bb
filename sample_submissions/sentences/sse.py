"""Student solution for /root/voice/llm/sse.py.

stream(messages, max_tokens=64, cache_prompt=True, raw_out=None, extra=None)
  -> (chunks, total_ms, timings)

* extra: optional dict of additional request-body fields (e.g. a llama-server
  "grammar"); merged into the JSON body on top of the standard fields.

* POSTs to /v1/chat/completions with "stream": true using http.client.
* Reads the Server-Sent Events one line at a time with resp.readline().
* Every received line is written to raw_out unchanged.
* For every fragment whose choices[0].delta.content is non-empty, appends
  {"t_ms": ms since just before the request, "text": fragment}.
  The first fragment (role only, content null) is skipped.
* "data: [DONE]" ends the stream.
* timings = the "timings" object of the last chunk that carried one.
"""
import http.client
import json
import time

HOST = "127.0.0.1"
PORT = 8080
PATH = "/v1/chat/completions"


def build_body(messages, max_tokens=64, cache_prompt=True, extra=None):
    body = {
        "messages": messages,
        "stream": True,
        "max_tokens": max_tokens,
        "temperature": 0,
        "seed": 7,
        "cache_prompt": cache_prompt,
    }
    if extra:
        body.update(extra)
    return body


def parse_data_line(line):
    """Return the decoded JSON of a 'data: ' line, the string '[DONE]', or None."""
    s = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    s = s.rstrip("\r\n")
    if not s.startswith("data: "):
        return None
    payload = s[len("data: "):]
    if payload.strip() == "[DONE]":
        return "[DONE]"
    return json.loads(payload)


def content_piece(obj):
    """Text of a content fragment, or None if this chunk carries no content."""
    choices = obj.get("choices") or []
    if not choices:
        return None
    delta = choices[0].get("delta") or {}
    text = delta.get("content")
    if not text:          # role-only first chunk (content null) / final empty delta
        return None
    return text


def _write_raw(raw_out, line):
    if raw_out is None:
        return
    if "b" in getattr(raw_out, "mode", ""):
        raw_out.write(line)
    else:
        raw_out.write(line.decode("utf-8", errors="replace"))
    raw_out.flush()


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None, extra=None):
    body = json.dumps(build_body(messages, max_tokens, cache_prompt, extra))
    conn = http.client.HTTPConnection(HOST, PORT, timeout=120)
    chunks = []
    timings = None
    try:
        t0 = time.perf_counter()
        conn.request("POST", PATH, body=body,
                     headers={"Content-Type": "application/json",
                              "Accept": "text/event-stream"})
        resp = conn.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}: {resp.read()[:500]!r}")
        for _ in range(100000):            # bounded loop
            line = resp.readline()
            if not line:                   # connection closed by server
                break
            now_ms = (time.perf_counter() - t0) * 1000.0
            _write_raw(raw_out, line)
            obj = parse_data_line(line)
            if obj is None:                # blank separator line, comments, ...
                continue
            if obj == "[DONE]":
                break
            if "timings" in obj:
                timings = obj["timings"]
            piece = content_piece(obj)
            if piece is not None:
                chunks.append({"t_ms": round(now_ms, 3), "text": piece})
        total_ms = (time.perf_counter() - t0) * 1000.0
    finally:
        conn.close()
    return chunks, round(total_ms, 3), timings


if __name__ == "__main__":
    msgs = [
        {"role": "system", "content": "You are a clinic phone assistant. Answer in one short sentence."},
        {"role": "user", "content": "What should a new patient bring?"},
    ]
    with open("sse_raw.txt", "wb") as raw:
        chunks, total_ms, timings = stream(msgs, raw_out=raw)
    with open("chunks.jsonl", "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(chunks), "chunks", total_ms, "ms", timings)
