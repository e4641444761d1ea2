"""Retrieval-quality mechanisms of the controller: the pooled `files` channel, the definition
list in fusion, and test spans scaled down when the question does not ask about tests."""

from __future__ import annotations

from controller_helpers import ask, files_index
from route_helpers import route_question

from controller.channels import Found, Request, RequestResult, execute, module_of, path_matches
from controller.evidence import rank
from controller.fusion import Ranked, rrf
from controller.loop import _admit, _lists, initial_state
from controller.reasons import render_all
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.policy import Pools
from helix.core.schemas import Chunk
from indexers.api import IndexReader

SPREAD = '''"""Spanning trees."""


def tree_weight(graph):
    """Total weight of a spanning tree."""
    return 0


def cheapest_tree(graph):
    """The spanning tree of minimum total weight."""
    return graph


def tree_edges(graph):
    """Edges of a spanning tree, cheapest first."""
    return []
'''
LUCKY = '''def spanning_tree_weight_total(graph):
    """spanning tree weight: spanning tree weight total."""
    return 1
'''
TESTS = '''def test_spanning_tree_weight():
    """spanning tree weight spanning tree weight spanning tree weight"""
    assert True
'''


def _index() -> IndexReader:
    return files_index({"pkg/mst.py": SPREAD, "pkg/other.py": LUCKY,
                      "tests/test_mst.py": TESTS})


def _files(index: IndexReader, query: str, no_tests: bool) -> list[str]:
    result = execute(index, Request(channel="files", query=query, k=10, no_tests=no_tests), None)
    return [f.chunk.path for f in result.found]


def test_files_channel_pools_hits_per_file() -> None:
    index = _index()
    chunk_best = [index.chunk(h.chunk_id).path for h in
                  index.search_bm25("spanning tree weight", 10)]
    assert chunk_best[0] != "pkg/mst.py"  # one lucky chunk elsewhere wins chunk-level BM25
    paths = _files(index, "spanning tree weight", no_tests=True)
    assert paths[0] == "pkg/mst.py"  # several matching chunks: the file ranks first
    assert len(paths) == len(set(paths))  # one chunk per file


def test_files_channel_drops_tests_only_when_asked() -> None:
    index = _index()
    assert "tests/test_mst.py" not in _files(index, "spanning tree weight", no_tests=True)
    assert "tests/test_mst.py" in _files(index, "spanning tree weight", no_tests=False)


def test_files_channel_is_deterministic() -> None:
    index = _index()
    runs = {tuple(_files(index, "spanning tree cheapest", no_tests=True)) for _ in range(3)}
    assert len(runs) == 1


def test_definition_list_only_for_names_the_question_asks() -> None:
    index = _index()
    asked = execute(index, Request(channel="symbol", query="cheapest_tree", k=5), None)
    other = execute(index, Request(channel="symbol", query="tree_edges", k=5), None)
    lists = _lists([asked, other], frozenset(), frozenset({"cheapest_tree"}))
    definition = [r for r in lists if r.channel == "definition"]
    assert len(definition) == 1
    assert [index.chunk(c).symbol for c in definition[0].chunk_ids] == ["cheapest_tree"]
    assert not [r for r in _lists([other], frozenset(), frozenset({"cheapest_tree"}))
                if r.channel == "definition"]


def test_definition_list_outvotes_mentions() -> None:
    index = _index()
    settings = RetrievalSettings()
    target = next(c for c in index.chunks() if c.symbol == "cheapest_tree")
    mention = next(c for c in index.chunks() if c.symbol == "tree_edges")
    results = [RequestResult(request=Request(channel="bm25", query="q", k=5), found=()),
               execute(index, Request(channel="symbol", query="cheapest_tree", k=5), None)]
    plain = rrf([r for r in _lists(results, frozenset(), frozenset())
                 if r.channel != "definition"], settings)
    boosted = rrf(_lists(results, frozenset(), frozenset({"cheapest_tree"})), settings)
    assert boosted[0].chunk_id == target.id
    assert boosted[0].score > plain[0].score
    assert mention.id not in {f.chunk_id for f in boosted}


def test_tests_scaled_down_unless_asked() -> None:
    index = _index()

    def test_rank(question: str, weight: float) -> int:
        config = HelixConfig().model_copy(update={"retrieval": RetrievalSettings(
            test_weight=weight)})
        paths = [e.path for e in ask(index, question, config).evidence]
        return paths.index("tests/test_mst.py") if "tests/test_mst.py" in paths else len(paths)

    question = "How is the spanning tree weight computed?"
    assert test_rank(question, 0.5) >= test_rank(question, 1.0)
    assert test_rank(question, 0.5) > 0
    asked = "Where is the spanning tree weight tested?"
    assert test_rank(asked, 0.5) == test_rank(asked, 1.0)


