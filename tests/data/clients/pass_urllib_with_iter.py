from urllib.request import Request, urlopen
import json, time


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    req = Request(
        "http://127.0.0.1:8080/v1/chat/completions",
        data=json.dumps(dict(messages=messages, stream=True, max_tokens=max_tokens,
                             temperature=0, seed=7, cache_prompt=cache_prompt)).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    out, timings = [], None
    t0 = time.perf_counter()
    with urlopen(req, timeout=600) as resp:
        for raw in resp:                      # one SSE line per iteration
            if raw_out is not None:
                raw_out.write(raw.decode("utf-8"))
            if not raw.startswith(b"data: "):
                continue
            if raw.strip() == b"data: [DONE]":
                break
            chunk = json.loads(raw[len(b"data: "):])
            timings = chunk.get("timings") or timings
            choices = chunk.get("choices") or [{}]
            piece = (choices[0].get("delta") or {}).get("content")
            if piece:
                out.append({"t_ms": (time.perf_counter() - t0) * 1e3, "text": piece})
    return out, (time.perf_counter() - t0) * 1e3, timings
