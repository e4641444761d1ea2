"""The `prf` channel: chunk BM25 again, the query expanded by the first pass's best code
chunks' terms (pseudo-relevance feedback, `controller.feedback`; docs/ranker.md "Round 27").

Its list enters the fusion as one more lexical list (one vote with `bm25`, `files` and
`file_bm25` where a route fuses them as one family): its new chunks are candidates the
question's own words did not reach.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.evidence import is_test
from controller.feedback import feedback_search
from helix.core.policy import Pools
from helix.core.schemas import Chunk, ChunkHead
from indexers.api import IndexReader
from indexers.bm25 import bm25_text_for
from indexers.tokenize import tokenize

FIRST_PASS_FETCH = 20  # first-pass hits read a feedback chunk, per `prf_docs`


def feedback_chunks(index: IndexReader, query: str, pools: Pools,
                    keep: Callable[[ChunkHead], bool]) -> list[tuple[Chunk, float]]:
    """The first pass's best `prf_docs` chunks the request keeps (not tests), with scores."""
    hits = index.search_bm25_scores(query, pools.prf_docs * FIRST_PASS_FETCH)
    scores = dict(hits)
    heads = index.chunk_heads([cid for cid, _ in hits])
    chosen = [h.id for h in heads if keep(h) and not is_test(h)][:pools.prf_docs]
    return [(c, scores[c.id]) for c in index.chunks_by_id(chosen)]


def prf_chunks(index: IndexReader, query: str, k: int, pools: Pools,
               keep: Callable[[ChunkHead], bool]) -> list[Chunk]:
    """The second pass's best `k` chunks the request keeps; [] when off or unsupported."""
    # the index's chunk BM25 (`indexers.reader.Index`); an index without one has no pass
    bm25 = getattr(index, "_bm25", None)
    if pools.prf_terms <= 0 or not callable(bm25) or not query.strip():
        return []
    feedback = [(tokenize(bm25_text_for(c)), score)
                for c, score in feedback_chunks(index, query, pools, keep)]
    if not feedback:
        return []
    found, _terms = feedback_search(bm25(), query, feedback, pools.prf_terms, pools.prf_weight,
                                    k * pools.overfetch, pools.prf_min_docs)
    ids = [cid for cid, _ in found]
    out = [h.id for h in index.chunk_heads(ids) if keep(h)][:k]
    return index.chunks_by_id(out)
