"""Weighted reciprocal rank fusion, then MMR diversification. Pure; every tie broken by chunk id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from controller.reasons import Reason
from controller.reasons import rank as rank_reason
from controller.text import jaccard
from helix.core.config import RetrievalSettings
from helix.core.schemas import Frozen


class Ranked(Frozen):
    """One list of chunk ids, best first, from one channel (and one query)."""

    channel: str
    query: str
    chunk_ids: tuple[str, ...]


class Fused(Frozen):
    chunk_id: str
    score: float
    reasons: tuple[Reason, ...]  # the channel and rank it came from ("bm25#3" rendered)


def channel_weight(channel: str, settings: RetrievalSettings,
                   overrides: Mapping[str, float] | None = None) -> float:
    if overrides and channel in overrides:
        return overrides[channel]
    weights = {"bm25": settings.w_bm25, "dense": settings.w_dense, "symbol": settings.w_symbol,
               "path": settings.w_path, "graph": settings.w_graph, "refs": settings.w_symbol,
               "files": settings.w_files, "file_bm25": settings.w_file_bm25,
               "definition": settings.w_definition,
               "related": settings.w_graph,
               "tree": settings.w_bm25,
               "sense": settings.w_bm25,
               "prf": settings.pools.w_prf,
               "test_files": settings.pools.w_test_files}
    return weights.get(channel, settings.w_bm25)


# the feedback pass (`prf`) and the test files' list (`test_files`) are BM25 over chunks
# too: one lexical vote with it
FAMILIES = {"files": "bm25", "file_bm25": "bm25", "prf": "bm25", "test_files": "bm25"}


def _vote(best: Mapping[tuple[str, str], int], settings: RetrievalSettings,
          overrides: Mapping[str, float] | None,
          families: Mapping[str, str]) -> dict[str, float]:
    """Item -> sum of its votes, from (item, channel) -> best rank. One vote per channel: an
    item's best rank in each channel counts once, so several correlated queries of one channel
    (query variants) do not outvote the other channels. Channels of one family (BM25 over
    chunks and BM25 pooled per file) are one vote: the better of the two, so lexical evidence
    is not counted twice against the dense channel."""
    votes: dict[tuple[str, str], float] = {}
    for (item, channel), rank in sorted(best.items()):
        weight = channel_weight(channel, settings, overrides)
        key = (item, families.get(channel, channel))
        votes[key] = max(votes.get(key, 0.0), weight / (settings.rrf_k + rank))
    scores: dict[str, float] = {}
    for (item, _family), vote in sorted(votes.items()):
        scores[item] = scores.get(item, 0.0) + vote
    return scores


def _best_ranks(lists: Sequence[Ranked]) -> dict[tuple[str, str], int]:
    best: dict[tuple[str, str], int] = {}
    for ranked in lists:
        for rank, chunk_id in enumerate(ranked.chunk_ids, start=1):
            key = (chunk_id, ranked.channel)
            best[key] = min(best.get(key, rank), rank)
    return best


def rrf(lists: Sequence[Ranked], settings: RetrievalSettings,
        overrides: Mapping[str, float] | None = None,
        families: Mapping[str, str] = FAMILIES) -> list[Fused]:
    """score(c) = sum over channels of w(channel) / (rrf_k + best rank of c in that channel's
    lists); reasons: best rank per channel."""
    best = _best_ranks(lists)
    scores = _vote(best, settings, overrides, families)
    reasons: dict[str, list[tuple[str, int]]] = {}
    for (chunk_id, channel), rank in best.items():
        reasons.setdefault(chunk_id, []).append((channel, rank))
    out = [Fused(chunk_id=cid, score=round(score, 9),
                 reasons=tuple(rank_reason(ch, rk) for ch, rk in sorted(reasons[cid],
                                                                key=lambda x: (x[1], x[0]))))
           for cid, score in scores.items()]
    out.sort(key=lambda f: (-f.score, f.chunk_id))
    return out


class Voted(NamedTuple):
    """A chunk's fused score without its reasons (`rrf_scores`)."""

    chunk_id: str
    score: float


def rrf_scores(lists: Sequence[Ranked], settings: RetrievalSettings,
               overrides: Mapping[str, float] | None = None,
               families: Mapping[str, str] = FAMILIES) -> list[Voted]:
    """`rrf`'s chunk ids and scores, in its order, without building the reasons."""
    scores = _vote(_best_ranks(lists), settings, overrides, families)
    out = [Voted(cid, round(score, 9)) for cid, score in scores.items()]
    out.sort(key=lambda f: (-f.score, f.chunk_id))
    return out


