"""The dense adapter's union (round 32, `retrieval.dense_adapter_union` with
`retrieval.dense_adapter`): the question embedded once, searched with the plain and the adapted
vector, the two lists as one, each chunk at its better rank, ties to the plain list's; off or
without the adapter the channel is as before; the setting is hashed only when on."""

from __future__ import annotations

from pathlib import Path

import pytest
from controller_helpers import files_index
from test_dense_adapter_wired import FILES, QUESTION, _cards, _toward, _write

from controller import channels
from controller.channels import Request, execute
from controller.dense_adapter import dense_mode, load, union_hits
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Hit

ROOT = Path(__file__).resolve().parents[1]


def _hit(cid: str, rank: int, score: float = 0.5) -> Hit:
    return Hit(chunk_id=cid, score=score, channel="dense", rank=rank)


def test_union_takes_each_chunk_at_its_better_rank_ties_to_the_plain_list() -> None:
    plain = [_hit("a", 1, 0.9), _hit("b", 2, 0.8), _hit("c", 3, 0.7)]
    adapted = [_hit("c", 1, 0.95), _hit("d", 2, 0.6), _hit("a", 3, 0.5)]
    got = union_hits(plain, adapted, 10)
    assert [(h.chunk_id, h.rank) for h in got] == [("a", 1), ("c", 2), ("b", 3), ("d", 4)]
    assert got[1].score == 0.95  # the score of the list that gave the better rank
    assert [h.chunk_id for h in union_hits(plain, adapted, 2)] == ["a", "c"]
    assert union_hits(plain, [], 10) == plain
    assert [h.chunk_id for h in union_hits([], adapted, 10)] == ["c", "d", "a"]


def test_the_mode_needs_the_adapter() -> None:
    assert dense_mode(RetrievalSettings()) == "off"
    assert dense_mode(RetrievalSettings(dense_adapter_union=True)) == "off"
    assert dense_mode(RetrievalSettings(dense_adapter=True)) == "adapted"
    assert dense_mode(RetrievalSettings(dense_adapter=True, dense_adapter_union=True)) == "union"


def test_the_channel_lists_both_vectors_hits(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    index = files_index(FILES, embed=True)
    cards = _cards(index)
    today = index.search_dense(QUESTION, 3)
    pulled = index.search_dense(QUESTION, 10)[-1].chunk_id
    q = FakeEmbedder().embed([QUESTION])[0]
    adapter = load(_write(tmp_path / "a", _toward(q, cards[pulled])))
    monkeypatch.setattr(channels, "shipped_adapter", lambda: adapter)
    request = Request(channel="dense", query=QUESTION, k=3)
    pools = RetrievalSettings().pools
    adapted = channels._dense(index, request, FakeEmbedder(), pools, "adapted")
    union = channels._dense(index, request, FakeEmbedder(), pools, "union")
    assert adapted[0].chunk_id == pulled and pulled not in {h.chunk_id for h in today}
    assert [h.chunk_id for h in union] == [today[0].chunk_id, pulled, today[1].chunk_id]
    assert channels._dense(index, request, FakeEmbedder(), pools, "off") == today
    found = execute(index, request, FakeEmbedder(), None, "union")
    assert [f.chunk.id for f in found.found] == [h.chunk_id for h in union]


def test_hashed_only_when_on_and_the_eval_config() -> None:
    from evals.cli.run_common import candidate_overrides

    off = HelixConfig()
    on = off.model_copy(update={"retrieval": RetrievalSettings(dense_adapter=True,
                                                               dense_adapter_union=True)})
    assert "dense_adapter_union" not in off.retrieval.hashed()
    assert on.retrieval.hashed()["dense_adapter_union"] is True
    assert on.evidence_hash != off.evidence_hash
    path = ROOT / "evals" / "configs" / "dense_adapter_union.toml"
    assert candidate_overrides(str(path)) == {"retrieval.dense_adapter": True,
                                              "retrieval.dense_adapter_union": True}
