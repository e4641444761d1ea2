from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexers.bm25 import BM25Index, RankBM25Reference
from indexers.tokenize import tokenize

DOCS = {
    "a": "def retry_policy(attempts): decide how many times to retry a request",
    "b": "class HTTPServerError(Exception): raised when the server fails",
    "c": "the retry loop sleeps between attempts using the backoff policy",
    "d": "unrelated text about parsing json documents",
}


def _build(docs: dict[str, str]) -> BM25Index:
    ids = sorted(docs)
    return BM25Index.build(ids, [tokenize(docs[i]) for i in ids])


def test_search_ranks_matching_chunks() -> None:
    index = _build(DOCS)
    hits = index.search("retry policy", 10)
    assert [h[0] for h in hits][:2] in (["a", "c"], ["c", "a"])
    assert all(score > 0 for _, score in hits)
    assert {h[0] for h in hits} == {"a", "c"}
    assert index.search("HTTPServerError", 3)[0][0] == "b"
    assert index.search("server error", 3)[0][0] == "b"


def test_empty_and_unknown_queries() -> None:
    index = _build(DOCS)
    assert index.search("", 5) == []
    assert index.search("the of is", 5) == []
    assert index.search("zzzunknownzzz", 5) == []
    assert index.search("retry", 0) == []


def test_ties_broken_by_id_ascending() -> None:
    docs = {f"id{n:02d}": "same words here" for n in (7, 3, 11, 1, 5)}
    index = _build(docs)
    hits = index.search("words", 3)
    assert [h[0] for h in hits] == ["id01", "id03", "id05"]
    assert len({score for _, score in hits}) == 1


def test_empty_corpus_and_empty_documents() -> None:
    empty = BM25Index.build([], [])
    assert len(empty) == 0 and empty.search("anything", 5) == []
    blank = BM25Index.build(["x", "y"], [[], []])
    assert blank.search("anything", 5) == []


def test_bad_build_input() -> None:
    with pytest.raises(ValueError):
        BM25Index.build(["a"], [])
    with pytest.raises(ValueError):
        BM25Index.build(["a", "a"], [["x"], ["y"]])


def test_save_load_round_trip(tmp_path: Path) -> None:
    index = _build(DOCS)
    index.save(tmp_path / "bm25")
    loaded = BM25Index.load(tmp_path / "bm25")
    assert len(loaded) == len(index)
    for query in ("retry policy", "server", "json parsing", "attempts backoff"):
        assert loaded.search(query, 4) == index.search(query, 4)


def test_load_rejects_inconsistent_files(tmp_path: Path) -> None:
    _build(DOCS).save(tmp_path)
    (tmp_path / "bm25_ids.json").write_text(json.dumps(["a"]), "utf-8")
    with pytest.raises(ValueError):
        BM25Index.load(tmp_path)
    with pytest.raises(OSError):
        BM25Index.load(tmp_path / "missing")


def test_scores_equal_reference_on_small_corpus() -> None:
    ids = sorted(DOCS)
    tokens = [tokenize(DOCS[i]) for i in ids]
    ours = BM25Index.build(ids, tokens, idf="okapi")
    ref = RankBM25Reference.build(ids, tokens)
    for query in ("retry policy", "server error", "json"):
        a, b = ours.search(query, 4), ref.search(query, 4)
        assert [x for x, _ in a] == [x for x, _ in b]
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-5)


def _networkx_chunks() -> tuple[list[str], list[list[str]]]:
    import networkx

    root = Path(networkx.__file__).parent
    ids: list[str] = []
    tokens: list[list[str]] = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        rel = path.relative_to(root).as_posix()
        for start in range(0, len(lines), 40):
            ids.append(f"{rel}:{start + 1}")
            tokens.append(tokenize("\n".join(lines[start:start + 40])))
    return ids, tokens


NETWORKX_QUERIES = [
    "shortest path dijkstra", "breadth first search", "minimum spanning tree kruskal",
    "pagerank alpha personalization", "connected components", "topological sort cycle",
    "read edgelist file", "write graphml", "adjacency matrix numpy", "betweenness centrality",
    "maximum flow capacity", "bipartite matching", "isomorphism vf2", "clustering coefficient",
    "random graph erdos renyi", "add_edge weight attribute", "node degree sequence",
    "strongly connected components tarjan", "graph coloring greedy", "minimum cut stoer wagner",
    "NetworkXError not implemented", "DiGraph reverse copy", "relabel nodes mapping",
    "convert to undirected", "planarity check", "eulerian circuit", "k core decomposition",
    "community louvain modularity", "bellman ford negative cycle", "astar heuristic",
    "laplacian matrix eigenvalues", "dag longest path", "tree is_arborescence",
]


