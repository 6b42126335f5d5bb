"""Batch ids: one per submission, derived from its source path, never from the order
submissions are met in.

An id names `results/<id>.json` and the gradebook row, so it must be safe as a file name
on every file system and in a spreadsheet, readable, and stable: the same source path
gets the same id in every run, whatever else the class holds, so that `--resume` never
hands one student's stored result to another.

- The readable part is the path relative to its PATH (an archive's: its name without
  suffix, then the inner path), parts joined by `__`, every character other than
  letters, digits and `-_.+@` replaced by `_`, never starting with `.`, `-`, `+` or `@`
  (`=` and friends are already gone), never a reserved Windows name, at most 150
  characters (longer ones end in a hash of the whole path).
- A name kept exactly as it is (`alice`, `section-a__bob`) is the id. Kept means: every
  part is already safe, in Unicode normal form C, the same as its case-folded form (no
  capital letters), holds no `__` (the separator of parts) and the whole does not end
  like a hash (`-` and 10 or more hex digits).
- Any other name is lossy: two sources could meet in its slug (`A_B` and `a b` in
  `a_b`, `Alice` and `alice` on a case-insensitive file system). It always gets `-` and
  a short sha256 of its source path (`A_B-3f1c0e9a2b`), so it can never take the id of
  a name kept as it is, nor of another lossy name.

So an id depends on its own source path alone, never on which other folders exist:
`a_b` is `a_b` whether or not `A_B` is beside it. Only two sources with the very same
kept name under two PATHs of one command line (`class1/alice`, `class2/alice`) can meet;
each of them then gets its hash too, and hashes lengthen (10, 16, then 64 hex digits)
until all ids differ, even on a case-insensitive file system.

The hash is of the source path as the result records it (`os.path.normpath`), so
running the same command again, from the same place, gives the same ids.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence

ID_MAX = 150
_RESERVED = re.compile(r"(con|prn|aux|nul|com\d|lpt\d)(\..*)?", re.IGNORECASE)
_HASH_LENGTHS = (10, 16, 64)


def _safe_part(part: str) -> str:
    text = unicodedata.normalize("NFC", part)
    text = "".join(c if c.isalnum() or c in "-_.+@" else "_" for c in text)
    return text or "_"


def safe_id(parts: Sequence[str]) -> str:
    """A file-system-safe, spreadsheet-safe id from the parts of a relative path."""
    text = "__".join(_safe_part(p) for p in parts) or "_"
    if text[0] in ".-+@":
        text = "_" + text[1:] if text[0] == "." else "_" + text
    if _RESERVED.fullmatch(text):
        text = "_" + text
    if len(text.encode("utf-8")) > ID_MAX or len(text) > ID_MAX:
        digest = hashlib.sha256("/".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
        head = text[:100]
        while len(head.encode("utf-8")) > 100:
            head = head[:-1]
        text = f"{head}-{digest[:12]}"
    return text


_HASH_LIKE = re.compile(r".*-[0-9a-f]{10,}")


def is_lossless(parts: Sequence[str]) -> bool:
    """True when `safe_id` keeps the name exactly as it is, and no other source can
    reach the same id or a case-folded form of it (see the module doc)."""
    if not parts:
        return False
    for part in parts:
        if "__" in part or unicodedata.normalize("NFC", part) != part or part.casefold() != part:
            return False
    joined = "__".join(parts)
    return safe_id(parts) == joined and not _HASH_LIKE.fullmatch(joined)


def source_hash(source: str) -> str:
    """sha256 (hex) of a source path, normalised as the result records it."""
    return hashlib.sha256(os.path.normpath(source).encode("utf-8", "surrogateescape")).hexdigest()


def assign_ids(items: Sequence[tuple[Sequence[str], str]]) -> list[str]:
    """The id of each (parts, source) item, in the items' order (see the module doc).

    Sources must differ; the result depends on the set of items only, never on their
    order.
    """
    bases = [safe_id(parts) for parts, _ in items]
    hashes = [source_hash(source) for _, source in items]
    # a kept name is its id; any other gets its hash, whatever else the batch holds
    length = {i: 0 if is_lossless(p) else _HASH_LENGTHS[0] for i, (p, _) in enumerate(items)}

    def ident(i: int) -> str:
        return bases[i] if not length[i] else f"{bases[i]}-{hashes[i][: length[i]]}"

    while True:
        taken: dict[str, list[int]] = defaultdict(list)
        for i in range(len(items)):
            taken[ident(i).casefold()].append(i)
        clashes = [group for group in taken.values() if len(group) > 1]
        if not clashes:
            return [ident(i) for i in range(len(items))]
        for group in clashes:
            for i in group:
                longer = [n for n in _HASH_LENGTHS if n > length[i]]
                if not longer:  # pragma: no cover - equal sha256 means equal sources
                    raise ValueError(f"two submissions share the source {items[i][1]!r}")
                length[i] = longer[0]
