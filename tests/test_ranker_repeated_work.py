"""The learned step without repeated work (round 16): a file's features are made once per
file, not once per candidate; a BM25 score vector a question already summed is not summed
again; the rows are those of the per-candidate computation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import pytest

from controller.evidence import Candidate
from controller.rank_features import NodeSignals, RankInputs, candidates, feature_rows
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from indexers import bm25
from indexers.bm25 import BM25Index
from tests.route_helpers import route_question


class _Counted(Mapping[str, float]):
    """A mapping that counts its lookups."""

    def __init__(self, values: dict[str, float]) -> None:
        self.held, self.lookups = values, 0

    def __getitem__(self, key: str) -> float:
        self.lookups += 1
        return self.held[key]

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.lookups += 1
        return self.held.get(key, default)

    def __contains__(self, key: object) -> bool:
        self.lookups += 1
        return key in self.held

    def __iter__(self) -> Iterator[str]:
        return iter(self.held)

    def __len__(self) -> int:
        return len(self.held)


def _chunk(path: str, symbol: str) -> Chunk:
    text = f"def {symbol}(pool):\n    return pool.retry()\n"
    return Chunk(id=f"{path}::{symbol}", path=path, kind="code_def", lang="python",
                 start_line=1, end_line=2, text=text, content_hash=symbol, symbol=symbol,
                 def_kind="function", node_id=f"def:{path}::{symbol}")


def _inputs(**extra: object) -> RankInputs:
    lead = _chunk("pkg/pool.py", "close_pool")
    same = [_chunk("pkg/pool.py", f"retry_{n}") for n in range(6)]
    other = [_chunk("pkg/net.py", f"send_{n}") for n in range(3)]
    return RankInputs(plan=route_question("Fix the retry when the pool closes"),
                      hand=(Candidate(chunk=lead, score=1.0, reasons=(), step=0),),
                      pool={}, lists=(), fused=(),
                      file_chunks={"pkg/pool.py": [lead, *same], "pkg/net.py": other},
                      idf={"retry": 2.0}, **extra)  # type: ignore[arg-type]


def test_a_files_features_are_made_once_per_file() -> None:
    counted = _Counted({"pkg/pool.py": 0.75, "pkg/net.py": 0.25})
    inputs = _inputs(file_bm25=counted)
    pooled = candidates(inputs, 100)
    rows = feature_rows(inputs, pooled, FileDefsPolicy())
    assert len(pooled) == 10
    # one lookup per file (main: one per candidate, 10)
    assert counted.lookups == 2
    plain = feature_rows(_inputs(file_bm25=dict(counted.held)), pooled, FileDefsPolicy())
    assert rows == plain


def test_a_candidate_without_signals_has_the_rows_of_empty_signals() -> None:
    inputs = _inputs(history_idf={"retry": 1.5}, history_unseen=2.0)
    pooled = candidates(inputs, 100)
    rows = feature_rows(inputs, pooled, FileDefsPolicy())
    empty = {p.chunk.node_id: NodeSignals() for p in pooled}
    some = {pooled[1].chunk.node_id: NodeSignals(calls_in=3, history=frozenset({"retry"}),
                                                 commits=2, history_bm25=0.5)}
    with_empty = RankInputs(**{**inputs.__dict__, "signals": empty})
    assert feature_rows(with_empty, pooled, FileDefsPolicy()) == rows
    with_some = RankInputs(**{**inputs.__dict__, "signals": {**empty, **some}})
    changed = feature_rows(with_some, pooled, FileDefsPolicy())
    assert changed[0] == rows[0] and changed[1] != rows[1]


def _index() -> BM25Index:
    docs = [["retry", "pool", "close"], ["pool", "size"], ["retry", "backoff"], ["misc"]]
    return BM25Index.build([f"d{n}" for n in range(len(docs))], docs)


def test_a_query_summed_before_is_not_summed_again() -> None:
    index = _index()
    first = index.search_tokens(["retry", "pool"], 3)
    want = _index().scores_of("retry pool", ["d0", "d1", "d2"])
    index._indptr = None  # type: ignore[assignment]  # a second sum would fail (main: it does)
    assert index.scores_of("retry pool", ["d0", "d1", "d2"]) == want
    assert index.search_tokens(["retry", "pool"], 3) == first
    with pytest.raises(TypeError):  # a query not summed before is summed
        index.scores_for_tokens(["backoff"])


def test_the_kept_vectors_are_read_only_and_bounded() -> None:
    index = _index()
    vector = index.scores_for_tokens(["retry"])
    with pytest.raises(ValueError):
        vector[0] = 1.0
    queries = [["retry"], ["pool"], ["size"], ["backoff"], ["misc"], ["close"]]
    for query in queries:
        index.scores_for_tokens(query)
    assert len(index._recent) == bm25.RECENT
    fresh = _index()
    for query in queries:  # the same values as a fresh sum, whatever was kept
        assert np.array_equal(index.scores_for_tokens(query), fresh.scores_for_tokens(query))
