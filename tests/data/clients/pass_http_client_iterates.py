"""sse.py: step 2 client. http.client, and the response iterated line by line."""
import http.client
import json
import time


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    payload = {
        "messages": messages,
        "stream": True,
        "max_tokens": max_tokens,
        "temperature": 0,
        "seed": 7,
        "cache_prompt": cache_prompt,
    }
    conn = http.client.HTTPConnection("127.0.0.1", 8080, timeout=300)
    chunks, timings = [], None
    start = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", json.dumps(payload),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    try:
        for line in resp:
            if raw_out is not None:
                raw_out.write(line.decode("utf-8"))
            if not line.startswith(b"data: "):
                continue
            data = line[6:].strip()
            if data == b"[DONE]":
                break
            event = json.loads(data)
            timings = event.get("timings", timings)
            for choice in event.get("choices", []):
                text = (choice.get("delta") or {}).get("content")
                if text:
                    chunks.append({"t_ms": (time.perf_counter() - start) * 1000, "text": text})
    finally:
        conn.close()
    return chunks, (time.perf_counter() - start) * 1000, timings