def _overlaps(ours: BM25Index, ref: RankBM25Reference) -> list[int]:
    overlaps = []
    for query in NETWORKX_QUERIES:
        a = {x for x, _ in ours.search(query, 10)}
        b = {x for x, _ in ref.search(query, 10)}
        assert len(a) == 10 and len(b) == 10
        overlaps.append(len(a & b))
    return overlaps


def test_agrees_with_rank_bm25_on_networkx() -> None:
    ids, tokens = _networkx_chunks()
    assert len(ids) > 1000
    ref = RankBM25Reference.build(ids, tokens)
    default = _overlaps(BM25Index.build(ids, tokens), ref)
    assert sum(default) / len(default) >= 8.0
    okapi = _overlaps(BM25Index.build(ids, tokens, idf="okapi"), ref)
    assert sum(okapi) / len(okapi) >= 9.8

_WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "retry", "policy", "graph", "node"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_WORDS, max_size=12), min_size=1, max_size=12),
       st.lists(_WORDS, min_size=1, max_size=4))
def test_okapi_scores_equal_rank_bm25(corpus: list[list[str]], query: list[str]) -> None:
    from rank_bm25 import BM25Okapi

    if not any(corpus):
        return
    ids = [f"d{i:02d}" for i in range(len(corpus))]
    ours = BM25Index.build(ids, corpus, idf="okapi").scores_for_tokens(query)
    reference = BM25Okapi(corpus, k1=1.5, b=0.75, epsilon=0.25).get_scores(query)
    assert list(ours) == pytest.approx(list(reference), rel=1e-5, abs=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_WORDS, max_size=10), min_size=1, max_size=10),
       st.lists(_WORDS, min_size=1, max_size=3), st.integers(min_value=1, max_value=12))
def test_results_sorted_total_order_and_match_tokens(corpus: list[list[str]],
                                                     query: list[str], k: int) -> None:
    ids = [f"d{i:02d}" for i in range(len(corpus))]
    index = BM25Index.build(ids, corpus)
    hits = index.search_tokens(query, k)
    assert len(hits) <= k
    keys = [(-score, cid) for cid, score in hits]
    assert keys == sorted(keys)
    matching = {ids[i] for i, doc in enumerate(corpus) if set(doc) & set(query)}
    assert {cid for cid, _ in hits} <= matching
    assert len(hits) == min(k, len(matching))  # Lucene idf: every match scores > 0


@pytest.mark.parametrize("name", ["bm25_data.npy", "bm25_indices.npy", "bm25_indptr.npy",
                                  "bm25_id_rank.npy", "bm25_ids.json", "bm25_vocab.json",
                                  "bm25_meta.json"])
@pytest.mark.parametrize("damage", [b"", b"garbage", b"[]", b"{}"])
def test_damaged_files_raise_value_or_os_error(tmp_path: Path, name: str, damage: bytes) -> None:
    _build(DOCS).save(tmp_path)
    (tmp_path / name).write_bytes(damage)
    with pytest.raises((ValueError, OSError)):
        BM25Index.load(tmp_path).search("retry policy server json", 4)


def test_bm25_text_for_adds_path_symbol_and_headings() -> None:
    from helix.core.schemas import Chunk
    from indexers.bm25 import bm25_text_for

    code = Chunk(id="c1", path="pkg/shutil.py", kind="code_def", lang="python", start_line=3,
                 end_line=4, text="def copytree(src, dst):\n    pass", content_hash="h",
                 symbol="Copier.copytree", def_kind="method", node_id="def:pkg/shutil.py::c")
    assert bm25_text_for(code) == "pkg/shutil\nCopier.copytree\n" + code.text
    doc = code.model_copy(update={"path": "docs/README", "kind": "doc_section", "symbol": None,
                                  "heading_path": ("Guide", "Install"), "text": "## Install"})
    assert bm25_text_for(doc) == "docs/README\nGuide / Install\n## Install"
    assert {"shutil", "copier.copytree", "copytree"} <= set(tokenize(bm25_text_for(code)))


