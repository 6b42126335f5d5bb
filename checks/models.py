"""Typed views of the artifacts, for the checks' type hints.

The JSON Schemas in `schemas/` are the source of each format; these TypedDicts follow
them key for key (a test keeps each one equal to its schema's properties and required
keys), so a check reads `ttft["runs"][0]["ttft_ms"]` with a type checker's help and no
conversion cost: a value reaches a check only after it validated against its schema.
"""

from __future__ import annotations

from typing import TypedDict


class Health(TypedDict):
    status: str


class Run(TypedDict):
    ttft_ms: float
    total_ms: float
    tokens: int


class Ttft(TypedDict):
    runs: list[Run]
    ttft_p50: float
    total_p50: float


class PrefillEntry(TypedDict):
    docs: int
    prompt_n: int
    prompt_ms: float
    ttft_ms: float


class CacheEntry(TypedDict):
    prompt_n: int
    ttft_ms: float


class Cache(TypedDict):
    first: CacheEntry
    second: CacheEntry
    changed_prefix: CacheEntry


class Sentence(TypedDict):
    ttft_ms: float
    first_sentence_ms: float
    total_ms: float
    first_sentence: str
    text: str


class Cancel(TypedDict):
    max_tokens: int
    received_tokens: int
    closed_at_ms: float
    slot_idle_after_ms: float


class ChunkRecord(TypedDict):
    t_ms: float
    text: str


class Report(TypedDict):
    ttft_p50_ms: float
    total_p50_ms: float
    ttft_12docs_ms: float
    prompt_n_12docs: int
    cache_ttft_ms: float
    first_sentence_ms: float
    cancel_idle_ms: float


SCHEMA_OF = {
    "health": Health,
    "ttft": Ttft,
    "chunks_record": ChunkRecord,
    "cache": Cache,
    "sentence": Sentence,
    "cancel": Cancel,
    "report": Report,
}
"""Schema name → the TypedDict that mirrors it (prefill is a list of PrefillEntry)."""
