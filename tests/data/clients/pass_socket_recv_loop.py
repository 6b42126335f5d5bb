import json
import socket
import time


def parse_events(buffer):
    """Split complete lines off the buffer; return (lines, rest)."""
    lines = []
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        lines.append(line.rstrip(b"\r"))
    return lines, buffer


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    payload = json.dumps({"messages": messages, "stream": True, "max_tokens": max_tokens,
                          "temperature": 0, "seed": 7,
                          "cache_prompt": cache_prompt}).encode()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("127.0.0.1", 8080))
    t0 = time.perf_counter()
    s.sendall(b"POST /v1/chat/completions HTTP/1.0\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/json\r\nContent-Length: "
              + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    buffer, in_body, done = b"", False, False
    chunks, timings = [], None
    while not done:
        data = s.recv(4096)
        if not data:
            break
        buffer += data
        lines, buffer = parse_events(buffer)
        for line in lines:
            if not in_body:
                in_body = line == b""
                continue
            if raw_out is not None:
                raw_out.write(line.decode() + "\n")
            if line == b"data: [DONE]":
                done = True
                break
            if line.startswith(b"data: "):
                ev = json.loads(line[6:])
                timings = ev.get("timings", timings)
                delta = ev["choices"][0].get("delta", {}) if ev.get("choices") else {}
                if delta.get("content"):
                    chunks.append({"t_ms": (time.perf_counter() - t0) * 1000,
                                   "text": delta["content"]})
    s.close()
    return chunks, (time.perf_counter() - t0) * 1000, timings