def _found(channel: str, chunks: list[Chunk]) -> RequestResult:
    return RequestResult(request=Request(channel=channel, query="q", k=10),  # type: ignore[arg-type]
                         found=tuple(Found(chunk=c, rank=i) for i, c in enumerate(chunks, 1)))


def test_evidence_is_scored_by_one_fusion_over_every_step() -> None:
    """A chunk BM25 ranks 3rd in the seed and the dense channel 1st in the next step has both
    votes, and outranks the seed's 1st that no later step found again."""
    index = _index()
    settings = RetrievalSettings()
    a, b, c = sorted((ch for ch in index.chunks() if ch.symbol), key=lambda ch: ch.id)[:3]
    state = initial_state(route_question("How are spanning trees weighed?"), settings)
    state, _ = _admit(state, [_found("bm25", [a, b, c])], 8, 0)
    state, new = _admit(state, [_found("dense", [c])], 8, 1)
    assert new == []  # c was already held: rescored, not re-admitted
    scores = {cand.chunk.id: cand.score for cand in state.evidence}
    both = rrf([Ranked(channel="bm25", query="q", chunk_ids=(a.id, b.id, c.id)),
                Ranked(channel="dense", query="q", chunk_ids=(c.id,))], settings)
    assert scores[c.id] == next(f.score for f in both if f.chunk_id == c.id)
    assert scores[c.id] > scores[a.id]
    assert rank(state.evidence)[0].chunk.id == c.id


def test_a_chunk_passed_over_earlier_is_admitted_when_it_gains_votes() -> None:
    index = _index()
    settings = RetrievalSettings()
    a, b, c = sorted((ch for ch in index.chunks() if ch.symbol), key=lambda ch: ch.id)[:3]
    state = initial_state(route_question("How are spanning trees weighed?"), settings)
    state, first = _admit(state, [_found("bm25", [a, b, c])], 1, 0)
    assert first == [a.id]
    state, second = _admit(state, [_found("dense", [c])], 1, 1)
    assert second == [c.id]  # found by BM25 in step 0, admitted in step 1 with both votes
    assert {"bm25#3", "dense#1"} <= set(render_all(next(x for x in state.evidence
                                                        if x.chunk.id == c.id).reasons))


MODULES = {
    "functools.py": "def partial(func):\n    \"\"\"New function with partial application.\"\"\"\n"
                    "    return func\n",
    "other/partial_tools.py": "def partial(x):\n    return x\n",
    "http/client.py": "class HTTPConnection:\n    def putheader(self, header):\n"
                      "        return header\n",
    "http/__init__.py": "\"\"\"HTTP package.\"\"\"\n",
}


def test_a_module_qualified_name_finds_its_definition_in_that_module() -> None:
    index = files_index(MODULES)
    found = execute(index, Request(channel="symbol", query="functools.partial", k=5), None)
    assert [(f.chunk.path, f.chunk.symbol) for f in found.found] == [("functools.py", "partial")]
    method = execute(index, Request(channel="symbol",
                                    query="http.client.HTTPConnection.putheader", k=5), None)
    assert [f.chunk.symbol for f in method.found] == ["HTTPConnection.putheader"]
    assert "symbol:exact" in render_all(method.found[0].reasons)
    assert not execute(index, Request(channel="symbol", query="nomodule.partial", k=5),
                       None).found


def test_a_dotted_module_name_is_a_path_hint() -> None:
    assert path_matches("http/client.py", "http.client", fuzzy=False)
    assert path_matches("lib/http/client.py", "http.client", fuzzy=False)
    assert path_matches("email/mime/__init__.py", "email.mime", fuzzy=False)
    assert not path_matches("http/server.py", "http.client", fuzzy=False)
    assert not path_matches("client.py", "http.client", fuzzy=False)
    assert module_of("pkg/__init__.py") == "pkg"


def test_a_question_naming_a_module_attribute_leads_with_it() -> None:
    index = files_index(MODULES)
    evidence = ask(index, "What does functools.partial return?").evidence
    assert (evidence[0].path, evidence[0].symbol) == ("functools.py", "partial")


def _file_bm25(index: IndexReader, query: str, no_tests: bool, k: int = 10,
               pools: Pools | None = None) -> list[Found]:
    request = Request(channel="file_bm25", query=query, k=k, no_tests=no_tests)
    return list(execute(index, request, None, pools).found)


