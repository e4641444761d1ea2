"""The dense channel's query-side adapter (evals.corpus.dense_adapter) and the corpus cards'
ranks (evals.corpus.dense_cards): a toy set the identity gets wrong and the adapter right, and
the same fit twice giving the same bytes."""

from __future__ import annotations

import numpy as np

from evals.corpus.dense_adapter import FitConfig, RepoSet, adapter_matrix, apply, fit
from evals.corpus.dense_cards import CardBM25, best_rank, capped, rank_summary


def _toy() -> RepoSet:
    """Cards are the 8 axes; a question near axis 2k is about the card on axis 2k + 1: its
    nearest card by the identity is a wrong one."""
    rng = np.random.default_rng(0)
    cards = np.eye(8, dtype=np.float32)
    queries, gold = [], []
    for k in range(4):
        for _ in range(6):
            q = cards[2 * k] + 0.3 * cards[2 * k + 1] + 0.05 * rng.standard_normal(8)
            queries.append(q / np.linalg.norm(q))
            gold.append([2 * k + 1, -1])
    return RepoSet(cards, np.asarray(queries, np.float32), np.asarray(gold, np.int64))


def _ranks(data: RepoSet, matrix: np.ndarray | None) -> list[int]:
    scores = apply(data.queries, matrix) @ data.cards.T
    return [best_rank(scores[i], [g for g in data.gold[i] if g >= 0])
            for i in range(len(data.queries))]


def test_adapter_puts_the_gold_first_where_the_identity_does_not() -> None:
    data = _toy()
    assert all(r == 2 for r in _ranks(data, None))
    fitted = fit([data], FitConfig(rank=8, l2=0.0, steps=300, lr=0.02))
    u, v = fitted[300]
    assert all(r == 1 for r in _ranks(data, adapter_matrix(u, v)))


def test_the_same_fit_twice_gives_the_same_bytes() -> None:
    data = _toy()
    config = FitConfig(rank=4, l2=0.01, steps=40, lr=0.01)
    one, two = fit([data], config, at=(20,)), fit([data], config, at=(20,))
    assert sorted(one) == sorted(two) == [20, 40]
    for step in one:
        for a, b in zip(one[step], two[step], strict=True):
            assert a.tobytes() == b.tobytes()


def test_rank_zero_is_the_identity() -> None:
    u, v = fit([_toy()], FitConfig(rank=0, l2=0.0, steps=5))[5]
    assert np.array_equal(adapter_matrix(u, v), np.eye(8, dtype=np.float32))


def test_best_rank_counts_ties_against_the_gold() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.1])
    assert best_rank(scores, [2]) == 3  # 0.9 and the tied 0.5 come first
    assert best_rank(scores, [1, 2]) == 1
    assert rank_summary([1, 2, 6]) == {"cases": 3, "acc@1": 0.3333, "acc@5": 0.6667,
                                       "acc@10": 1.0, "mrr": 0.5556}


def test_cap_keeps_every_gold_card_and_a_seeded_rest() -> None:
    cards = {("a.py", f"f{i}"): (f"a.py:{i}-{i}#x{i}", f"card {i}") for i in range(50)}
    keep = [("a.py", "f7"), ("a.py", "f49"), ("b.py", "missing")]
    one, two = capped(cards, keep, 10), capped(cards, keep, 10)
    assert one == two and len(one.keys) == 10 and one.total == 50
    assert {("a.py", "f7"), ("a.py", "f49")} <= set(one.keys)


def test_card_bm25_prefers_the_card_holding_the_words() -> None:
    bm25 = CardBM25(["src/retry.py :: retry_policy (function)", "src/io.py :: read (function)"])
    scores = bm25.scores("where is the retry policy decided")
    assert scores[0] > scores[1] == 0.0


def test_candidates_hold_the_gold_the_hard_ones_and_a_seeded_sample() -> None:
    from evals.corpus.dense_adapter import candidates

    cards = np.eye(40, dtype=np.float32)[:, :8]
    data = RepoSet(cards, cards[:2], np.array([[5, -1], [7, 9]]), np.array([[1, 2], [3, 4]]))
    rows, gold = candidates(data, 6, seed=3)
    again, _ = candidates(data, 6, seed=3)
    assert np.array_equal(rows, again)
    for i, (want, hard) in enumerate([({5}, {1, 2}), ({7, 9}, {3, 4})]):
        kept = {int(r) for r in rows[i] if r >= 0}
        assert want | hard <= kept and len(kept) <= len(want | hard) + 6
        assert {int(r) for r, g in zip(rows[i], gold[i], strict=True) if g} == want
