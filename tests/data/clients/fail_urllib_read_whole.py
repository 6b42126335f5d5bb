import json
import time
import urllib.request


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    req = urllib.request.Request(
        "http://127.0.0.1:8080/v1/chat/completions",
        data=json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                         "cache_prompt": cache_prompt}).encode(),
        headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req) as resp:
        lines = resp.read().decode("utf-8").splitlines()
    chunks, timings = [], None
    for line in lines:
        if raw_out:
            raw_out.write(line + "\n")
        if line.startswith("data: {"):
            obj = json.loads(line[6:])
            timings = obj.get("timings", timings)
            if obj["choices"] and obj["choices"][0]["delta"].get("content"):
                chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                               "text": obj["choices"][0]["delta"]["content"]})
    return chunks, (time.perf_counter() - t0) * 1000, timings
