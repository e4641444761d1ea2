"""The builder's embedding stage: vectors for the chunks worth embedding, from the shared
embedding cache where it has them, the rest computed by the configured model (through ONNX
Runtime by default: `indexers.onnx_encoder`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import IndexSettings, helix_home
from helix.core.paths import embedding_cache_dir
from helix.core.ports import Embedder, Progress
from helix.core.schemas import Chunk
from indexers.formats import running_gc

# progress(stage, done, total)
# A selection of up to this many texts is embedded by the numpy encoder (no export, no session);
# without onnxruntime, up to this many missing texts are (sentence-transformers costs 13 s).
NUMPY_EMBED_MAX_TEXTS = 200


def embed(chunks: Sequence[Chunk], settings: IndexSettings, embedder: Embedder | None,
           progress: Progress | None, cards: dict[str, Any] | None = None
           ) -> tuple[Any, str | None, dict[str, int]]:
    """(DenseIndex or None, model key, stats). The embedder is created only when needed.
    `cards`: known embed cards of unchanged chunks; the others are added to it."""
    if not settings.embed_enabled:
        return None, None, {"cached": 0, "computed": 0, "total": 0}
    from indexers.dense import DenseIndex, embed_chunks, select_for_embedding
    from indexers.embed_cache import EmbeddingCache

    items = select_for_embedding(chunks, settings, cards)
    store = EmbeddingCache(embedding_cache_dir())
    cache: Any = _RememberedLookup(store)
    try:
        if embedder is None:
            embedder = _default_embedder(items, settings, cache)
        with running_gc():
            ids, vectors, stats = embed_chunks(
                items, embedder, cache,
                (lambda done, total: progress("embed", done, total)) if progress else None)
    finally:
        store.close()
    return DenseIndex.build(ids, vectors), embedder.model_key, {**stats, "total": len(items)}


class _RememberedLookup:
    """The embedding cache, its last lookup remembered: choosing the embedder and embedding
    ask for the same vectors (thousands of rows) one after the other."""

    def __init__(self, cache: Any) -> None:
        self._cache = cache
        self._last: tuple[str, frozenset[str], dict[str, np.ndarray]] | None = None

    def get_many(self, model_key: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = frozenset(text_hashes)
        if self._last is None or self._last[:2] != (model_key, wanted):
            self._last = (model_key, wanted, self._cache.get_many(model_key, text_hashes))
        return dict(self._last[2])

    def put_many(self, model_key: str, items: Any) -> None:
        self._last = None
        self._cache.put_many(model_key, items)


def _default_embedder(items: Sequence[tuple[str, str]], settings: IndexSettings,
                      cache: Any) -> Embedder:
    """The configured model, all three ways giving the same vectors (cosine >= 0.9999) and key:
    - ONNX Runtime (fp32, exported once per user, no torch: 2-3x sentence-transformers' texts
      per CPU second, a fraction of a second to start instead of 13 s) for a selection of more
      than NUMPY_EMBED_MAX_TEXTS texts, however few of them miss the cache: a refresh, a resumed
      dense worker and a fresh build then compute a text with the same encoder, and that encoder
      runs each text alone, so its bits do not depend on what else was embedded with it;
    - the numpy encoder (no export, no torch; one per process) for a small selection, or
      when nothing misses;
    - sentence-transformers, in bulk, when onnxruntime is not installed."""
    from indexers.dense import text_hash
    from indexers.encoder import (
        SentenceTransformerEmbedder,
        default_model_path,
        model_key_for,
        numpy_compatible,
        shared_numpy_encoder,
    )

    path = default_model_path(settings)
    model_dir = Path(path).expanduser()
    if numpy_compatible(model_dir):
        from indexers.onnx_encoder import onnx_available, shared_encoder

        hashes = sorted({text_hash(text) for _, text in items})
        missing = len(hashes) - len(cache.get_many(model_key_for(model_dir), hashes))
        if missing > 0 and len(hashes) > NUMPY_EMBED_MAX_TEXTS and onnx_available():
            return shared_encoder(path, helix_home())
        if missing <= NUMPY_EMBED_MAX_TEXTS:
            return shared_numpy_encoder(path)
    return SentenceTransformerEmbedder(path, batch_size=settings.embed_batch_size)
