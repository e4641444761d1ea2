"""What gets embedded, embedding through the shared cache, and the exact FAISS index.

Embedding rule (deterministic; the stdlib cold build must stay within a few thousand short texts):
- doc_section: `path`, the heading path, then the section text;
- tree_node: `path`, then the node text;
- code_def: a compact card: `path :: qualname (kind)`, the signature line(s), and the first
  paragraph of its docstring (Python) or of its leading comment block (other languages);
- skipped: code_module and text_window chunks (BM25 covers them), and private definitions
  (last qualname part starts with `_`, dunders included) that have no docstring/comment.
Every text is cut to `settings.embed_max_chars`. When more chunks qualify than
`settings.embed_max_chunks`, the tier below decides; inside a tier the order is by a digest of
the chunk id, then the id: chunk ids start with the path, so plain id order would cut whole
directories (everything after some letter); the digest spreads the cut evenly over the tree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import IndexSettings
from helix.core.hashing import digest
from helix.core.ports import Embedder
from helix.core.schemas import Chunk
from indexers.embed_cache import EmbeddingCache

# Lower tier is embedded first.
TIER_DOCS = 0
TIER_DOCUMENTED_TYPE = 1
TIER_DOCUMENTED_FUNCTION = 2
TIER_DOCUMENTED_METHOD = 3
TIER_PUBLIC_TYPE_OR_FUNCTION = 4
TIER_PUBLIC_METHOD = 5
TIER_PRIVATE_DOCUMENTED = 6
_TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "type"})

MAX_SIGNATURE_LINES = 4
# a card needs the decorators, signature and first doc paragraph: never the whole body
MAX_CARD_SCAN_LINES = 60
EMBED_BATCH = 256  # texts per embedder call: progress and cache writes happen per batch

_DECORATOR = re.compile(r"^\s*(?:@|#!?\[)")  # Python/Java/TS decorators, Rust attributes
_COMMENT = re.compile(r"^\s*(?://+|#+|/\*+|\*+/?|--|;+)\s?")
_DOCSTRING_START = re.compile(r"^\s*[rRbBuU]?(\"\"\"|'''|\"|')")


def _signature_and_rest(lines: list[str], lang: str | None) -> tuple[list[str], list[str], int]:
    """(signature lines, lines after it, index of the first signature line)."""
    start = 0
    while start < len(lines) and (not lines[start].strip() or _DECORATOR.match(lines[start])
                                  or _COMMENT.match(lines[start])):
        start += 1
    end = start
    while end < len(lines) and end - start < MAX_SIGNATURE_LINES:
        line = lines[end].rstrip()
        end += 1
        if lang == "python" and line.endswith(":"):
            break
        if lang != "python" and ("{" in line or line.endswith((";", "=>", ":"))):
            break
    return [ln.strip() for ln in lines[start:end]], lines[end:], start


def _first_paragraph(text_lines: list[str]) -> str:
    out: list[str] = []
    for line in text_lines:
        if not line.strip():
            if out:
                break
            continue
        out.append(line.strip())
    return " ".join(out)


def _python_docstring(rest: list[str]) -> str:
    at = next((i for i, line in enumerate(rest) if line.strip()), None)
    if at is None:
        return ""
    match = _DOCSTRING_START.match(rest[at])
    if not match:
        return ""
    quote = match.group(1)
    collected: list[str] = []
    for line in [rest[at][match.end():], *rest[at + 1:]]:
        if quote in line:
            collected.append(line.split(quote, 1)[0])
            break
        collected.append(line)
    return _first_paragraph(collected)


def _leading_comment(lines: list[str], sig_start: int) -> str:
    comment = [_COMMENT.sub("", ln, count=1) for ln in lines[:sig_start]
               if _COMMENT.match(ln) and not _DECORATOR.match(ln)]
    return _first_paragraph(comment)


def _doc_of(chunk: Chunk, lines: list[str]) -> tuple[list[str], str]:
    signature, rest, sig_start = _signature_and_rest(lines, chunk.lang)
    doc = _python_docstring(rest) if chunk.lang == "python" else ""
    return signature, doc or _leading_comment(lines, sig_start)


def _is_private(chunk: Chunk) -> bool:
    name = (chunk.symbol or "").rsplit(".", 1)[-1]
    return name.startswith("_")


def _tier(chunk: Chunk, documented: bool) -> int | None:
    if chunk.kind in ("doc_section", "tree_node"):
        return TIER_DOCS
    if chunk.kind != "code_def":
        return None
    if _is_private(chunk):
        return TIER_PRIVATE_DOCUMENTED if documented else None
    is_type = chunk.def_kind in _TYPE_KINDS
    is_method = chunk.def_kind == "method"
    if documented:
        if is_type:
            return TIER_DOCUMENTED_TYPE
        return TIER_DOCUMENTED_METHOD if is_method else TIER_DOCUMENTED_FUNCTION
    return TIER_PUBLIC_METHOD if is_method else TIER_PUBLIC_TYPE_OR_FUNCTION


def _card(chunk: Chunk, settings: IndexSettings) -> tuple[str, int | None]:
    """(embed text, tier); tier None means: not embedded."""
    limit = settings.embed_max_chars
    if chunk.kind == "doc_section":
        heading = " > ".join(chunk.heading_path)
        text = f"{chunk.path}\n{heading}\n{chunk.text.strip()}" if heading else (
            f"{chunk.path}\n{chunk.text.strip()}")
        return text[:limit], _tier(chunk, True)
    if chunk.kind == "tree_node":
        return f"{chunk.path}\n{chunk.text.strip()}"[:limit], _tier(chunk, True)
    if chunk.kind != "code_def":
        return "", None
    head_lines = chunk.text.split("\n", MAX_CARD_SCAN_LINES)[:MAX_CARD_SCAN_LINES]
    signature, doc = _doc_of(chunk, [line.rstrip("\r") for line in head_lines])
    tier = _tier(chunk, bool(doc))
    if tier is None:
        return "", None
    head = f"{chunk.path} :: {chunk.symbol or ''} ({chunk.def_kind or 'definition'})"
    parts = [head, "\n".join(signature)]
    if doc:
        parts.append(doc)
    return "\n".join(p for p in parts if p)[:limit], tier


def embed_text_for(chunk: Chunk, settings: IndexSettings) -> str | None:
    """The text embedded for `chunk`, or None when the chunk is not embedded (module rule)."""
    text, tier = _card(chunk, settings)
    return text if tier is not None and text.strip() else None


# An embeddable chunk's (tier, digest(chunk id), embed text); None: the chunk is not embedded.
Card = tuple[int, str, str] | None


def card_of(chunk: Chunk, settings: IndexSettings) -> Card:
    text, tier = _card(chunk, settings)
    return (tier, digest(chunk.id), text) if tier is not None and text.strip() else None


def select_for_embedding(chunks: Sequence[Chunk], settings: IndexSettings,
                         cards: dict[str, Card] | None = None) -> list[tuple[str, str]]:
    """(chunk_id, text) of at most `embed_max_chunks` chunks, in (tier, digest(id), id) order.
    `cards`: known cards by chunk id, only of chunks that cannot have changed since (same
    chunk, same settings: the caller's promise); the cards computed here are added to it."""
    ranked: list[tuple[int, str, str, str]] = []
    for chunk in chunks:
        if cards is not None and chunk.id in cards:
            card = cards[chunk.id]
        else:
            card = card_of(chunk, settings)
            if cards is not None:
                cards[chunk.id] = card
        if card is not None:
            ranked.append((card[0], card[1], chunk.id, card[2]))
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    limit = max(settings.embed_max_chunks, 0)
    return [(chunk_id, text) for _, _, chunk_id, text in ranked[:limit]]


def text_hash(text: str) -> str:
    return digest(text)


def embed_chunks(
    items: Sequence[tuple[str, str]],
    embedder: Embedder,
    cache: EmbeddingCache,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[str], np.ndarray, dict[str, int]]:
    """Vectors for (chunk_id, text) items, in input order; only cache misses are embedded.

    Stats: "cached" = items served from the cache, "computed" = the others (identical texts
    are embedded once). `progress(done, total)` counts texts sent to the embedder.
    """
    ids = [chunk_id for chunk_id, _ in items]
    hashes = [text_hash(text) for _, text in items]
    key = embedder.model_key
    found = cache.get_many(key, hashes)
    missing: dict[str, str] = {}
    for (_, text), h in zip(items, hashes, strict=True):
        if h not in found and h not in missing:
            missing[h] = text
    todo = sorted(missing.items())
    total = len(todo)
    if progress is not None:
        progress(0, total)
    for start in range(0, total, EMBED_BATCH):
        batch = todo[start:start + EMBED_BATCH]
        vectors = np.asarray(embedder.embed([text for _, text in batch]), dtype=np.float32)
        computed = {h: vectors[i] for i, (h, _) in enumerate(batch)}
        cache.put_many(key, computed)
        found.update(computed)
        if progress is not None:
            progress(min(start + EMBED_BATCH, total), total)
    if items:
        matrix = np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)
    else:
        matrix = np.zeros((0, embedder.dim), dtype=np.float32)
    cached = sum(1 for h in hashes if h not in missing)
    return ids, matrix, {"cached": cached, "computed": len(items) - cached}


