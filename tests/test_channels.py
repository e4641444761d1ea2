"""Retrieval-quality mechanisms of the controller: the pooled `files` channel, the definition
list in fusion, and test spans scaled down when the question does not ask about tests."""

from __future__ import annotations

from controller_helpers import ask
from fakes import FakeIndex

from controller.channels import Request, RequestResult, execute
from controller.fusion import rrf
from controller.loop import _lists
from helix.core.config import HelixConfig, RetrievalSettings

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


def _index() -> FakeIndex:
    return FakeIndex({"pkg/mst.py": SPREAD, "pkg/other.py": LUCKY,
                      "tests/test_mst.py": TESTS})


def _files(index: FakeIndex, query: str, no_tests: bool) -> list[str]:
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
