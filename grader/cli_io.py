"""What the command line writes: results on stdout (always UTF-8) or atomically into a
file, and one-sentence diagnostics on stderr with every control character made visible."""

from __future__ import annotations

import os
import sys


def say(text: str, prefix: str = "grader") -> None:
    """One diagnostic line on stderr, its control characters and odd bytes visible."""
    from grader.visible import visible

    print(f"{prefix}: {visible(text, keep_newlines=True)}", file=sys.stderr)


def write(text: str, output: str | None) -> None:
    """Print as UTF-8 (whatever the locale), or replace `output` atomically (temporary
    file in its folder, then rename); raises `OutputError` when it can't be written."""
    from grader.faults import STDOUT, OutputError, write_output

    data = text.encode("utf-8")
    if output is not None:
        write_output(output, data)
        return
    try:
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:  # a text stream without bytes (tests capture this way)
            sys.stdout.write(text)
        else:
            sys.stdout.flush()
            stream.write(data)
            stream.flush()
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout on a full disk (or /dev/full)
        silence_stdout()
        raise OutputError.of(STDOUT, exc) from None


def silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush can't fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real stdout
        pass