# A file's further chunks score this much less per place below the file's own score, so they
# follow their file and no other file moves.
FILE_CHUNK_STEP = 1e-7


def rrf_files(lists: Sequence[Ranked], chunk_fused: Sequence[Fused], paths: Mapping[str, str],
              settings: RetrievalSettings, overrides: Mapping[str, float] | None = None,
              families: Mapping[str, str] = FAMILIES) -> tuple[list[Fused], list[Fused]]:
    """Reciprocal rank fusion by file: each list ranks the files of its chunks by their first
    appearance, a file's score sums its channels' votes (one per channel or family, its best
    rank), and the file is shown by its best chunk in `chunk_fused` (chunk-level order), with
    that chunk's reasons. Returns (one chunk per file, best file first; the files' other
    chunks, scored just below their file). Ties: path."""
    best: dict[tuple[str, str], int] = {}
    for ranked in lists:
        rank = 0
        seen: set[str] = set()
        for chunk_id in ranked.chunk_ids:
            path = paths[chunk_id]
            if path in seen:
                continue
            seen.add(path)
            rank += 1
            key = (path, ranked.channel)
            best[key] = min(best.get(key, rank), rank)
    scores = _vote(best, settings, overrides, families)
    shown: dict[str, Fused] = {}
    for fused in chunk_fused:  # best chunk first
        shown.setdefault(paths[fused.chunk_id], fused)
    out = [Fused(chunk_id=shown[path].chunk_id, score=round(score, 9),
                 reasons=shown[path].reasons)
           for path, score in scores.items() if path in shown]
    out.sort(key=lambda f: (-f.score, paths[f.chunk_id], f.chunk_id))
    firsts = {f.chunk_id for f in out}
    placed: dict[str, int] = {}
    more: list[Fused] = []
    for fused in chunk_fused:
        path = paths[fused.chunk_id]
        if fused.chunk_id in firsts or path not in scores:
            continue
        placed[path] = placed.get(path, 0) + 1
        more.append(fused.model_copy(update={
            "score": round(scores[path] - FILE_CHUNK_STEP * placed[path], 9)}))
    more.sort(key=lambda f: (-f.score, paths[f.chunk_id], f.chunk_id))
    return out, more


def mmr(candidates: Sequence[Fused], tokens: Mapping[str, frozenset[str]], *, lam: float,
        limit: int, selected: Sequence[str] = ()) -> list[Fused]:
    """Maximal marginal relevance: lam * relevance - (1 - lam) * max Jaccard to what is chosen.

    Relevance is the fused score scaled to the best candidate (so lam means the same whatever
    the number of channels). `selected` (evidence already held) counts as chosen.
    """
    if limit <= 0 or not candidates:
        return []
    top = max(c.score for c in candidates) or 1.0
    pool = sorted(candidates, key=lambda c: (-c.score, c.chunk_id))
    chosen: list[Fused] = []
    # Max similarity of each candidate to what is chosen, brought up to date lazily: a
    # candidate's stale similarity is a lower bound, so its stale value an upper bound; one that
    # cannot beat the best value so far is not compared with the newest picks (the same picks).
    redundancy = [0.0] * len(pool)
    # a candidate's tokens are looked up when first compared (`tokens` may compute them)
    own: list[frozenset[str] | None] = [None] * len(pool)
    compared = [0] * len(pool)  # how many of `picked` each candidate has been compared with
    picked = [tokens.get(cid, frozenset()) for cid in selected]  # what is held counts as chosen
    relevance = [lam * (cand.score / top) for cand in pool]
    alive = list(range(len(pool)))
    while alive and len(chosen) < limit:
        best_value = float("-inf")
        best_pos = 0
        for pos, index in enumerate(alive):
            if round(relevance[index], 9) <= best_value:
                break  # alive is in (-score, id) order: no later one can beat it
            value = round(relevance[index] - (1.0 - lam) * redundancy[index], 9)
            if value <= best_value:
                continue
            if compared[index] < len(picked):
                mine = own[index]
                if mine is None:
                    mine = own[index] = tokens.get(pool[index].chunk_id, frozenset())
                for other in picked[compared[index]:]:
                    sim = jaccard(mine, other)
                    if sim > redundancy[index]:
                        redundancy[index] = sim
                compared[index] = len(picked)
                value = round(relevance[index] - (1.0 - lam) * redundancy[index], 9)
            # strict > keeps the first on ties, a total order.
            if value > best_value:
                best_value, best_pos = value, pos
        pick = alive.pop(best_pos)
        chosen.append(pool[pick])
        mine = own[pick]
        picked.append(tokens.get(pool[pick].chunk_id, frozenset()) if mine is None else mine)
    return chosen
