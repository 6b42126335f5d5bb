"""grader.sha: the same sha256 as hashlib's, whichever implementation makes it."""

from __future__ import annotations

import hashlib

import pytest

from grader import sha
from grader.sha import SMALL, hash_many, sha256, sha256_hex

OPENSSL = type(hashlib.sha256())


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch) -> None:
    """Each test starts as a fresh process does, with no `hash_many` asked for (a batch
    graded earlier in this process asked for it)."""
    monkeypatch.setattr(sha, "_openssl_sha256", None)


def test_a_small_input_hashes_as_hashlib_does() -> None:
    data = b"data: {}\n\n" * 100
    assert len(data) < SMALL
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert type(sha256(data)) is not OPENSSL  # CPython's own: no OpenSSL to load for it


def test_an_input_of_small_bytes_or_more_hashes_as_hashlib_does() -> None:
    data = bytes(range(256)) * (SMALL // 256 + 1)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert type(sha256(data)) is OPENSSL


def test_a_hash_fed_in_parts_is_the_hash_of_the_whole() -> None:
    digest = sha256()
    for part in (b"grader", b"\0", "日本語".encode()):
        digest.update(part)
    assert digest.hexdigest() == hashlib.sha256("grader\0日本語".encode()).hexdigest()


def test_a_process_hashing_many_inputs_hashes_small_ones_with_openssl_too() -> None:
    data = b"data: {}\n\n" * 100
    before = sha256_hex(data)
    hash_many()
    assert type(sha256(data)) is OPENSSL
    assert sha256_hex(data) == before == hashlib.sha256(data).hexdigest()