def test_build_from_term_ids_equals_build() -> None:
    """The builder's path (token cache ids, sorted vocabulary, an unused token) scores
    exactly like the token-list path."""
    ids = ["c", "a", "b", "d"]
    docs = [["retry", "policy", "retry"], ["backoff", "delay"], ["policy", "jitter"], []]
    vocab = ["backoff", "delay", "jitter", "policy", "retry", "unused"]
    term_ids = np.array([vocab.index(t) for doc in docs for t in doc], dtype=np.int32)
    lengths = np.array([len(doc) for doc in docs])
    for idf in ("lucene", "okapi"):
        a = BM25Index.build(ids, docs, idf=idf)
        b = BM25Index.build_from_term_ids(ids, vocab, term_ids, lengths, idf=idf)
        for query in (["retry"], ["policy"], ["backoff", "policy"], ["jitter", "delay"]):
            assert a.search_tokens(query, 4) == b.search_tokens(query, 4)
            assert a.scores_for_tokens(query).tolist() == b.scores_for_tokens(query).tolist()
    with pytest.raises(ValueError):
        BM25Index.build_from_term_ids(ids, vocab, term_ids, lengths[:3])


def test_file_index_concatenates_a_files_chunks() -> None:
    """Whole-file BM25 from chunk rows: a file's chunks are one document, so words spread over
    several chunks of one file add up; the same as BM25 over the concatenated token lists."""

    from indexers.bm25 import build_file_index, file_documents

    paths = ["a.py", "a.py", "b.py", "c.py", "c.py"]
    rows = [["spanning", "tree"], ["weight", "total"], ["spanning", "tree", "weight"],
            ["other"], []]
    vocab = sorted({t for row in rows for t in row})
    flat = np.array([vocab.index(t) for row in rows for t in row], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    files, lengths = file_documents(paths, np.diff(offsets))
    assert files == ["a.py", "b.py", "c.py"] and lengths.tolist() == [4, 3, 1]
    index = build_file_index(paths, vocab, flat, offsets)
    direct = BM25Index.build(files, [rows[0] + rows[1], rows[2], rows[3] + rows[4]])
    for query in ("spanning tree weight", "total", "other", "nothing"):
        assert index.search(query, 3) == direct.search(query, 3)
    assert [p for p, _ in index.search("total weight", 3)] == ["a.py", "b.py"]
    with pytest.raises(ValueError):
        file_documents(["b.py", "a.py"], np.array([1, 1]))
    with pytest.raises(ValueError):
        file_documents(["a.py"], np.array([1, 1]))
    assert file_documents([], np.zeros(0))[0] == []


def test_chunk_and_file_indexes_in_one_pass_equal_the_separate_builds() -> None:
    import random

    from indexers.bm25 import build_file_index

    rng = random.Random(7)
    for _ in range(40):
        n_chunks = rng.randint(1, 30)
        paths = sorted(rng.choice(["a.py", "b/c.py", "d.md", "e.py"]) for _ in range(n_chunks))
        ids = [f"c{i:03d}" for i in range(n_chunks)]
        vocab = [f"t{i}" for i in range(rng.randint(1, 25))]
        lengths = np.array([rng.randint(0, 10) for _ in range(n_chunks)], dtype=np.int64)
        flat = np.array([rng.randrange(len(vocab)) for _ in range(int(lengths.sum()))],
                        dtype=np.int64)
        chunks, files = BM25Index.build_with_files(ids, paths, vocab, flat, lengths)
        expected = (BM25Index.build_from_term_ids(ids, vocab, flat, lengths),
                    build_file_index(paths, vocab, flat, np.r_[0, np.cumsum(lengths)]))
        for got, want in zip((chunks, files), expected, strict=True):
            assert got.ids == want.ids
            for query in ("t0 t1", "t2", "t3 t3 t4"):
                assert got.search(query, 10) == want.search(query, 10)
    with pytest.raises(ValueError, match="differ in length"):
        BM25Index.build_with_files(["a", "b"], ["a.py", "b.py"], ["t"], np.array([0, 0, 0]),
                                   np.array([2, 2]))
    with pytest.raises(ValueError, match="not sorted by path"):
        BM25Index.build_with_files(["a", "b"], ["b.py", "a.py"], ["t"], np.array([0, 0]),
                                   np.array([1, 1]))
