"""The parser of the lab's `server.log` artifact: the scan of every line the lab needs."""

from __future__ import annotations

from grader.reading.limits import Limits
from grader.reading.loading import Parsed, Parser
from grader.words.problems import Location, Problem


def server_log() -> Parser:
    """A parser for a llama-server text log (`checks.formats.llama_log.scan_log`), capped
    by the lab's `log_lines` limit."""
    from checks.formats.llama_log import scan_log

    def parse(text: str, file: str, limits: Limits) -> Parsed:
        log = scan_log(text, max_lines=limits["log_lines"])
        problems: list[Problem] = []
        if not text or text.isspace():  # not `text.strip()`: a copy of a 16 MB log
            problems.append(Problem("log.empty", {}, Location(file, 1)))
        elif log.truncated:
            problems.append(
                Problem("log.too_many_lines", {"limit": limits["log_lines"]}, Location(file))
            )
        return Parsed(log, problems, lambda pointer: None)

    return parse
