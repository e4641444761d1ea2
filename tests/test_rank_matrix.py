"""The learned step's feature matrix (`controller.rank_matrix.feature_matrix`, a feature at a
time over every candidate) holds the reference rows (`feature_rows`, a list per candidate)
bit for bit: every source, reason, channel, graph and history value, on candidates with and
without them."""

from __future__ import annotations

import math

import numpy as np

from controller import rank_matrix
from controller.evidence import Candidate
from controller.fusion import Ranked, Voted
from controller.rank_features import FEATURES, NodeSignals, RankInputs, candidates, feature_rows
from controller.rank_matrix import feature_matrix
from controller.reasons import Reason
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from tests.route_helpers import route_question


def _chunk(path: str, symbol: str, text: str, kind: str = "code_def") -> Chunk:
    return Chunk(id=f"{path}::{symbol}", path=path, kind=kind, lang="python", start_line=3,
                 end_line=3 + text.count("\n"), text=text, content_hash=symbol, symbol=symbol,
                 def_kind="method" if "." in symbol else "function",
                 node_id=f"def:{path}::{symbol}")


LEAD = _chunk("pkg/pool.py", "Pool.close_pool",
              "def close_pool(self):\n    # retry the close\n    return self.retry()\n")
SAME = [_chunk("pkg/pool.py", f"Pool.retry_{n}", f"def retry_{n}(self):\n    return {n}\n")
        for n in range(4)]
NET = [_chunk("pkg/net/send.py", "send_retry", "def send_retry(sock):\n"
              "    \"\"\"Send again after a backoff.\"\"\"\n    return sock.send()\n"),
       _chunk("pkg/net/send.py", "_private_backoff", "def _private_backoff():\n    pass\n")]
TEST = _chunk("tests/test_pool.py", "test_close", "def test_close():\n    assert 1\n")
DOC = _chunk("docs/pool.md", "Pool", "# Pool\n\nClosing a pool retries once.\n",
             kind="doc_section")
CALLEE = _chunk("pkg/util.py", "retry_backoff", "def retry_backoff(n):\n    return 2 ** n\n")
HISTORY = _chunk("pkg/history.py", "replay_history", "def replay_history():\n    return 0\n")


def _inputs() -> RankInputs:
    plan = route_question("Fix the retry backoff when the pool closes")
    reasons = {SAME[1].id: (Reason(code="symbol_exact", name="retry_1"),
                           Reason(code="aligned")),
               DOC.id: (Reason(code="path_hint"),)}
    lists = (Ranked(channel="bm25", query="q", chunk_ids=(NET[0].id, LEAD.id, DOC.id)),
             Ranked(channel="symbol", query="q", chunk_ids=(NET[0].id, SAME[1].id)),
             Ranked(channel="bm25", query="r", chunk_ids=(SAME[2].id, NET[0].id)),
             Ranked(channel="not_a_channel", query="q", chunk_ids=(TEST.id,)))
    fused = (Voted(NET[0].id, 0.05), Voted(LEAD.id, 0.031), Voted(DOC.id, 0.017),
             Voted(SAME[2].id, 0.0125), Voted(TEST.id, 0.003))
    signals = {LEAD.node_id: NodeSignals(calls_in=3, calls_out=1, pagerank=1.7),
               NET[0].node_id: NodeSignals(calls_in=2000, tests_in=1, documented=2,
                                           pagerank=0.3, commits=4, history_bm25=0.625,
                                           history=frozenset({"backoff", "retry", "fix"})),
               SAME[0].node_id: NodeSignals(commits=1, history_bm25=0.25)}
    return RankInputs(
        plan=plan,
        hand=(Candidate(chunk=LEAD, score=0.75, reasons=(Reason(code="in_file"),), step=0),
              Candidate(chunk=NET[0], score=0.5, reasons=(), step=1)),
        pool={c.id: c for c in (DOC, TEST, SAME[2])}, lists=lists, fused=fused,
        reasons=reasons, file_chunks={"pkg/pool.py": [LEAD, *SAME], "pkg/net/send.py": NET},
        callees=(CALLEE,), bm25={NET[0].id: 1.0, LEAD.id: 0.375, DOC.id: 0.1},
        file_bm25={"pkg/pool.py": 0.5, "pkg/net/send.py": 1.0}, history_hits=(HISTORY,),
        signals=signals, named=frozenset({NET[0].node_id}),
        near_named=frozenset({LEAD.node_id}), idf={"retry": 2.5, "pool": 1.25},
        idf_unseen=3.0, history_idf={"retry": 1.5}, history_unseen=2.0)


def _hex(rows: list[list[float]]) -> list[list[str]]:
    return [[float(v).hex() for v in row] for row in rows]


def test_the_matrix_holds_the_reference_rows_bit_for_bit() -> None:
    inputs = _inputs()
    pooled = candidates(inputs, 100)
    assert {p.source for p in pooled} == {"hand", "file", "callee", "history", "pool"}
    policy = FileDefsPolicy()
    want = feature_rows(inputs, pooled, policy)
    got = feature_matrix(inputs, pooled, policy)
    assert got.dtype == np.float64 and got.shape == (len(pooled), len(FEATURES))
    assert _hex(got.tolist()) == _hex(want)
    # the fixture reaches the sparse parts: channel places, word shares, graph, history
    for name in ("rr_bm25", "rr_symbol", "name_cov", "log_calls_in", "hist_cov", "hist_bm25",
                 "rr_history", "r_exact", "named", "near_named", "same_file_named"):
        assert got[:, FEATURES.index(name)].any(), name


def test_the_matrix_of_other_settings_and_no_signals() -> None:
    inputs = RankInputs(**{**_inputs().__dict__, "signals": {}, "lists": (), "fused": ()})
    pooled = candidates(inputs, 4)  # the budget: the first four found
    policy = FileDefsPolicy(long_forms=False, body_norm=50.0)
    assert _hex(feature_matrix(inputs, pooled, policy).tolist()) == _hex(
        feature_rows(inputs, pooled, policy))
    assert feature_matrix(inputs, [], policy).shape == (0, len(FEATURES))


def test_a_kept_log1p_is_math_log1p() -> None:
    for k in (0, 1, 7, 1023, 1024, 10**9, 2.5):
        assert rank_matrix._LOG1P[k].hex() == math.log1p(k).hex()
