"""This lab's own formats: what llama-server writes, read the way the lab needs it.

- `chat_stream`: an OpenAI-style chat completion stream (`sse_raw.txt`), on top of the
  engine's generic event-stream parser (`grader.reading.sse`);
- `llama_log` (with its types in `llama_log_model`): the scanner of a llama-server log
  (`server.log`) across its eras;
- `server_log`: the artifact parser that turns a log's text into that scan.
"""
