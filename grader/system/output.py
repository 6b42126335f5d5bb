"""What the command line writes: results on stdout (always UTF-8) or atomically into a
file, and one-sentence diagnostics on stderr with every control character made visible."""

from __future__ import annotations

import os
import sys


def say(text: str, prefix: str = "grader") -> None:
    """One diagnostic on stderr, its control characters and odd bytes visible; on a
    terminal, wrapped to its columns in every language (a Chinese, Japanese or Korean
    character takes two: `grader.words.wrap`), the lines after the first indented,
    unless a word is wider than the terminal (a long path, kept whole)."""
    from grader.words.visible import visible

    line = f"{prefix}: {visible(text, keep_newlines=True)}"
    columns = _stderr_columns()
    if columns and _fits(line, columns):
        from grader.words.wrap import wrap

        line = "\n".join(wrap(line, columns - 1, "  ", first=""))
    print(line, file=sys.stderr)


def _fits(line: str, columns: int) -> bool:
    """False when a word of `line` (a long path, with the words glued to it in Chinese or
    Japanese) is wider than the terminal: it is then printed unwrapped, so that the path
    is never cut in two and can be copied whole."""
    from grader.words.wrap import UNBROKEN, cells

    return all(cells(run) <= columns - 4 for run in UNBROKEN.findall(line))


def _stderr_columns() -> int:
    """The columns of the terminal stderr is (`$COLUMNS` first, as argparse reads it),
    0 when stderr is no terminal: a file or a pipe gets each diagnostic on one line."""
    try:
        if not sys.stderr.isatty():
            return 0
    except (AttributeError, ValueError):
        return 0
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.stderr.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(20, columns)


def write(text: str, output: str | None) -> None:
    """Print as UTF-8 (whatever the locale), or replace `output` atomically (temporary
    file in its folder, then rename); raises `OutputError` when it can't be written."""
    from grader.system.faults import STDOUT, OutputError, write_output

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
