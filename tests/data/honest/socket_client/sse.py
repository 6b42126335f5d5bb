"""sse.py - streaming client for the first-token lab, on a plain socket.

No http library: I open a TCP socket to 127.0.0.1:8080, write the HTTP/1.1
request myself and parse the answer myself (status line, headers, then the
body; llama-server sends the stream with Transfer-Encoding: chunked, so the
chunk sizes are removed before the SSE lines are split on "\n").

stream(messages, max_tokens=64, cache_prompt=True, raw_out=None)
    -> (chunks, total_ms, timings)

  raw_out gets every SSE line exactly as received ("data: {...}\n", "\n", ...)
  chunks  = [{"t_ms", "text"}] for chunks with content only (the role chunk
            at the start has content null and is skipped)
  timings = "timings" of the last chunk that had them

Cancel: SSEStream.close() closes the socket, which is how the server learns
that nobody is listening any more.
"""
import json
import socket
import time

HOST = "127.0.0.1"
PORT = 8080
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


class SSEStream:
    """One request on its own socket; readline() returns one SSE line (bytes)."""

    def __init__(self, body_bytes, timeout=120):
        self.sock = socket.create_connection((HOST, PORT), timeout=timeout)
        req = (f"POST {PATH} HTTP/1.1\r\n"
               f"Host: {HOST}:{PORT}\r\n"
               "Content-Type: application/json\r\n"
               "Accept: text/event-stream\r\n"
               f"Content-Length: {len(body_bytes)}\r\n"
               "Connection: close\r\n"
               "\r\n").encode("ascii") + body_bytes
        self.sock.sendall(req)
        self.buf = b""          # raw bytes from the socket not parsed yet
        self.body = b""         # de-chunked body bytes not returned yet
        self.eof = False        # socket closed by the server
        self.body_done = False  # last (0-size) chunk seen
        self.chunked = False
        self.chunk_left = 0     # bytes left in the current chunk (+2 for CRLF handled below)
        self.status, self.headers = self._read_head()

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            self.eof = True
        self.buf += data

    def _read_head(self):
        while b"\r\n\r\n" not in self.buf:
            if self.eof:
                raise ConnectionError("connection closed before the headers")
            self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("iso-8859-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for h in lines[1:]:
            k, _, v = h.partition(":")
            headers[k.strip().lower()] = v.strip()
        self.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        return status, headers

    def _more_body(self):
        """Move more bytes into self.body. Returns False when nothing more will come."""
        if self.body_done:
            return False
        if not self.chunked:
            if self.buf:
                self.body += self.buf
                self.buf = b""
                return True
            if self.eof:
                self.body_done = True
                return False
            self._recv()
            return True
        if self.chunk_left == 0:
            # need a chunk-size line
            while b"\r\n" not in self.buf:
                if self.eof:
                    self.body_done = True
                    return False
                self._recv()
            size_line, self.buf = self.buf.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.body_done = True
                return False
            self.chunk_left = size
        if not self.buf:
            if self.eof:
                self.body_done = True
                return False
            self._recv()
        take = self.buf[:self.chunk_left]
        self.buf = self.buf[len(take):]
        self.body += take
        self.chunk_left -= len(take)
        if self.chunk_left == 0:
            # CRLF after the chunk data
            while len(self.buf) < 2 and not self.eof:
                self._recv()
            self.buf = self.buf[2:]
        return True

    def readline(self):
        """Next line of the event stream including its b"\\n"; b"" at the end."""
        while b"\n" not in self.body:
            if not self._more_body():
                rest, self.body = self.body, b""
                return rest
        line, self.body = self.body.split(b"\n", 1)
        return line + b"\n"

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def open_stream(messages, max_tokens=64, cache_prompt=True, timeout=120):
    body = json.dumps(build_body(messages, max_tokens, cache_prompt)).encode("utf-8")
    s = SSEStream(body, timeout=timeout)
    if s.status != 200:
        s.close()
        raise RuntimeError(f"HTTP {s.status}")
    return s


def parse_data_line(line):
    """Decoded JSON of a 'data: ' line, '[DONE]', or None."""
    s = line.decode("utf-8", errors="replace").rstrip("\r\n")
    if not s.startswith("data: "):
        return None
    payload = s[6:]
    if payload.strip() == "[DONE]":
        return "[DONE]"
    return json.loads(payload)


def content_piece(obj):
    choices = obj.get("choices") or []
    if not choices:
        return None
    text = (choices[0].get("delta") or {}).get("content")
    return text if text else None


def stream(messages, max_tokens=64, cache_prompt=True, raw_out=None):
    chunks = []
    timings = None
    t0 = time.perf_counter()
    s = open_stream(messages, max_tokens, cache_prompt)
    try:
        while True:
            line = s.readline()
            if not line:
                break
            t_ms = (time.perf_counter() - t0) * 1000.0
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
        total_ms = (time.perf_counter() - t0) * 1000.0
    finally:
        s.close()
    return chunks, round(total_ms, 3), timings


if __name__ == "__main__":
    msgs = [{"role": "system", "content": "You are a clinic phone assistant. Answer in one short sentence."},
            {"role": "user", "content": "What should a new patient bring?"}]
    with open("sse_raw.txt", "wb") as raw:
        chunks, total_ms, timings = stream(msgs, raw_out=raw)
    with open("chunks.jsonl", "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(chunks), "chunks", total_ms, "ms", timings)
