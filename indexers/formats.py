"""Encodings of the index parts: rows of JSON arrays, token ids, the graph pickle.

Chosen for load speed: one `json.loads` per part, records built with `model_construct`
(the data was validated when it was written), references kept as light named tuples.
Every decoder raises IndexCorruptError on malformed data.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from typing import Any, NamedTuple

from helix.core.errors import IndexCorruptError
from helix.core.schemas import Chunk, FileRecord, SymbolDef, SymbolRef

GRAPH_PICKLE_PROTOCOL = 5
PART_FILES = "files.json"
PART_CHUNKS = "chunks.json"
PART_DEFS = "defs.json"
PART_REFS = "refs.json"
PART_TOKENS = "tokens.json"
PART_TREES = "trees.json"
PART_GRAPH = "graph.pickle"

FILE_FIELDS = ("path", "content_hash", "size", "kind", "lang")
CHUNK_FIELDS = ("id", "path", "kind", "lang", "start_line", "end_line", "text", "content_hash",
                "heading_path", "symbol", "def_kind", "node_id")
DEF_FIELDS = ("name", "qualname", "kind", "path", "start_line", "end_line", "scope", "node_id")
REF_FIELDS = ("name", "kind", "path", "line", "scope", "module")


class CachedParse(NamedTuple):
    """A file's parse as the graph and the store read it (fresh or from the cache)."""

    path: str
    content_hash: str
    chunks: Sequence[Chunk]
    defs: Sequence[SymbolDef]
    refs: Sequence[Any]  # SymbolRef or RefRow


class RefRow(NamedTuple):
    """A reference as stored: light enough to hold hundreds of thousands of them."""

    name: str
    kind: str
    path: str
    line: int
    scope: str | None
    module: str | None

    def to_ref(self) -> SymbolRef:
        return SymbolRef.model_construct(**self._asdict())


def _rows(records: Sequence[Any], fields: Sequence[str]) -> list[list[Any]]:
    return [[getattr(r, f) for f in fields] for r in records]


def dump_rows(records: Sequence[Any], fields: Sequence[str]) -> bytes:
    return json.dumps({"fields": list(fields), "rows": _rows(records, fields)},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _load_rows(raw: bytes, fields: Sequence[str], name: str) -> list[list[Any]]:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise IndexCorruptError(f"index part {name} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("fields") != list(fields):
        raise IndexCorruptError(f"index part {name} has unexpected fields")
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise IndexCorruptError(f"index part {name} has no rows")
    return rows


def files_from(raw: bytes) -> list[FileRecord]:
    return [FileRecord.model_construct(**dict(zip(FILE_FIELDS, row, strict=True)))
            for row in _load_rows(raw, FILE_FIELDS, PART_FILES)]


def chunks_from(raw: bytes) -> list[Chunk]:
    out = []
    for row in _load_rows(raw, CHUNK_FIELDS, PART_CHUNKS):
        values = dict(zip(CHUNK_FIELDS, row, strict=True))
        values["heading_path"] = tuple(values["heading_path"])
        out.append(Chunk.model_construct(**values))
    return out


def defs_from(raw: bytes) -> list[SymbolDef]:
    return [SymbolDef.model_construct(**dict(zip(DEF_FIELDS, row, strict=True)))
            for row in _load_rows(raw, DEF_FIELDS, PART_DEFS)]


def refs_from(raw: bytes) -> list[RefRow]:
    return [RefRow(*row) for row in _load_rows(raw, REF_FIELDS, PART_REFS)]


def dump_tokens(token_lists: Sequence[Sequence[str]]) -> bytes:
    """Token lists as a vocabulary + flat ids + offsets (compact, fast to load)."""
    vocab: dict[str, int] = {}
    flat: list[int] = []
    offsets = [0]
    for tokens in token_lists:
        flat.extend(vocab.setdefault(t, len(vocab)) for t in tokens)
        offsets.append(len(flat))
    return json.dumps({"vocab": list(vocab), "ids": flat, "offsets": offsets},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def tokens_from(raw: bytes) -> tuple[list[str], list[int], list[int]]:
    try:
        data = json.loads(raw)
        return data["vocab"], data["ids"], data["offsets"]
    except (ValueError, KeyError, TypeError) as exc:
        raise IndexCorruptError(f"index part {PART_TOKENS} unreadable: {exc}") from None



def dump_graph(graph: Any) -> bytes:
    return pickle.dumps(graph, protocol=GRAPH_PICKLE_PROTOCOL)


def load_graph(raw: bytes) -> Any:
    try:
        return pickle.loads(raw)  # our own file, digest-checked against the manifest
    except Exception as exc:
        raise IndexCorruptError(f"index graph unreadable: {type(exc).__name__}") from None
