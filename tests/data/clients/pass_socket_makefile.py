"""A client on a bare socket: HTTP/1.1 by hand, Server-Sent Events parsed by hand."""
import json
import socket
import time

HOST, PORT = "127.0.0.1", 8080


def _request(body):
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\n"
        f"Host: {HOST}:{PORT}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    body = json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                       "temperature": 0, "seed": 7, "cache_prompt": cache_prompt}).encode()
    sock = socket.create_connection((HOST, PORT), timeout=300)
    t0 = time.perf_counter()
    sock.sendall(_request(body))
    f = sock.makefile("rb")
    while f.readline() not in (b"\r\n", b""):   # status line and headers
        pass
    chunks, timings = [], None
    try:
        while True:
            line = f.readline()
            if not line:
                break
            text = line.decode("utf-8")
            if not text.startswith("data: "):    # blank lines, chunk sizes, ": ping"
                continue
            if raw_out is not None:
                raw_out.write(text)
                raw_out.write("\n")
            if text.strip() == "data: [DONE]":
                break
            event = json.loads(text[6:])
            timings = event.get("timings") or timings
            for c in event.get("choices", []):
                if c.get("delta", {}).get("content"):
                    chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                                   "text": c["delta"]["content"]})
    finally:
        f.close()
        sock.close()
    return chunks, (time.perf_counter() - t0) * 1000, timings
