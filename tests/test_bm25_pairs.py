"""BM25's (term, doc, tf) pairs are counted in bounded memory (issue 13): document batches and
one stable sort give exactly what one `np.unique` over every (term, doc) key gives, and so the
very same index, whatever the batch size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import indexers.bm25 as bm25_mod
from indexers.bm25 import BM25Index


def _reference_pairs(term_ids: np.ndarray, lengths: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_docs = len(lengths)
    doc_ids = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    keys, tf = np.unique(term_ids.astype(np.int64) * n_docs + doc_ids, return_counts=True)
    return keys // n_docs, keys % n_docs, tf


@settings(max_examples=150, deadline=None)
@given(lengths=st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=40),
       vocab=st.integers(min_value=1, max_value=15), batch=st.integers(min_value=1, max_value=60),
       seed=st.integers(min_value=0, max_value=2**16))
def test_pairs_equal_one_unique_over_all_keys(lengths: list[int], vocab: int, batch: int,
                                              seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = np.array(lengths, dtype=np.int64)
    term_ids = rng.integers(0, vocab, int(sizes.sum())).astype(np.int32)
    old = bm25_mod.PAIR_BATCH_TOKENS
    bm25_mod.PAIR_BATCH_TOKENS = batch
    try:
        got = bm25_mod._pairs(term_ids, sizes)
    finally:
        bm25_mod.PAIR_BATCH_TOKENS = old
    if len(term_ids) == 0:
        assert all(len(a) == 0 for a in got)
        return
    for mine, reference in zip(got, _reference_pairs(term_ids, sizes), strict=True):
        assert mine.tolist() == reference.tolist()


@pytest.mark.parametrize("batch", [1, 3, 17, 1 << 21])
def test_the_same_index_whatever_the_batch(batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    paths = sorted(f"pkg/m{n // 4}.py" for n in range(60))
    ids = [f"{p}:{n}" for n, p in enumerate(paths)]
    lengths = rng.integers(0, 30, len(ids)).astype(np.int64)
    vocab = [f"t{n}" for n in range(40)]
    term_ids = rng.integers(0, len(vocab), int(lengths.sum())).astype(np.int32)
    reference = BM25Index.build_with_files(ids, paths, vocab, term_ids, lengths)
    monkeypatch.setattr(bm25_mod, "PAIR_BATCH_TOKENS", batch)
    batched = BM25Index.build_with_files(ids, paths, vocab, term_ids, lengths)
    for mine, ref in zip(batched, reference, strict=True):
        for attr in ("_data", "_indices", "_indptr", "_id_rank"):
            assert np.array_equal(getattr(mine, attr), getattr(ref, attr)), attr
        assert mine.search("t3 t7", 5) == ref.search("t3 t7", 5)
