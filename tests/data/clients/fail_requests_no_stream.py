import json
import time

import requests


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    t0 = time.perf_counter()
    r = requests.post("http://127.0.0.1:8080/v1/chat/completions",
                      json={"messages": messages, "stream": True, "max_tokens": max_tokens,
                            "cache_prompt": cache_prompt})
    chunks, timings = [], None
    for line in r.text.splitlines():
        if raw_out:
            raw_out.write(line + "\n")
        if line.startswith("data: {"):
            obj = json.loads(line[6:])
            timings = obj.get("timings", timings)
            if obj["choices"] and obj["choices"][0]["delta"].get("content"):
                chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                               "text": obj["choices"][0]["delta"]["content"]})
    r.close()
    return chunks, (time.perf_counter() - t0) * 1000, timings
