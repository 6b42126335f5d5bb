"""sse.py - my client for the "first token" lab (streaming from llama-server).

I used urllib.request instead of http.client because that is what I know.

stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)
    -> (chunks, total_ms, timings)

- POST /v1/chat/completions with "stream": true
- urlopen() gives a file-like response; I read it line by line with readline()
  (urllib/http.client already removes the chunked transfer encoding)
- every line I receive is written to raw_out as it is
- chunks = [{"t_ms": ms since just before the request, "text": piece}, ...]
  only for chunks that really carry text (the first chunk has only the role)
- timings = the "timings" object of the last chunk (llama-server puts it there)

To stop the server (cancel step) I just close the response: open_stream()
returns the response object and resp.close() closes the connection.
"""
import json
import time
import urllib.request

URL = "http://127.0.0.1:8080/v1/chat/completions"
PATH = "/v1/chat/completions"


def build_body(messages, max_tokens=64, cache_prompt=True):
    return {
        "messages": messages,
        "stream": True,
        "max_tokens": max_tokens,
        "temperature": 0,
        "seed": 7,
        "cache_prompt": cache_prompt,
    }


def open_stream(messages, max_tokens=64, cache_prompt=True, timeout=120):
    """Send the request and return the open response (read it with readline())."""
    data = json.dumps(build_body(messages, max_tokens, cache_prompt)).encode("utf-8")
    req = urllib.request.Request(URL, data=data, method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Accept": "text/event-stream"})
    return urllib.request.urlopen(req, timeout=timeout)


def parse_data_line(line):
    """JSON object of a 'data: ...' line, "[DONE]", or None for anything else."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text.startswith("data:"):
        return None
    payload = text[5:].strip()
    if payload == "[DONE]":
        return "[DONE]"
    return json.loads(payload)


def content_piece(obj):
    """The text in choices[0].delta.content, or None (role chunk, last chunk)."""
    choices = obj.get("choices") or []
    if len(choices) == 0:
        return None
    delta = choices[0].get("delta") or {}
    content = delta.get("content")
    if content is None or content == "":
        return None
    return content


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    chunks = []
    timings = None
    t0 = time.perf_counter()
    resp = open_stream(messages, max_tokens, cache_prompt)
    try:
        while True:
            line = resp.readline()
            if line == b"":          # server closed the stream
                break
            t_ms = (time.perf_counter() - t0) * 1000
            if raw_out is not None:
                raw_out.write(line)
                raw_out.flush()
            obj = parse_data_line(line)
            if obj is None:
                continue
            if obj == "[DONE]":
                break
            if "timings" in obj:
                timings = obj["timings"]
            piece = content_piece(obj)
            if piece is not None:
                chunks.append({"t_ms": round(t_ms, 3), "text": piece})
        total_ms = (time.perf_counter() - t0) * 1000
    finally:
        resp.close()
    return chunks, round(total_ms, 3), timings


if __name__ == "__main__":
    msgs = [{"role": "system", "content": "You are a clinic phone assistant. Answer in one short sentence."},
            {"role": "user", "content": "What should a new patient bring?"}]
    with open("sse_raw.txt", "wb") as raw:
        chunks, total_ms, timings = stream(msgs, raw_out=raw)
    with open("chunks.jsonl", "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(chunks), "chunks,", total_ms, "ms")
