"""The learned ranker's feature rows, computed faster and the same: a candidate none of whose
word fields holds a question word (its `_Static.every` signature shares no bit with the
question's) gets its word features without a set test, and they are those of the full test."""

from __future__ import annotations

import dataclasses

import pytest

from controller import rank_features
from controller.evidence import Candidate
from controller.rank_features import FEATURES, RankInputs, candidates, feature_rows, word_bits
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from tests.route_helpers import route_question


def _chunk(path: str, symbol: str, text: str) -> Chunk:
    return Chunk(id=f"{path}::{symbol}", path=path, kind="code_def", lang="python",
                 start_line=1, end_line=text.count("\n") + 1, text=text, content_hash=symbol,
                 symbol=symbol, def_kind="method", node_id=f"def:{path}::{symbol}")


def test_every_word_field_has_its_bit() -> None:
    chunk = _chunk("pkg/cache_store.py", "TokenVault.refresh_session",
                   "@wrapped\ndef refresh_session(self, deadline):\n"
                   "    # evict the stale lease\n    return self.backoff(deadline)\n")
    st = rank_features._static(chunk, FileDefsPolicy())
    fields = (st.name, st.owner, st.long_name, st.path, st.stem, st.sig, st.doc, st.body)
    assert all(st.every & word_bits({w}) for f in fields for w in f)
    assert st.path and st.stem and st.doc and st.owner  # every field read something


@pytest.mark.parametrize("question", ["Fix the retry backoff when the pool closes",
                                      "evict the stale lease in the vault",
                                      "zebra quokka"])
def test_rows_equal_the_full_word_tests(question: str) -> None:
    plan = route_question(question)
    lead = _chunk("pkg/pool.py", "Pool.close_pool", "def close_pool(self):\n    return 1\n")
    others = [_chunk("pkg/vault.py", "TokenVault.refresh", "def refresh(self):\n"
                     "    # evict the stale lease\n    return 2\n"),
              _chunk("pkg/net.py", "retry_backoff", "def retry_backoff(value):\n"
                     "    return value\n"),
              _chunk("pkg/other.py", "unrelated_name", "def unrelated_name():\n    pass\n")]
    inputs = RankInputs(plan=plan, hand=(Candidate(chunk=lead, score=1.0, reasons=(),
                                                   step=0),),
                        pool={}, lists=(), fused=(),
                        file_chunks={"pkg/vault.py": others[:1], "pkg/net.py": others[1:2],
                                     "pkg/other.py": others[2:]},
                        idf={"retry": 2.0, "evict": 3.0})
    pooled = candidates(inputs, 100)
    policy = FileDefsPolicy()
    rows = feature_rows(inputs, pooled, policy)
    suffix = rank_features._static_suffix(policy)
    for p in pooled:  # every signature made to share a bit: each word set tested
        key = p.chunk.id + suffix
        rank_features._STATIC[key] = dataclasses.replace(rank_features._STATIC[key],
                                                         every=-1)
    try:
        assert feature_rows(inputs, pooled, policy) == rows
    finally:
        rank_features._STATIC.clear()
    assert all(len(r) == len(FEATURES) for r in rows)
    words = FEATURES.index("body_cov")
    assert any(r[words] > 0 for r in rows) == (question != "zebra quokka")
