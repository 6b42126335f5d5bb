"""sha256, the grader's one hash, without loading OpenSSL for small inputs.

Importing `hashlib` loads OpenSSL's libcrypto and sets up every algorithm it offers:
≈11 M instructions, 4 % of a cold `grader check`, several times what hashing the whole
submission and the catalogs costs. CPython's own SHA-256 (the module hashlib itself falls
back to when built without OpenSSL: `_sha2` from Python 3.12, `_sha256` before) costs
next to nothing to import but hashes ≈9× slower (≈5.5 ms per MiB against ≈0.6). So a
hash started from fewer than `SMALL` bytes is CPython's, a larger one OpenSSL's; the
digest is the same either way (SHA-256 is SHA-256), only the time differs. A file near
its cap still gets OpenSSL's speed, and twelve files just under `SMALL` cost about what
importing hashlib would. Grading imports nothing while confined (`grader.sandbox`), so
hashlib is imported the first time a large input needs it through `prepared`, which
leaves the confinement to import it and grades again.

A process that hashes many submissions (a batch's worker) pays for hashlib once and
hashes every input with OpenSSL (`hash_many`): there, CPython's own SHA-256 cost each
submission ≈2 M instructions, a fifth of importing hashlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.sandbox import prepared

if TYPE_CHECKING:
    from typing import Any

try:
    from _sha2 import sha256 as _builtin_sha256  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256 as _builtin_sha256  # Python 3.11 and earlier
    except ImportError:  # pragma: no cover - a CPython built without its own hashes
        _builtin_sha256 = None

SMALL = 64 * 1024
"""Bytes from which a hash is OpenSSL's: hashing this much with CPython's own SHA-256
costs about what importing hashlib does."""


_openssl_sha256: Any = None
"""OpenSSL's sha256, for every input, once `hash_many` was called."""


def hash_many() -> None:
    """From now on, hash every input with OpenSSL, whatever its size: for a process that
    grades many submissions, where importing hashlib once costs less than CPython's own
    SHA-256 costs per submission. Imports hashlib: call it outside the confinement."""
    global _openssl_sha256
    _openssl_sha256 = prepared(_hashlib).sha256


def sha256(data: bytes = b"") -> Any:
    """A sha256 hash object (`update`, `hexdigest`) of `data`, as `hashlib.sha256(data)`
    gives, made by CPython's own implementation when `data` is small (unless the process
    asked for `hash_many`)."""
    if _openssl_sha256 is not None:
        return _openssl_sha256(data)
    if len(data) < SMALL and _builtin_sha256 is not None:
        return _builtin_sha256(data)
    return prepared(_hashlib).sha256(data)


def _hashlib() -> Any:
    """hashlib, imported outside the confinement (`sandbox.prepared`) the first time a
    large input is hashed."""
    import hashlib

    return hashlib


def sha256_hex(data: bytes) -> str:
    """The sha256 of `data`, in hex."""
    hexdigest: str = sha256(data).hexdigest()
    return hexdigest
