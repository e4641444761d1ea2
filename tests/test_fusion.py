from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.fusion import FAMILIES, Fused, Ranked, mmr, rrf, rrf_scores
from controller.reasons import render_all
from controller.text import jaccard
from helix.core.config import RetrievalSettings

S = RetrievalSettings()


def test_rrf_weights_and_reasons() -> None:
    fused = rrf([Ranked(channel="bm25", query="q", chunk_ids=("a", "b")),
                 Ranked(channel="symbol", query="q", chunk_ids=("b",))], S)
    assert [f.chunk_id for f in fused] == ["b", "a"]
    b = fused[0]
    assert b.score == round(S.w_bm25 / (S.rrf_k + 2) + S.w_symbol / (S.rrf_k + 1), 9)
    assert render_all(b.reasons) == ("symbol#1", "bm25#2")


def test_bm25_and_pooled_files_are_one_lexical_vote() -> None:
    """A chunk BM25 ranks 4th and the file pool 5th has one lexical vote (the better one), so
    the dense channel's first is not outvoted by lexical evidence counted twice."""
    settings = RetrievalSettings(w_dense=1.0)
    fused = rrf([Ranked(channel="bm25", query="q", chunk_ids=("x", "y", "z", "lex")),
                 Ranked(channel="files", query="q", chunk_ids=("p", "q", "r", "s", "lex")),
                 Ranked(channel="dense", query="q", chunk_ids=("sem",))], settings)
    scores = {f.chunk_id: f.score for f in fused}
    assert scores["lex"] == round(settings.w_bm25 / (settings.rrf_k + 4), 9)
    assert scores["sem"] > scores["lex"]
    assert render_all(next(f for f in fused if f.chunk_id == "lex").reasons) == ("bm25#4",
                                                                            "files#5")


def test_rrf_ties_broken_by_chunk_id() -> None:
    fused = rrf([Ranked(channel="bm25", query="x", chunk_ids=("z",)),
                 Ranked(channel="bm25", query="y", chunk_ids=("a",))], S)
    assert [f.chunk_id for f in fused] == ["a", "z"]


def test_mmr_prefers_diverse_candidates() -> None:
    cands = [Fused(chunk_id="a", score=1.0, reasons=()), Fused(chunk_id="b", score=0.99,
                                                                  reasons=()),
             Fused(chunk_id="c", score=0.9, reasons=())]
    tokens = {"a": frozenset({"x", "y"}), "b": frozenset({"x", "y"}), "c": frozenset({"z"})}
    picked = mmr(cands, tokens, lam=0.5, limit=2)
    assert [p.chunk_id for p in picked] == ["a", "c"]


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.floats(0, 1)), max_size=8))
def test_mmr_is_order_independent(pairs: list[tuple[str, float]]) -> None:
    unique = {cid: round(score, 6) for cid, score in pairs}
    cands = [Fused(chunk_id=c, score=s, reasons=()) for c, s in unique.items()]
    tokens = {c: frozenset({c, "shared"}) for c in unique}
    a = mmr(cands, tokens, lam=0.7, limit=4)
    b = mmr(list(reversed(cands)), tokens, lam=0.7, limit=4)
    assert a == b


def _mmr_by_definition(cands: list[Fused], tokens: dict[str, frozenset[str]], lam: float,
                       limit: int, selected: tuple[str, ...]) -> list[str]:
    """MMR as written down: every pick compares every candidate with everything chosen."""
    top = max(c.score for c in cands) or 1.0
    pool = sorted(cands, key=lambda c: (-c.score, c.chunk_id))
    chosen: list[str] = list(selected)
    out: list[str] = []
    while pool and len(out) < limit:
        def value(c: Fused) -> float:
            sim = max((jaccard(tokens[c.chunk_id], tokens[o]) for o in chosen), default=0.0)
            return round(lam * (c.score / top) - (1.0 - lam) * sim, 9)
        best = max(range(len(pool)), key=lambda i: (value(pool[i]), -i))
        out.append(pool[best].chunk_id)
        chosen.append(pool.pop(best).chunk_id)
    return out


@given(st.dictionaries(st.sampled_from("abcdefghijkl"),
                       st.tuples(st.floats(0.01, 1), st.frozensets(st.sampled_from("pqrstu"))),
                       min_size=1),
       st.sampled_from([0.0, 0.3, 0.7, 1.0]), st.integers(1, 6), st.booleans())
def test_mmr_lazy_updates_pick_what_the_definition_picks(
        data: dict[str, tuple[float, frozenset[str]]], lam: float, limit: int,
        held: bool) -> None:
    """The comparisons skipped for candidates that cannot win change no pick."""
    cands = [Fused(chunk_id=c, score=round(s, 4), reasons=()) for c, (s, _) in data.items()]
    tokens = {c: toks for c, (_, toks) in data.items()}
    tokens["held"] = frozenset({"p", "q"})
    selected = ("held",) if held else ()
    got = [f.chunk_id for f in mmr(cands, tokens, lam=lam, limit=limit, selected=selected)]
    assert got == _mmr_by_definition(cands, tokens, lam, limit, selected)


_CHANNELS = ("bm25", "files", "dense", "symbol", "path", "graph")


@given(st.lists(st.tuples(st.sampled_from(_CHANNELS),
                          st.lists(st.sampled_from("abcdefghij"), max_size=8, unique=True)),
                max_size=6),
       st.booleans())
def test_rrf_scores_are_rrf_without_reasons(lists: list[tuple[str, list[str]]],
                                            family: bool) -> None:
    """The learned ranker reads only the fused ids and scores: the same, in the same order."""
    ranked = [Ranked(channel=c, query=str(n), chunk_ids=tuple(ids))
              for n, (c, ids) in enumerate(lists)]
    weights = {"dense": 0.7}
    families = FAMILIES if family else {}
    assert [(v.chunk_id, v.score) for v in rrf_scores(ranked, S, weights, families)] == [
        (f.chunk_id, f.score) for f in rrf(ranked, S, weights, families)]
