"""Specification of sse_py.static: judge what the step needs, not how the model answer was
written.

Any standard-library client that reads the stream a line at a time and closes the
connection passes: http.client (`resp.readline()` or a loop over the response),
urllib.request (`urlopen(...).readline()`, a loop over the response, `.close()` or a
`with` block), a raw socket with its own SSE parser (`makefile().readline()`, or a
`recv()` loop split at newlines, `.close()`). A client that reads the whole body at
once, uses a library outside the standard one, or never closes fails. The clients are
in tests/data/clients/, written as students write them; none is ever run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, check_of

CLIENTS = ROOT / "tests" / "data" / "clients"


def grade_client(grade_folder, submission: Path, name: str):
    shutil.copyfile(CLIENTS / name, submission / "sse.py")
    return check_of(grade_folder(submission), "sse_py.static")


@pytest.mark.parametrize(
    "name",
    [
        "pass_http_client_iterates.py",
        "pass_urllib_readline.py",
        "pass_urllib_with_iter.py",
        "pass_socket_makefile.py",
        "pass_socket_recv_loop.py",
    ],
)
def test_a_stdlib_client_reading_line_by_line_and_closing_passes(
    grade_folder, submission: Path, name: str
) -> None:
    check = grade_client(grade_folder, submission, name)
    assert (check.status, check.message_id) == ("passed", None)


@pytest.mark.parametrize(
    "name",
    ["fail_http_client_read_whole.py", "fail_urllib_read_whole.py"],
)
def test_a_client_that_reads_the_whole_body_at_once_fails(
    grade_folder, submission: Path, name: str
) -> None:
    check = grade_client(grade_folder, submission, name)
    assert (check.status, check.message_id) == ("failed", "sse_py.static.not_line_by_line")


def test_requests_without_the_standard_library_fails(grade_folder, submission: Path) -> None:
    check = grade_client(grade_folder, submission, "fail_requests_no_stream.py")
    assert (check.status, check.message_id) == ("failed", "sse_py.static.no_stdlib_client")


def test_a_client_that_never_closes_the_connection_fails(grade_folder, submission: Path) -> None:
    check = grade_client(grade_folder, submission, "fail_http_client_never_closes.py")
    assert (check.status, check.message_id) == ("failed", "sse_py.static.never_closes")


def test_every_client_here_is_named_for_its_verdict() -> None:
    names = sorted(p.name for p in CLIENTS.glob("*.py"))
    assert names and all(n.startswith(("pass_", "fail_")) for n in names)


def test_a_loop_over_a_body_split_after_reading_it_whole_is_no_stream() -> None:
    from checks.source import outline, reads_line_by_line

    whole = (
        "import urllib.request\n"
        "resp = urllib.request.urlopen('http://127.0.0.1:8080/')\n"
        "for line in resp.read().splitlines():\n    pass\n"
    )
    assert not reads_line_by_line(outline(whole))
    streamed = whole.replace("resp.read().splitlines()", "resp")
    assert reads_line_by_line(outline(streamed))


def test_a_loop_over_a_list_is_not_a_loop_over_the_stream() -> None:
    from checks.source import outline, reads_line_by_line

    code = (
        "import http.client\n"
        "conn = http.client.HTTPConnection('127.0.0.1', 8080)\n"
        "body = conn.getresponse().read()\n"
        "for m in [1, 2]:\n    pass\n"
        "conn.close()\n"
    )
    assert not reads_line_by_line(outline(code))


def test_a_with_block_around_the_connection_closes_it() -> None:
    from checks.source import closes, outline

    opened = "import socket\nwith socket.create_connection(('127.0.0.1', 8080)) as s:\n    pass\n"
    assert closes(outline(opened))
    a_file_only = "with open('raw.txt', 'w') as f:\n    pass\n"
    assert not closes(outline(a_file_only))
