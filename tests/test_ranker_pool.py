"""The learned ranker's pool budget (`controller.rank_features.select`): when the candidates
are more than `retrieval.ranker.max_candidates`, the hand order is kept and the rest are
chosen by the cheap score, not cut in the order they were found."""

from __future__ import annotations

from controller.evidence import Candidate
from controller.rank_features import Pooled, RankInputs, SelectWeights, candidates, select
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from tests.route_helpers import route_question

WEIGHTS = SelectWeights(bm25=1.0, body=1.0, name=1.0, file=0.5)


def _chunk(path: str, name: str, body: str) -> Chunk:
    return Chunk(id=f"{path}::{name}", path=path, kind="code_def", lang="python",
                 start_line=1, end_line=3, text=f"def {name}(value):\n    {body}\n",
                 content_hash=name, symbol=name, def_kind="function",
                 node_id=f"def:{path}::{name}")


def _inputs() -> tuple[RankInputs, Chunk]:
    plan = route_question("Fix the retry backoff when the pool closes")
    lead = _chunk("pkg/pool.py", "close_pool", "return value")
    filler = [_chunk("pkg/pool.py", f"helper_{n}", "return value") for n in range(6)]
    answer = _chunk("pkg/net.py", "retry_backoff", "return value")
    hand = (Candidate(chunk=lead, score=1.0, reasons=(), step=0),)
    return RankInputs(plan=plan, hand=hand, pool={}, lists=(), fused=(),
                      file_chunks={"pkg/pool.py": filler, "pkg/net.py": [answer]}), answer


def test_the_first_found_cut_drops_what_the_budget_keeps() -> None:
    inputs, answer = _inputs()
    found = candidates(inputs, 1000)
    assert len(found) == 8 and found[-1].chunk == answer
    # today's cut (considered 0): the first four found, the answer never scored
    assert answer not in [p.chunk for p in candidates(inputs, 4)]
    kept = select(inputs, found, 4, WEIGHTS, FileDefsPolicy())
    assert len(kept) == 4
    assert kept[0].source == "hand" and answer in [p.chunk for p in kept]
    # the kept ones stay in pool order
    assert [p.chunk.id for p in kept] == [p.chunk.id for p in found if p in kept]


def test_a_pool_within_the_budget_is_kept_whole_and_the_hand_order_first() -> None:
    inputs, _answer = _inputs()
    found = candidates(inputs, 1000)
    assert select(inputs, found, 8, WEIGHTS, FileDefsPolicy()) == found
    hand_only = select(inputs, found, 1, WEIGHTS, FileDefsPolicy())
    assert [p.source for p in hand_only] == ["hand"]


def test_the_weights_decide() -> None:
    inputs, answer = _inputs()
    found = candidates(inputs, 1000)
    # by the file's place alone, the hand file's definitions win the two places left
    by_file = select(inputs, found, 3, SelectWeights(bm25=0.0, body=0.0, name=0.0, file=1.0),
                     FileDefsPolicy())
    assert answer not in [p.chunk for p in by_file]
    by_words = select(inputs, found, 3, WEIGHTS, FileDefsPolicy())
    assert answer in [p.chunk for p in by_words]
    assert isinstance(by_words[0], Pooled)


def test_word_signatures_never_call_sets_sharing_a_word_disjoint() -> None:
    """`select` skips the set tests of a candidate whose signature shares no bit with the
    question's: exact only if a shared word always shares a bit (checked on many pairs, under
    whatever string hash this process has)."""
    import random

    from controller.rank_features import word_bits

    rng = random.Random(31)
    vocabulary = [f"w{n}" for n in range(400)]
    skipped = 0
    for _ in range(2000):
        a = frozenset(rng.sample(vocabulary, rng.randint(1, 60)))
        b = frozenset(rng.sample(vocabulary, rng.randint(1, 8)))
        if not word_bits(a) & word_bits(b):
            skipped += 1
            assert a.isdisjoint(b)
        if not a.isdisjoint(b):
            assert word_bits(a) & word_bits(b)
    assert skipped > 0  # the signature does skip some


def test_a_candidate_holding_no_question_word_scores_by_bm25_and_file_alone() -> None:
    """The skipped candidates are scored as before: a chunk without a question word keeps its
    file term (the helpers tie; the first found wins) and its BM25 term (it breaks the tie)."""
    inputs, answer = _inputs()
    pooled = candidates(inputs, 100)
    kept = select(inputs, pooled, 3, WEIGHTS, FileDefsPolicy())
    assert [p.chunk.id for p in kept] == ["pkg/pool.py::close_pool", "pkg/pool.py::helper_0",
                                          answer.id]
    worded = RankInputs(**{**inputs.__dict__, "bm25": {"pkg/pool.py::helper_3": 0.5}})
    kept = select(worded, pooled, 3, WEIGHTS, FileDefsPolicy())
    assert [p.chunk.id for p in kept] == ["pkg/pool.py::close_pool", "pkg/pool.py::helper_3",
                                          answer.id]
