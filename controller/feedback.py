"""Pseudo-relevance feedback over the chunk BM25 index (RM3 / Rocchio, lexical).

A question's words and the code's names often differ ("where is the retry delay decided" vs
`backoff_seconds`); the first BM25 pass's best chunks tend to use the code's words. So:
take the first pass's best `docs` chunks, weight each term they hold by its share of each
chunk's tokens, the chunk's share of the first-pass score mass and its idf over the index
(identifiers count as their sub-words too: the tokenizer splits them), keep the `terms` best
that at least `min_docs` of those chunks hold and the query does not, and score every chunk
again: the query's own BM25 score plus `weight` times the expansion terms' scores, each term
scaled by its weight over the best term's. Pure over a `BM25Index` (no I/O); ties by term.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from indexers.bm25 import BM25Index, top_k

MIN_TERM_CHARS = 3
# a term more than this share of the chunks holds carries no signal (`self`, `return`); in a
# repository of under MIN_DF_CAP / MAX_DF_SHARE chunks, more than MIN_DF_CAP chunks
MAX_DF_SHARE = 0.1
MIN_DF_CAP = 5


def expansion_terms(query: Sequence[str], feedback: Sequence[tuple[Sequence[str], float]],
                    doc_freq: dict[str, int], n_docs: int, terms: int,
                    min_docs: int = 2) -> list[tuple[str, float]]:
    """(term, weight) best first: `feedback` is each feedback chunk's tokens and first-pass
    score; `doc_freq` each token's document count over the index (pure)."""
    if terms <= 0 or not feedback or n_docs <= 0:
        return []
    asked = set(query)
    mass = sum(max(score, 0.0) for _, score in feedback) or 1.0
    weight: dict[str, float] = {}
    held: Counter[str] = Counter()
    for tokens, score in feedback:
        if not tokens:
            continue
        counts = Counter(tokens)
        share = max(score, 0.0) / mass
        for token, tf in counts.items():
            held[token] += 1
            weight[token] = weight.get(token, 0.0) + share * tf / len(tokens)
    cap = max(MAX_DF_SHARE * n_docs, MIN_DF_CAP)
    out: list[tuple[str, float]] = []
    for token, w in weight.items():
        df = doc_freq.get(token, 0)
        if (token in asked or held[token] < min_docs or len(token) < MIN_TERM_CHARS
                or token.isdigit() or "." in token or df < 2 or df > cap):
            continue
        out.append((token, w * math.log1p((n_docs - df + 0.5) / (df + 0.5))))
    out.sort(key=lambda tw: (-tw[1], tw[0]))
    return out[:terms]


def expanded_scores(bm25: BM25Index, query: Sequence[str], expansion: Sequence[tuple[str, float]],
                    weight: float) -> np.ndarray:
    """Every chunk's score: the query's BM25 plus `weight` times each expansion term's BM25
    scaled by its weight over the best term's."""
    scores = np.array(bm25.scores_for_tokens(list(query)), dtype=np.float64)
    if not expansion or weight <= 0:
        return scores
    top = expansion[0][1] or 1.0
    for term, w in expansion:
        scores += weight * (w / top) * bm25.scores_for_tokens([term])
    return scores


def feedback_search(bm25: BM25Index, query: str, feedback: Sequence[tuple[Sequence[str], float]],
                    terms: int, weight: float, k: int, min_docs: int = 2
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(the second pass's top `k` (chunk id, score), the expansion terms used)."""
    from indexers.tokenize import tokenize

    tokens = bm25.known_forms(tokenize(query))
    if not tokens:
        return [], []
    candidates = {t for toks, _ in feedback for t in toks}
    doc_freq = {t: bm25.doc_freq(t) for t in sorted(candidates)}
    expansion = expansion_terms(tokens, feedback, doc_freq, len(bm25), terms, min_docs)
    scores = expanded_scores(bm25, tokens, expansion, weight)
    return top_k(bm25._ids, bm25._id_rank, scores, k), expansion
