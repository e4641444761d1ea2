"""The dense phase of a build: vectors for the embed selection, now or in the background.

The selection (`indexers.dense.select_for_embedding`: docs first, then documented public
definitions, ...) is fixed by the lexical parts. Its vectors come from the shared embedding
cache (`indexers.embed_cache`, keyed by model + text hash) or the embedder. A generation holds
the vectors of the selection the cache had when it was written, in selection order, and says
how many in its manifest: `counts["dense"] = {"vectors": N, "total": M}`
(`indexers.store.dense_state`).

    plan_dense      the selection, the model key (known without loading the model) and how
                    many vectors are missing: the builder embeds them at once when few are
                    (or when told to wait), else writes the generation with what the cache
                    has (`cached_dense`) and leaves the rest to the worker
    complete_dense  (writer lock held) the current generation's missing vectors, computed in
                    selection order into the cache and published every
                    `index.dense_publish_vectors` vectors / `dense_publish_seconds` seconds as
                    a new generation: the lexical parts hard-linked from the current one, a new
                    `dense/`, the same manifest otherwise. Killed at any point, the current
                    generation stays whole and the computed vectors stay in the cache, so the
                    next run resumes where this one stopped. Once complete, the generation is
                    the one a synchronous build writes (same parts, same `index_rev`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import HelixError, IndexCorruptError
from helix.core.paths import embedding_cache_dir
from helix.core.ports import Embedder, Progress
from indexers.formats import PART_CARDS, cards_from
from indexers.store import DIR_DENSE, IndexStore, Manifest, dense_state, now, read_part

# progress(stage, done, total)
WORKER_BATCH = 64  # texts per embedder call in complete_dense: progress and stop checks
# A generation replaced less than this long ago is kept when the worker publishes (a reader
# that opened it keeps finding its parts); older ones are pruned as usual.
PUBLISH_GRACE_S = 600.0


def model_key_without_loading(settings: IndexSettings, embedder: Embedder | None) -> str | None:
    """The key of the vectors a build would compute, without loading the model; None when
    that cannot be known (a model only sentence-transformers reads: then it is loaded)."""
    if embedder is not None:
        return embedder.model_key
    from indexers.encoder import default_model_path, model_key_for, numpy_compatible

    directory = Path(default_model_path(settings)).expanduser()
    return model_key_for(directory) if numpy_compatible(directory) else None


# The budget of an index that embeds every eligible chunk (`helix index --embed-all`).
EMBED_ALL = 2**31 - 1


def selection_settings(settings: IndexSettings, embed_all: bool) -> IndexSettings:
    """The settings the embed selection is made with: the `embed_max_chunks` budget, or none
    when the index embeds all (its generations say so: counts["dense"]["all"])."""
    return settings.model_copy(update={"embed_max_chunks": EMBED_ALL}) if embed_all else settings


@dataclass
class DensePlan:
    items: list[tuple[str, str]]  # (chunk id, embed text), selection order
    hashes: list[str]  # text hash of each item
    model_key: str | None
    found: dict[str, np.ndarray]  # text hash -> vector, what the cache holds
    missing: int  # distinct texts without a vector
    embed_all: bool = False  # the selection is every eligible chunk

    def counts(self, vectors: int) -> dict[str, Any]:
        return {"vectors": vectors, "total": len(self.items),
                **({"all": True} if self.embed_all else {})}


def plan_dense(chunks: Sequence[Any], settings: IndexSettings, embedder: Embedder | None,
               cards: dict[str, Any]) -> DensePlan:
    """The selection and what the cache has of it (`cards` is filled as in the build)."""
    from indexers.dense import select_for_embedding, text_hash
    from indexers.embed_cache import EmbeddingCache

    items = select_for_embedding(chunks, settings, cards)
    hashes = [text_hash(text) for _, text in items]
    key = model_key_without_loading(settings, embedder)
    found: dict[str, np.ndarray] = {}
    if key is not None and items:
        with EmbeddingCache(embedding_cache_dir()) as cache:
            found = cache.get_many(key, hashes)
    return DensePlan(items=items, hashes=hashes, model_key=key, found=found,
                     missing=len(set(hashes) - set(found)))


def cached_dense(plan: DensePlan) -> tuple[Any, dict[str, int]]:
    """(DenseIndex of the items whose vectors the cache has, in selection order; stats)."""
    from indexers.dense import DenseIndex

    rows = [(cid, plan.found[h]) for (cid, _), h in zip(plan.items, plan.hashes, strict=True)
            if h in plan.found]
    if rows:
        matrix = np.stack([vector for _, vector in rows]).astype(np.float32, copy=False)
    else:
        matrix = np.zeros((0, 0), dtype=np.float32)
    stats = {"cached": len(rows), "computed": 0, "total": len(plan.items)}
    return DenseIndex.build([cid for cid, _ in rows], matrix), stats


def _current(store: IndexStore) -> tuple[Path, Manifest]:
    generation = store.current_dir()
    if generation is None:
        raise IndexCorruptError(f"no index at {store.directory}")
    return generation, store.read_manifest(generation)


def _publish(store: IndexStore, generation: Path, manifest: Manifest, plan: DensePlan,
             computed: int) -> tuple[Path, Manifest]:
    """A new generation: `generation`'s parts but `dense/`, which holds what `plan.found`
    has of the selection. Returns the new current generation."""
    dense, stats = cached_dense(plan)
    writer = store.writer()
    try:
        writer.link_parts(generation, manifest, DIR_DENSE)
        dense.save(writer.subdir(DIR_DENSE))
        # the coverage the lexical phase recorded (eligible, chunks) stays
        state = {**(manifest.counts.get("dense") or {}), **plan.counts(len(dense))}
        report = {**manifest.report, "embeddings": {
            "cached": stats["cached"] - computed, "computed": computed, "total": len(plan.items)},
            "dense_state": dense_state({"dense": state})}
        published = writer.commit(
            index_hash=manifest.index_hash, embed_model_key=manifest.embed_model_key,
            files=manifest.files, repo_rev=manifest.repo_rev,
            counts={**manifest.counts, "dense": state}, report=report, created=now(),
            prune_grace_s=PUBLISH_GRACE_S)
    except BaseException:
        writer.abort()
        raise
    current = store.current_dir()
    assert current is not None
    return current, published


def _make_embedder(plan: DensePlan, settings: IndexSettings, cache: Any) -> Embedder:
    # the builder's own choice (numpy for a few texts, else ONNX Runtime): the same vectors a
    # synchronous build from the same cache would compute
    from indexers.build_embed import _default_embedder

    return _default_embedder(plan.items, settings, cache)


def complete_dense(store: IndexStore, root: Path, config: HelixConfig, *,
                   embedder: Embedder | None = None, progress: Progress | None = None,
                   should_stop: Callable[[], bool] | None = None,
                   on_batch: Callable[[dict[str, Any]], None] | None = None,
                   embed_all: bool = False, embed: bool = True
                   ) -> dict[str, Any] | None:
    """Embed what the current generation lacks and publish it (call with the writer lock
    held). Returns the dense state of the generation current at the end; None when the
    generation has no dense part or was built under other settings (a build is needed).
    `should_stop()` is asked after every batch: True publishes what exists and returns.
    `on_batch(info)` gets {"vectors", "total", "computed", "rate", "eta_s", "published"}.
    `embed_all`: widen the selection to every eligible chunk (kept by the index from then
    on); `embed=False`: only publish the widened selection with the vectors the cache has."""
    from indexers.embed_cache import EmbeddingCache
    from indexers.reader import Index

    settings = config.index
    generation, manifest = _current(store)
    state = dense_state(manifest.counts)
    if state is None or manifest.index_hash != config.index_hash:
        return state
    widen = embed_all and not state.get("all")
    if state["complete"] and not widen:
        return state
    embed_all = embed_all or bool(state.get("all"))
    store.verify_all(generation, manifest)  # its parts are about to be shared by links
    index = Index(root, generation, manifest, settings, verified=True)
    cards: dict[str, Any] = {}
    if PART_CARDS in manifest.parts:
        cards = cards_from(read_part(generation, manifest, PART_CARDS))
    from indexers.dense import select_for_embedding, text_hash

    items = select_for_embedding(index.chunks(), selection_settings(settings, embed_all), cards)
    hashes = [text_hash(text) for _, text in items]
    key = manifest.embed_model_key
    if key is None:
        raise IndexCorruptError("index has a dense part but no embedding model key")
    cache = EmbeddingCache(embedding_cache_dir())
    try:
        found = cache.get_many(key, hashes)
        plan = DensePlan(items=items, hashes=hashes, model_key=key, found=found,
                         missing=len(set(hashes) - set(found)), embed_all=embed_all)
        if not embed:
            generation, manifest = _publish(store, generation, manifest, plan, 0)
            return dense_state(manifest.counts)
        todo: dict[str, str] = {}
        for (_, text), h in zip(items, hashes, strict=True):  # selection (priority) order
            if h not in found and h not in todo:
                todo[h] = text
        if todo:
            embedder = embedder or _make_embedder(plan, settings, cache)
            if embedder.model_key != key:
                raise HelixError(f"the embedder's model ({embedder.model_key}) is not the "
                                 f"index's ({key}); run `helix index --force`")
        generation, manifest = _embed_and_publish(
            store, generation, manifest, plan, list(todo.items()), embedder, cache, settings,
            progress, should_stop, on_batch)
    finally:
        cache.close()
    return dense_state(manifest.counts)


def _embed_and_publish(store: IndexStore, generation: Path, manifest: Manifest,
                       plan: DensePlan, todo: list[tuple[str, str]], embedder: Embedder | None,
                       cache: Any, settings: IndexSettings, progress: Progress | None,
                       should_stop: Callable[[], bool] | None,
                       on_batch: Callable[[dict[str, Any]], None] | None
                       ) -> tuple[Path, Manifest]:
    total = len(plan.items)
    wanted = set(plan.hashes)

    def have() -> int:
        return sum(1 for h in plan.hashes if h in plan.found)

    started = last_publish = time.monotonic()
    computed = since_publish = 0
    published = dense_state(manifest.counts) or {}
    if progress:
        progress("embed", have(), total)
    for start in range(0, len(todo), WORKER_BATCH):
        assert embedder is not None
        batch = todo[start:start + WORKER_BATCH]
        vectors = np.asarray(embedder.embed([text for _, text in batch]), dtype=np.float32)
        fresh = {h: vectors[i] for i, (h, _) in enumerate(batch)}
        cache.put_many(plan.model_key, fresh)
        plan.found.update(fresh)
        computed += len(batch)
        since_publish += len(batch)
        done = have()
        stop = should_stop is not None and should_stop()
        last = start + WORKER_BATCH >= len(todo)
        if (stop or last or since_publish >= settings.dense_publish_vectors
                or time.monotonic() - last_publish >= settings.dense_publish_seconds):
            generation, manifest = _publish(store, generation, manifest, plan, computed)
            published = dense_state(manifest.counts) or {}
            last_publish, since_publish = time.monotonic(), 0
        if progress:
            progress("embed", done, total)
        if on_batch is not None:
            elapsed = max(time.monotonic() - started, 1e-6)
            rate = computed / elapsed
            left = sum(1 for h in wanted if h not in plan.found)
            on_batch({"vectors": done, "total": total, "computed": computed,
                      "rate": round(rate, 2), "eta_s": round(left / rate, 1) if rate else None,
                      "published": published.get("vectors", 0)})
        if stop:
            break
    if not todo:  # everything was in the cache already (another index embedded it)
        generation, manifest = _publish(store, generation, manifest, plan, 0)
    return generation, manifest