_VECTORS = "dense_vectors.npy"
_DENSE_IDS = "dense_ids.json"


def import_faiss() -> Any:
    """faiss, imported with its loader's INFO lines (which CPU build it tried: AVX512, AVX2...)
    kept off a server's log: only its warnings and errors are shown."""
    import logging

    for name in ("faiss", "faiss.loader"):
        logging.getLogger(name).setLevel(logging.WARNING)
    import faiss

    return faiss


class DenseIndex:
    """Exact inner-product search (FAISS IndexFlatIP) over L2-normalised vectors."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(ids):
            raise ValueError("vectors must be (len(ids), dim)")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids")
        self._ids = list(ids)
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._faiss: Any = None

    @classmethod
    def build(cls, ids: Sequence[str], vectors: np.ndarray) -> DenseIndex:
        return cls(ids, vectors)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def dim(self) -> int:
        return int(self._vectors.shape[1])

    def _index(self) -> Any:
        if self._faiss is None:
            faiss = import_faiss()

            index = faiss.IndexFlatIP(self.dim)
            if self._ids:
                index.add(self._vectors)
            self._faiss = index
        return self._faiss

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top k (chunk id, inner product), score desc then id asc."""
        n = len(self._ids)
        if n == 0 or k <= 0:
            return []
        query = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(1, -1))
        if query.shape[1] != self.dim:
            raise ValueError(f"query has dim {query.shape[1]}, index has {self.dim}")
        fetch = min(n, k)
        while True:
            scores, rows = self._index().search(query, fetch)
            got = [(float(s), int(r)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0]
            # more rows may tie with the k-th score: widen until the tie group is complete
            if fetch >= n or len(got) < fetch or got[-1][0] < got[min(k, len(got)) - 1][0]:
                break
            fetch = min(n, fetch * 2)
        ranked = sorted(got, key=lambda sr: (-sr[0], self._ids[sr[1]]))[:k]
        return [(self._ids[r], s) for s, r in ranked]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / _VECTORS, self._vectors, allow_pickle=False)
        (directory / _DENSE_IDS).write_text(json.dumps(self._ids, ensure_ascii=False), "utf-8")

    @classmethod
    def load(cls, directory: Path) -> DenseIndex:
        """Raises ValueError/OSError on missing or inconsistent files (the store maps that)."""
        ids = json.loads((directory / _DENSE_IDS).read_text("utf-8"))
        try:
            vectors = np.load(directory / _VECTORS, allow_pickle=False)
        except EOFError as exc:
            raise ValueError(f"dense vectors unreadable: {exc}") from None
        if not isinstance(ids, list) or vectors.ndim != 2 or vectors.shape[0] != len(ids):
            raise ValueError("dense index files are inconsistent")
        return cls(ids, vectors)