def test_file_bm25_channel_ranks_whole_files_by_their_best_chunk() -> None:
    index = _index()
    query = "cheapest edges of minimum total weight"  # words spread over pkg/mst.py
    assert index.search_files(query, 10)[0][0] == "pkg/mst.py"
    found = _file_bm25(index, query, no_tests=True)
    paths = [f.chunk.path for f in found]
    assert paths[0] == "pkg/mst.py" and len(paths) == len(set(paths))
    assert [f.rank for f in found] == list(range(1, len(found) + 1))
    # each file is shown by its chunk that ranks highest under chunk BM25
    best = next(index.chunk(h.chunk_id) for h in index.search_bm25(query, 50)
                if index.chunk(h.chunk_id).path == "pkg/mst.py")
    assert found[0].chunk == best
    assert [f.chunk.path for f in _file_bm25(index, query, True, k=1)] == ["pkg/mst.py"]


def test_file_bm25_channel_drops_tests_only_when_asked_and_is_deterministic() -> None:
    index = _index()
    assert "tests/test_mst.py" not in [
        f.chunk.path for f in _file_bm25(index, "spanning tree weight", no_tests=True)]
    assert "tests/test_mst.py" in [
        f.chunk.path for f in _file_bm25(index, "spanning tree weight", no_tests=False)]
    runs = {tuple(f.chunk.id for f in _file_bm25(index, "spanning tree cheapest", True))
            for _ in range(3)}
    assert len(runs) == 1
    assert _file_bm25(index, "", no_tests=True) == []
    assert _file_bm25(index, "zzzunknownword", no_tests=True) == []


def test_file_bm25_channel_without_pooled_chunk_shows_the_chunk_sharing_most_words() -> None:
    from controller.text import token_set

    index = _index()
    query = "cheapest edges of minimum total weight"
    # no chunk hit pooled: every file is shown by the word-overlap pick
    found = _file_bm25(index, query, no_tests=True, pools=Pools(file_bm25_pool=0))
    assert found and found[0].chunk.path == "pkg/mst.py"
    words = token_set(query)
    shared = {c.id: len(words & token_set(c.text)) for c in index.chunks_for_path("pkg/mst.py")}
    assert shared[found[0].chunk.id] == max(shared.values())


def test_file_bm25_channel_seeds_how_questions_only() -> None:
    index = _index()
    how = ask(index, "How is the cheapest spanning tree of minimum total weight found?")
    assert how.route in ("explanation", "relation")
    assert "file_bm25" in how.controller_steps[0].channels
    assert any(r.startswith("file_bm25#") for e in how.evidence for r in e.reasons)
    define = ask(index, "Define cheapest_tree.")
    assert define.route == "definition"
    assert "file_bm25" not in define.controller_steps[0].channels


def test_file_bm25_has_its_own_fusion_weight() -> None:
    from controller.fusion import Ranked, channel_weight

    settings = RetrievalSettings(w_file_bm25=0.7)
    assert channel_weight("file_bm25", settings) == 0.7
    fused = rrf([Ranked(channel="file_bm25", query="q", chunk_ids=("a", "b"))], settings)
    assert [(f.chunk_id, f.score) for f in fused] == [
        ("a", round(0.7 / (settings.rrf_k + 1), 9)), ("b", round(0.7 / (settings.rrf_k + 2), 9))]


def test_dense_requests_carry_the_question_as_asked() -> None:
    """A sentence encoder reads sentences: the dense channel gets the question's words in
    order, not the keyword list BM25 gets."""
    from controller.loop import first_action

    plan = route_question("How do I find the cheapest set of edges that connects every node?")
    action = first_action(initial_state(plan, RetrievalSettings()))
    dense = {r.query for r in action.requests if r.channel == "dense"}
    bm25 = {r.query for r in action.requests if r.channel == "bm25"}
    assert dense == {"How do I find the cheapest set of edges that connects every node"}
    assert all(q != next(iter(dense)) for q in bm25)


def test_path_table_is_built_once_per_index_and_ranks_as_a_scan_of_every_path() -> None:
    import math

    from controller.channels import PathTable, path_table
    from helix.core.english import stems
    from indexers.tokenize import tokenize

    index = _index()
    assert path_table(index) is path_table(index)  # not rebuilt per question
    paths = sorted(r.path for r in index.files())
    table = PathTable(paths)
    words = {p: frozenset(stems(t)[0] for t in tokenize(module_of(p).replace("/", " ")))
             for p in paths}
    df: dict[str, int] = {}
    for tokens in words.values():
        for token in tokens:
            df[token] = df.get(token, 0) + 1
    idf = {t: math.log(1.0 + len(paths) / d) for t, d in df.items()}
    for query in ({"mst"}, {"pkg", "other"}, {"test", "mst"}, {"nothing_like_this"}):
        scan = sorted(((round(sum(idf[t] for t in query & words[p]), 9), p) for p in paths
                       if query & words[p]), key=lambda t: (-t[0], t[1]))
        assert list(table.ranked(query)) == [p for _s, p in scan]
    assert list(table.ranked({"mst"}))  # the queries above do reach files
