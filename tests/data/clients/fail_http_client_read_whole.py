import http.client
import json
import time


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    conn = http.client.HTTPConnection("127.0.0.1", 8080)
    t0 = time.perf_counter()
    conn.request("POST", "/v1/chat/completions",
                 json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                             "cache_prompt": cache_prompt}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    body = resp.read()                       # waits for the whole answer
    conn.close()
    chunks, timings = [], None
    for line in body.decode().split("\n"):
        if raw_out:
            raw_out.write(line + "\n")
        if line.startswith("data: {"):
            obj = json.loads(line[6:])
            timings = obj.get("timings", timings)
            if obj["choices"] and obj["choices"][0]["delta"].get("content"):
                chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                               "text": obj["choices"][0]["delta"]["content"]})
    return chunks, (time.perf_counter() - t0) * 1000, timings
