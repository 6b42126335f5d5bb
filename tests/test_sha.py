"""grader.sha: the same sha256 as hashlib's, whichever implementation makes it."""

from __future__ import annotations

import hashlib

from grader.sha import SMALL, sha256, sha256_hex


def test_a_small_input_hashes_as_hashlib_does() -> None:
    data = b"data: {}\n\n" * 100
    assert len(data) < SMALL
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_an_input_of_small_bytes_or_more_hashes_as_hashlib_does() -> None:
    data = bytes(range(256)) * (SMALL // 256 + 1)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_hash_fed_in_parts_is_the_hash_of_the_whole() -> None:
    digest = sha256()
    for part in (b"grader", b"\0", "日本語".encode()):
        digest.update(part)
    assert digest.hexdigest() == hashlib.sha256("grader\0日本語".encode()).hexdigest()
